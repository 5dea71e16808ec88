/// A parsed session description (RFC 8866) that keeps every line, unknown attributes too, so that it
/// can be written back as it came.
///
/// The `v=`, `o=` and `s=` lines are typed; every other session-level line stays in `sessionLines` and
/// every m-section in `media`. Typed accessors read the lines on demand.
public struct SessionDescription: Sendable, Equatable, CustomStringConvertible {
    /// The `o=` line.
    public var origin: SDPOrigin
    /// The `s=` line; WebRTC writes `-`.
    public var sessionName: String
    /// The session-level lines after `s=` and before the first `m=`: `t=`, `c=`, `a=` and the like.
    public var sessionLines: [SDPLine]
    /// The m-sections, in order.
    public var media: [MediaDescription]

    public init(
        origin: SDPOrigin, sessionName: String = "-", sessionLines: [SDPLine] = [], media: [MediaDescription] = []
    ) {
        self.origin = origin
        self.sessionName = sessionName
        self.sessionLines = sessionLines
        self.media = media
    }

    /// The description as text, each line ended by CRLF as RFC 8866 section 5 asks.
    public var description: String {
        var lines = [
            SDPLine(type: "v", value: "0"), SDPLine(type: "o", value: origin.description),
            SDPLine(type: "s", value: sessionName),
        ]
        lines += sessionLines
        for section in media {
            lines.append(section.mediaLine)
            lines += section.lines
        }
        return lines.map { $0.description + "\r\n" }.joined()
    }

    /// The mids of `a=group:BUNDLE` (RFC 8843), or nil without one. Setting replaces the group line, or
    /// appends one to the session lines; nil removes it.
    public var bundleGroup: [String]? {
        get {
            for line in sessionLines.allAttributes(named: "group") {
                if let group = try? SDPAttributeValue.group(line.attributeValue ?? ""), group.semantics == "BUNDLE" {
                    return group.identifiers
                }
            }
            return nil
        }
        set {
            let isBundleGroup = { (line: SDPLine) in
                line.attributeName == "group" && line.attributeValue?.split(separator: " ").first == "BUNDLE"
            }
            let index = sessionLines.firstIndex(where: isBundleGroup)
            sessionLines.removeAll(where: isBundleGroup)
            guard let mids = newValue else { return }
            let line = SDPLine.attribute("group", (["BUNDLE"] + mids).joined(separator: " "))
            sessionLines.insert(line, at: index ?? sessionLines.endIndex)
        }
    }

    /// `a=ice-lite`: the writer only answers connectivity checks (RFC 8445 section 2.5).
    public var isICELite: Bool {
        get { sessionLines.hasAttribute("ice-lite") }
        set {
            if newValue == isICELite { return }
            if newValue {
                sessionLines.append(.attribute("ice-lite"))
            } else {
                sessionLines.removeAll { $0.attributeName == "ice-lite" }
            }
        }
    }

    /// The session-level `a=ice-ufrag`.
    public var iceUfrag: String? { sessionLines.firstValue(ofAttribute: "ice-ufrag") }

    /// The session-level `a=ice-pwd`.
    public var icePwd: String? { sessionLines.firstValue(ofAttribute: "ice-pwd") }

    /// The session-level `a=fingerprint` lines.
    public var fingerprints: [DTLSFingerprint] { sessionLines.fingerprints }

    /// The first session-level `a=fingerprint`.
    public var fingerprint: DTLSFingerprint? { fingerprints.first }

    /// The session-level `a=setup`.
    public var setup: DTLSSetupRole? { sessionLines.setup }

    /// The session-level direction attribute, which m-sections without their own inherit.
    public var direction: MediaDirection? { sessionLines.direction }
}

/// The attributes that apply to an m-section: writers may put ICE and DTLS attributes, and the
/// direction, at session level instead of in every m-section (Firefox writes its fingerprint there),
/// so each accessor looks at the m-section first and at the session level second.
extension SessionDescription {
    /// The ICE username fragment that applies to `media`.
    public func iceUfrag(for media: MediaDescription) -> String? { media.iceUfrag ?? iceUfrag }

    /// The ICE password that applies to `media`.
    public func icePwd(for media: MediaDescription) -> String? { media.icePwd ?? icePwd }

    /// The certificate fingerprints that apply to `media`.
    public func fingerprints(for media: MediaDescription) -> [DTLSFingerprint] {
        media.fingerprints.isEmpty ? fingerprints : media.fingerprints
    }

    /// The DTLS role that applies to `media`.
    public func setup(for media: MediaDescription) -> DTLSSetupRole? { media.setup ?? setup }

    /// The direction of `media`: its own, else the session's, else `sendrecv` (RFC 8866 section 6.7).
    public func direction(for media: MediaDescription) -> MediaDirection {
        media.direction ?? direction ?? .sendrecv
    }

    /// The `a=<name>` lines that apply to `media`: its own if it has any, else the session's. Errors use
    /// these to name the line at fault.
    func attributes(named name: String, for media: MediaDescription) -> [SDPLine] {
        let own = media.attributes(named: name)
        return own.isEmpty ? sessionLines.allAttributes(named: name) : own
    }
}
