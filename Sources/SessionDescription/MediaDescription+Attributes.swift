/// Typed views of the attributes of one m-section. Each reads `lines` on demand; the parser has
/// already refused malformed values, so a view only skips lines that were edited into nonsense after
/// parsing.
extension MediaDescription {
    /// The first `a=<name>` line.
    public func attribute(named name: String) -> SDPLine? { lines.firstAttribute(named: name) }

    /// Every `a=<name>` line, in order.
    public func attributes(named name: String) -> [SDPLine] { lines.allAttributes(named: name) }

    /// `a=mid`: the id that BUNDLE groups and the mid header extension use for this section.
    public var mid: String? { lines.firstValue(ofAttribute: "mid") }

    /// This section's own direction attribute. `SessionDescription.direction(for:)` applies the session
    /// level and the `sendrecv` default.
    public var direction: MediaDirection? { lines.direction }

    /// `a=rtpmap` by payload type; for a payload type mapped twice, the first.
    public var rtpmaps: [UInt8: RTPMap] {
        var maps: [UInt8: RTPMap] = [:]
        for line in attributes(named: "rtpmap") {
            guard let map = try? RTPMap(parsing: line.attributeValue ?? "") else { continue }
            if maps[map.payloadType] == nil { maps[map.payloadType] = map }
        }
        return maps
    }

    /// `a=fmtp` parameters by payload type, as written: `minptime=10;useinbandfec=1`.
    public var fmtp: [UInt8: String] {
        var parameters: [UInt8: String] = [:]
        for line in attributes(named: "fmtp") {
            guard let parsed = try? SDPAttributeValue.formatParameters(line.attributeValue ?? "") else { continue }
            if parameters[parsed.payloadType] == nil { parameters[parsed.payloadType] = parsed.parameters }
        }
        return parameters
    }

    /// `a=rtcp-fb` by target, each list in line order: `nack`, `nack pli`, `ccm fir`, ...
    public var rtcpFeedback: [RTCPFeedbackTarget: [String]] {
        var feedback: [RTCPFeedbackTarget: [String]] = [:]
        for line in attributes(named: "rtcp-fb") {
            guard let parsed = try? SDPAttributeValue.rtcpFeedback(line.attributeValue ?? "") else { continue }
            feedback[parsed.target, default: []].append(parsed.feedback)
        }
        return feedback
    }

    /// The feedback that applies to `payloadType`: its own and the `*` lines, in line order, once each.
    public func rtcpFeedback(forPayloadType payloadType: UInt8) -> [String] {
        var feedback: [String] = []
        for line in attributes(named: "rtcp-fb") {
            guard let parsed = try? SDPAttributeValue.rtcpFeedback(line.attributeValue ?? ""),
                parsed.target.applies(to: payloadType), !feedback.contains(parsed.feedback)
            else { continue }
            feedback.append(parsed.feedback)
        }
        return feedback
    }

    /// `a=extmap` header extensions, in line order.
    public var extmaps: [HeaderExtension] {
        attributes(named: "extmap").compactMap { try? HeaderExtension(parsingExtmap: $0.attributeValue ?? "") }
    }

    /// The sources `a=ssrc` lines announce, in order of first mention, each with its attributes.
    public var ssrcs: [SSRCDescription] {
        var sources: [SSRCDescription] = []
        for line in attributes(named: "ssrc") {
            guard let parsed = try? SDPAttributeValue.ssrcAttribute(line.attributeValue ?? "") else { continue }
            guard let index = sources.firstIndex(where: { $0.ssrc == parsed.ssrc }) else {
                sources.append(SSRCDescription(ssrc: parsed.ssrc, attributes: [parsed.name: parsed.value]))
                continue
            }
            if sources[index].attributes[parsed.name] == nil { sources[index].attributes[parsed.name] = parsed.value }
        }
        return sources
    }

    /// `a=ssrc-group` lines, in order.
    public var ssrcGroups: [SSRCGroup] {
        attributes(named: "ssrc-group").compactMap { try? SSRCGroup(parsing: $0.attributeValue ?? "") }
    }

    /// The first `a=msid`.
    public var msid: MSID? { lines.firstValue(ofAttribute: "msid").flatMap { try? MSID(parsing: $0) } }

    /// This section's own `a=ice-ufrag`; see `SessionDescription.iceUfrag(for:)`.
    public var iceUfrag: String? { lines.firstValue(ofAttribute: "ice-ufrag") }

    /// This section's own `a=ice-pwd`; see `SessionDescription.icePwd(for:)`.
    public var icePwd: String? { lines.firstValue(ofAttribute: "ice-pwd") }

    /// This section's own `a=fingerprint` lines; see `SessionDescription.fingerprints(for:)`.
    public var fingerprints: [DTLSFingerprint] { lines.fingerprints }

    /// This section's first `a=fingerprint`.
    public var fingerprint: DTLSFingerprint? { fingerprints.first }

    /// This section's own `a=setup`; see `SessionDescription.setup(for:)`.
    public var setup: DTLSSetupRole? { lines.setup }

    /// `a=rtcp-mux`: RTP and RTCP share one port (RFC 5761).
    public var rtcpMux: Bool { lines.hasAttribute("rtcp-mux") }

    /// `a=rtcp-rsize`: the writer accepts reduced-size RTCP (RFC 5506).
    public var rtcpReducedSize: Bool { lines.hasAttribute("rtcp-rsize") }

    /// `a=bundle-only`: port 0 that means "only inside the BUNDLE", not "rejected" (RFC 8843 section 6).
    public var isBundleOnly: Bool { lines.hasAttribute("bundle-only") }

    /// `a=rid` lines, in order.
    public var rids: [RID] {
        attributes(named: "rid").compactMap { try? RID(parsing: $0.attributeValue ?? "") }
    }

    /// `a=simulcast` as written, such as `send q;h;f` (RFC 8853).
    public var simulcast: String? { lines.firstValue(ofAttribute: "simulcast") }

    /// `a=candidate` values as written.
    public var candidates: [String] { attributes(named: "candidate").compactMap(\.attributeValue) }
}
