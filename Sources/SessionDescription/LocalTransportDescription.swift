/// The router's side of one ICE/DTLS transport, as it goes into the descriptions the router writes.
public struct LocalTransportDescription: Sendable, Equatable {
    public var iceUsernameFragment: String
    public var icePassword: String
    /// The fingerprint of the certificate the router presents in the DTLS handshake.
    public var fingerprint: DTLSFingerprint
    /// The host candidates the router listens on; the first is the default address of every m-section.
    public var candidates: [ICECandidate]

    public init(
        iceUsernameFragment: String, icePassword: String, fingerprint: DTLSFingerprint, candidates: [ICECandidate]
    ) {
        self.iceUsernameFragment = iceUsernameFragment
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.candidates = candidates
    }
}

extension LocalTransportDescription {
    /// The port an m-section announces: the first candidate's, or 9 (discard) when there is no candidate
    /// yet, as RFC 8840 section 4.1.1 does for a description written before gathering.
    var defaultPort: UInt16 { candidates.first?.port ?? 9 }

    /// The `c=` line that goes with `defaultPort`.
    var connectionLine: SDPLine {
        guard let host = candidates.first?.host else { return SDPLine(type: "c", value: "IN IP4 0.0.0.0") }
        return SDPLine(type: "c", value: "IN \(host.contains(":") ? "IP6" : "IP4") \(host)")
    }

    /// ICE credentials, fingerprint and DTLS role, repeated in every bundled m-section the way browsers
    /// write them.
    func credentialLines(setup: DTLSSetupRole) -> [SDPLine] {
        [
            .attribute("ice-ufrag", iceUsernameFragment),
            .attribute("ice-pwd", icePassword),
            .attribute("fingerprint", fingerprint.description),
            .attribute("setup", setup.rawValue),
        ]
    }

    /// Every candidate, then `a=end-of-candidates`: an ICE-lite agent knows all of them up front.
    var candidateLines: [SDPLine] {
        candidates.map { .attribute("candidate", $0.attributeValue) } + [.attribute("end-of-candidates")]
    }
}
