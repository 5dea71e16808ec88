import MediaControl
import RTPWire

/// Answers a publisher's offer.
///
/// The router is ICE-lite, only ever the DTLS server (`a=setup:passive`), receives a whole publish over
/// one BUNDLEd transport, and forwards the codecs of `CodecName` only (H.264 in packetization mode 1).
/// The answer says exactly that, and the offer is refused, with the line at fault, when it asks for
/// anything else.
public enum PublisherNegotiation {
    /// The header extensions the router accepts from a publisher, by URI.
    public static let acceptedHeaderExtensionURIs = [
        HeaderExtensionURI.mid, HeaderExtensionURI.rtpStreamID, HeaderExtensionURI.repairedRTPStreamID,
        HeaderExtensionURI.absoluteSendTime, HeaderExtensionURI.transportWideSequenceNumber,
        HeaderExtensionURI.audioLevel,
    ]

    /// The RTCP feedback the router accepts for the codec it chose. With `transport-cc` and the
    /// transport-wide sequence number extension, the router reports every packet's arrival, and the
    /// publisher's own congestion control adapts its encoder to its uplink.
    public static let acceptedRTCPFeedback = ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"]

    /// The transport protocols of DTLS-SRTP over UDP (RFC 5764 section 8), the only ones the router speaks.
    static let acceptedTransportProtocols = ["UDP/TLS/RTP/SAVPF", "UDP/TLS/RTP/SAVP"]

    /// Formats that protect, repair or accompany media rather than encode it; left out when an error
    /// lists what the publisher offered, since naming them would not help anyone pick a codec.
    private static let formatsThatAreNotCodecs: Set<String> = [
        "rtx", "red", "ulpfec", "flexfec-03", "cn", "telephone-event",
    ]

    /// Answers a publisher's offer. Returns the answer, what the remote side is, and the tracks accepted.
    ///
    /// Audio and video m-sections that send are accepted as `recvonly` with the first codec of
    /// `CodecName` of their kind they offer (Opus; VP8, else H.264) and the video codec's RTX;
    /// those that only receive or are inactive are answered `inactive`; data channels and other kinds
    /// are rejected with port 0 and left out of the answer's BUNDLE group. Throws when the offer is not
    /// BUNDLEd, is not DTLS-SRTP, wants the router to be the DTLS client, lacks ICE credentials, a
    /// fingerprint, `a=rtcp-mux`, `a=mid` or `a=ssrc` where they are needed, offers a sending m-section
    /// with no codec of `CodecName` of its kind, or publishes nothing. Simulcast video (`a=simulcast` with `a=rid`,
    /// or `a=ssrc-group:SIM`) of up to three layers is accepted, each rid answered `recv`.
    /// `redundantAudio` false answers plain Opus even to an offer of RED (an end-to-end encrypted
    /// session, where the sender's transform encrypts the RED blocks the router would have to read).
    public static func answer(
        offer: SessionDescription, local: LocalTransportDescription, sessionID: UInt64, sessionVersion: UInt64 = 1, redundantAudio: Bool = true
    ) throws(SDPError) -> (answer: SessionDescription, remote: RemoteTransportDescription, tracks: [NegotiatedTrack]) {
        if offer.media.count > 1, offer.bundleGroup == nil {
            throw SDPError(
                reason: "offer has \(offer.media.count) media sections but no a=group:BUNDLE; "
                    + "Switchyard needs one transport per publish")
        }
        var answer = SessionDescription(
            origin: SDPOrigin(username: "switchyard", sessionID: sessionID, sessionVersion: sessionVersion),
            sessionLines: [SDPLine(type: "t", value: "0 0")])
        answer.isICELite = true
        var tracks: [NegotiatedTrack] = []
        var bundledMids: [String] = []
        var transportSection: MediaDescription?
        for offered in offer.media {
            guard let accepted = try acceptance(of: offered, in: offer, redundantAudio: redundantAudio) else {
                answer.media.append(rejection(of: offered))
                continue
            }
            transportSection = transportSection ?? offered
            bundledMids.append(accepted.mid)
            answer.media.append(answerSection(for: offered, accepting: accepted, local: local))
            if let track = accepted.track { tracks.append(track) }
        }
        guard let transportSection, !tracks.isEmpty else {
            throw SDPError(reason: "offer has no audio or video to publish")
        }
        let remote = try RemoteTransportDescription(
            of: transportSection, in: offer, acceptedSetups: [.actpass, .active],
            setupRefusal: "Switchyard can only be the DTLS server (passive), so the offer must say actpass or active")
        answer.bundleGroup = bundledMids
        return (answer, remote, tracks)
    }

    /// What the router takes from one offered m-section.
    private struct Acceptance {
        var mid: String
        var codec: ChosenCodec
        var headerExtensions: [HeaderExtension]
        /// Nil when the publisher does not send in this m-section, which is then answered `inactive`.
        var track: NegotiatedTrack?
    }

    struct ChosenCodec {
        var codec: CodecName
        var rtpmap: RTPMap
        var fmtp: String?
        var rtxPayloadType: UInt8?
        /// RFC 2198 redundant audio with this codec inside, when offered.
        var redPayloadType: UInt8? = nil
        var rtcpFeedback: [String]
    }

    /// Nil when the m-section is to be rejected with port 0; throws when it makes the offer unacceptable.
    private static func acceptance(
        of offered: MediaDescription, in offer: SessionDescription, redundantAudio: Bool
    ) throws(SDPError) -> Acceptance? {
        guard offered.kind == "audio" || offered.kind == "video" else { return nil }
        guard offered.port != 0 || offered.isBundleOnly else { return nil }
        guard acceptedTransportProtocols.contains(offered.transportProtocol.uppercased()) else {
            throw SDPError(
                "transport protocol \(offered.transportProtocol) is not DTLS-SRTP over UDP (UDP/TLS/RTP/SAVPF)",
                at: offered)
        }
        let publishes = offer.direction(for: offered).sends
        guard let codec = chooseCodec(in: offered, redundantAudio: redundantAudio) else {
            // Nothing to forward, but nothing wanted either: decline the m-section, not the whole publish.
            guard publishes else { return nil }
            let forwarded = [MediaKind.audio, .video].map { kind in
                "\(CodecName.alternatives(CodecName.carried(in: kind.rawValue))) for \(kind.rawValue)"
            }
            throw SDPError(
                "no codec Switchyard forwards (\(forwarded.joined(separator: ", "))); offered: \(offeredCodecNames(in: offered))",
                at: offered)
        }
        guard let mid = offered.mid else {
            throw SDPError("no a=mid; BUNDLE needs it to tell the m-sections apart", at: offered)
        }
        if let group = offer.bundleGroup, !group.contains(mid) {
            throw SDPError(
                "mid \(mid) is not in a=group:BUNDLE; Switchyard needs one transport per publish", at: offered)
        }
        guard offered.rtcpMux else {
            throw SDPError("no a=rtcp-mux; Switchyard takes RTP and RTCP on one port", at: offered)
        }
        let headerExtensions = offered.extmaps.filter { acceptedHeaderExtensionURIs.contains($0.uri) }
        var acceptance = Acceptance(mid: mid, codec: codec, headerExtensions: headerExtensions)
        if publishes {
            acceptance.track = try track(in: offered, mid: mid, codec: codec, headerExtensions: headerExtensions)
        }
        return acceptance
    }

    /// The first of `codecs` of the m-section's kind that it offers, with the first format it offers
    /// it in: Opus as `opus/48000/2`, H.264 as `H264/90000` in packetization mode 1 with a
    /// profile-level-id of a profile WebRTC negotiates, any other codec by its encoding name and clock
    /// rate; a video codec with the RTX format whose `apt` points at it. Sending a stream of
    /// `sendingH264` (a receiver's offer), the H.264 format is the first of the stream's profile, else the
    /// first whose decoders play it (`H264ProfileLevelID.Profile.plays`).
    static func chooseCodec(
        in section: MediaDescription, among codecs: [CodecName] = CodecName.allCases, sendingH264: H264ProfileLevelID? = nil,
        redundantAudio: Bool = true
    ) -> ChosenCodec? {
        let rtpmaps = section.rtpmaps
        let fmtp = section.fmtp
        let offeredMaps = section.formats.compactMap { UInt8($0).flatMap { rtpmaps[$0] } }
        let choices = CodecName.carried(in: section.kind, among: codecs).lazy.compactMap { codec -> (codec: CodecName, map: RTPMap)? in
            let map: RTPMap?
            switch codec {
            // Opus is always announced with two channels (RFC 7587 section 7).
            case .opus: map = offeredMaps.first { $0.matches(codec) && $0.channels == 2 }
            case .h264:
                let formats = h264FormatsInModeOne(in: section).compactMap { format in
                    (try? format.parameters.get()).map { (map: format.map, profile: $0.profileLevelID.profile) }
                }
                if let stream = sendingH264?.profile {
                    map = (formats.first { $0.profile == stream } ?? formats.first { $0.profile.plays(stream) })?.map
                } else {
                    map = formats.first?.map
                }
            default: map = offeredMaps.first { $0.matches(codec) }
            }
            return map.map { (codec, $0) }
        }
        guard let (codec, chosen) = choices.first else { return nil }
        let rtx = codec.kind == .video ? repair(of: chosen, among: offeredMaps, parameters: fmtp) : nil
        let red = codec == .opus && redundantAudio ? redundancy(of: chosen, among: offeredMaps, parameters: fmtp) : nil
        let feedback = section.rtcpFeedback(forPayloadType: chosen.payloadType).filter(acceptedRTCPFeedback.contains)
        return ChosenCodec(
            codec: codec, rtpmap: chosen, fmtp: fmtp[chosen.payloadType], rtxPayloadType: rtx?.payloadType,
            redPayloadType: red?.payloadType, rtcpFeedback: feedback)
    }

    /// The RFC 2198 format (`red/48000/2`) whose blocks are all `primary`, as its `a=fmtp` says
    /// (`111/111`: the router forwards and strips redundancy of one codec only).
    private static func redundancy(of primary: RTPMap, among maps: [RTPMap], parameters: [UInt8: String]) -> RTPMap? {
        maps.first { map in
            guard map.matches("red", clockRate: primary.clockRate), let blocks = parameters[map.payloadType] else { return false }
            let payloadTypes = blocks.split(separator: "/").map { $0.filter { $0 != " " } }
            return !payloadTypes.isEmpty && payloadTypes.allSatisfy { $0 == "\(primary.payloadType)" }
        }
    }

    /// The RTX format (RFC 4588 section 8.1) whose `apt` parameter names `primary`.
    private static func repair(of primary: RTPMap, among maps: [RTPMap], parameters: [UInt8: String]) -> RTPMap? {
        maps.first { map in
            let associated = parameters[map.payloadType].flatMap {
                SDPAttributeValue.formatParameter(named: "apt", in: $0)
            }
            return map.matches("rtx", clockRate: primary.clockRate) && associated == "\(primary.payloadType)"
        }
    }

    /// The `H264/90000` formats of `section` in packetization mode 1, in the offer's order, with their
    /// parameters or why they do not parse.
    static func h264FormatsInModeOne(in section: MediaDescription) -> [(map: RTPMap, parameters: Result<H264FormatParameters, SDPError>)] {
        let rtpmaps = section.rtpmaps
        let fmtp = section.fmtp
        return section.formats.compactMap { format in
            guard let map = UInt8(format).flatMap({ rtpmaps[$0] }), map.matches(.h264),
                fmtp[map.payloadType].flatMap({ SDPAttributeValue.formatParameter(named: "packetization-mode", in: $0) }) == "1"
            else { return nil }
            return (map, Result { () throws(SDPError) in try H264FormatParameters(parsing: fmtp[map.payloadType]) })
        }
    }

    /// The offered codec names, for the error that says none of them will do.
    static func offeredCodecNames(in section: MediaDescription) -> String {
        let rtpmaps = section.rtpmaps
        let h264 = h264FormatsInModeOne(in: section)
        // H.264 in packetization mode 1 that is refused for its profile-level-id alone: say why.
        let h264Refusal = h264.contains { (try? $0.parameters.get()) != nil }
            ? nil
            : h264.lazy.compactMap { format -> String? in
                guard case .failure(let error) = format.parameters else { return nil }
                return error.reason
            }.first
        var names: [String] = []
        for format in section.formats {
            let map = UInt8(format).flatMap { rtpmaps[$0] }
            var name = map?.name ?? "payload type \(format)"
            let key = name.lowercased()
            if formatsThatAreNotCodecs.contains(key) || names.contains(where: { $0.lowercased().hasPrefix(key) }) { continue }
            // Opus is always announced with two channels (RFC 7587 section 7); say so when that is what is off.
            if let map, map.matches(.opus), map.channels != 2 {
                name += "/48000\(map.channels.map { "/\($0)" } ?? "") (Opus is opus/48000/2, RFC 7587)"
            }
            if let map, map.matches(.h264), let h264Refusal { name += " (\(h264Refusal))" }
            names.append(name)
        }
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    /// Most simulcast layers a video m-section may send: what browsers send, and what the router's
    /// layer selection budgets for.
    public static let maximumSimulcastLayers = 3

    private static func track(
        in section: MediaDescription, mid: String, codec: ChosenCodec, headerExtensions: [HeaderExtension]
    ) throws(SDPError) -> NegotiatedTrack {
        let sources = section.ssrcs
        let repairPairs = section.ssrcGroups.filter { $0.semantics == "FID" && $0.ssrcs.count == 2 }
        let repairSources = Set(repairPairs.map { $0.ssrcs[1] })
        let layers = try simulcastLayers(in: section, headerExtensions: headerExtensions, repairPairs: repairPairs)
        let source = sources.first { !repairSources.contains($0.ssrc) }
        if layers.isEmpty {
            guard !sources.isEmpty else {
                throw SDPError("no a=ssrc and no a=simulcast: nothing says how to recognise the packets", at: section)
            }
            guard source != nil else {
                throw SDPError("every a=ssrc is an RTX repair source; there is no media source to receive", at: section)
            }
        }
        // Rid-named layers learn their SSRCs from packets; an a=ssrc beside them says nothing about which is which.
        let ssrc = layers.isEmpty ? source?.ssrc : layers[0].ssrc
        let msid = section.msid ?? source?.msid
        return NegotiatedTrack(
            mid: mid, kind: section.kind, codec: codec.codec,
            payloadType: codec.rtpmap.payloadType, clockRate: codec.rtpmap.clockRate,
            rtxPayloadType: codec.rtxPayloadType, redPayloadType: codec.redPayloadType, ssrc: ssrc,
            rtxSSRC: ssrc.flatMap { ssrc in repairPairs.first { $0.ssrcs[0] == ssrc }?.ssrcs[1] }, cname: source?.cname,
            streamID: msid?.streamID, trackID: msid?.trackID, headerExtensions: headerExtensions,
            rtcpFeedback: codec.rtcpFeedback, layers: layers, formatParameters: codec.fmtp)
    }

    /// The simulcast layers of a video m-section, in the publisher's order (which must be lowest
    /// first, as libwebrtc sends them when `sendEncodings` are listed that way): from `a=simulcast`
    /// and `a=rid`, else from `a=ssrc-group:SIM`. Empty for one encoding.
    private static func simulcastLayers(
        in section: MediaDescription, headerExtensions: [HeaderExtension], repairPairs: [SSRCGroup]
    ) throws(SDPError) -> [NegotiatedLayer] {
        if let line = section.lines.firstAttribute(named: "simulcast") {
            guard section.kind == "video" else { throw SDPError("a=simulcast on \(section.kind); only video can be simulcast", at: line) }
            let streams: SimulcastStreams
            do throws(SDPError) {
                streams = try SimulcastStreams(parsing: line.attributeValue ?? "")
            } catch {
                throw SDPError(error.reason, at: line)
            }
            guard streams.send.count <= maximumSimulcastLayers else {
                throw SDPError("a=simulcast sends \(streams.send.count) layers; Switchyard takes at most \(maximumSimulcastLayers)", at: line)
            }
            let sendRIDs = Set(section.rids.filter { $0.direction == .send }.map(\.id))
            if let missing = streams.send.first(where: { !sendRIDs.contains($0) }) {
                throw SDPError("a=simulcast names rid \(missing), which has no a=rid:\(missing) send line", at: line)
            }
            guard headerExtensions.contains(where: { $0.uri == HeaderExtensionURI.rtpStreamID && (1...14).contains($0.id) }) else {
                throw SDPError(
                    "a=simulcast by rid needs the rtp-stream-id header extension (a=extmap:<1-14> \(HeaderExtensionURI.rtpStreamID))",
                    at: line)
            }
            return streams.send.map { NegotiatedLayer(rid: $0) }
        }
        guard let group = section.ssrcGroups.first(where: { $0.semantics == "SIM" }) else { return [] }
        guard group.ssrcs.count <= maximumSimulcastLayers else {
            throw SDPError("a=ssrc-group:SIM lists \(group.ssrcs.count) layers; Switchyard takes at most \(maximumSimulcastLayers)", at: section)
        }
        return group.ssrcs.map { ssrc in NegotiatedLayer(ssrc: ssrc, rtxSSRC: repairPairs.first { $0.ssrcs[0] == ssrc }?.ssrcs[1]) }
    }

    private static func answerSection(
        for offered: MediaDescription, accepting acceptance: Acceptance, local: LocalTransportDescription
    ) -> MediaDescription {
        let codec = acceptance.codec
        let payloadType = codec.rtpmap.payloadType
        // RED first: a browser sends the first format of the answer it shares, and RED is what keeps
        // a lost packet's audio (docs/red.md).
        var formats = codec.redPayloadType.map { ["\($0)", "\(payloadType)"] } ?? ["\(payloadType)"]
        var lines = [local.connectionLine, .attribute("mid", acceptance.mid)]
        lines += local.credentialLines(setup: .passive)
        lines.append(.attribute("rtcp-mux"))
        if offered.rtcpReducedSize { lines.append(.attribute("rtcp-rsize")) }
        let direction: MediaDirection = acceptance.track == nil ? .inactive : .recvonly
        lines.append(.attribute(direction.rawValue))
        lines.append(.attribute("rtpmap", codec.rtpmap.attributeValue))
        if let fmtp = codec.fmtp { lines.append(.attribute("fmtp", "\(payloadType) \(fmtp)")) }
        lines += codec.rtcpFeedback.map { .attribute("rtcp-fb", "\(payloadType) \($0)") }
        if let rtxPayloadType = codec.rtxPayloadType {
            formats.append("\(rtxPayloadType)")
            let rtx = RTPMap(payloadType: rtxPayloadType, name: "rtx", clockRate: codec.rtpmap.clockRate)
            lines.append(.attribute("rtpmap", rtx.attributeValue))
            lines.append(.attribute("fmtp", "\(rtxPayloadType) apt=\(payloadType)"))
        }
        if let redPayloadType = codec.redPayloadType {
            lines += RTPMap.redundantAudioLines(payloadType: redPayloadType, primary: codec.rtpmap)
        }
        lines += acceptance.headerExtensions.map { .attribute("extmap", $0.attributeValue) }
        let rids = acceptance.track?.layers.compactMap(\.rid) ?? []
        if !rids.isEmpty {
            lines += rids.map { .attribute("rid", "\($0) recv") }
            lines.append(.attribute("simulcast", "recv \(rids.joined(separator: ";"))"))
        }
        lines += local.candidateLines
        return MediaDescription(
            kind: offered.kind, port: local.defaultPort, transportProtocol: offered.transportProtocol, formats: formats,
            lines: lines)
    }

    /// Port 0 with the offer's protocol and formats and its mid (RFC 8829 section 5.3.1); the `c=` line
    /// keeps the description valid, since the answer has none at session level.
    static func rejection(of offered: MediaDescription) -> MediaDescription {
        var lines = [SDPLine(type: "c", value: "IN IP4 0.0.0.0")]
        if let mid = offered.mid { lines.append(.attribute("mid", mid)) }
        return MediaDescription(
            kind: offered.kind, port: 0, transportProtocol: offered.transportProtocol, formats: offered.formats,
            lines: lines)
    }
}
