/// The peer's side of the transport, read from its description: what ICE checks and the DTLS
/// handshake need to know about the other end.
public struct RemoteTransportDescription: Sendable, Equatable {
    public var iceUsernameFragment: String
    public var icePassword: String
    /// The fingerprint the peer's certificate must match; of several, the one with the preferred hash.
    public var fingerprint: DTLSFingerprint
    /// The DTLS role the peer asked for.
    public var setup: DTLSSetupRole

    public init(iceUsernameFragment: String, icePassword: String, fingerprint: DTLSFingerprint, setup: DTLSSetupRole) {
        self.iceUsernameFragment = iceUsernameFragment
        self.icePassword = icePassword
        self.fingerprint = fingerprint
        self.setup = setup
    }
}

extension RemoteTransportDescription {
    /// Reads the transport that `media` uses in `description`, looking at the m-section first and the
    /// session level second. `acceptedSetups` are the DTLS roles the peer may take opposite the router;
    /// any other role is refused with `setupRefusal`, naming the `a=setup` line.
    init(
        of media: MediaDescription, in description: SessionDescription, acceptedSetups: [DTLSSetupRole],
        setupRefusal: String
    ) throws(SDPError) {
        guard let usernameFragment = description.iceUfrag(for: media) else {
            throw SDPError("no a=ice-ufrag in this m-section or at session level", at: media)
        }
        guard let password = description.icePwd(for: media) else {
            throw SDPError("no a=ice-pwd in this m-section or at session level", at: media)
        }
        let fingerprintLines = description.attributes(named: "fingerprint", for: media)
        guard let firstFingerprintLine = fingerprintLines.first else {
            throw SDPError(
                "no a=fingerprint in this m-section or at session level; DTLS needs the peer's certificate fingerprint",
                at: media)
        }
        let fingerprints = description.fingerprints(for: media)
        let preferred = DTLSFingerprint.negotiableAlgorithms.lazy.compactMap { algorithm in
            fingerprints.first { $0.algorithm == algorithm }
        }.first
        guard let fingerprint = preferred else {
            throw SDPError(
                "no fingerprint with a hash function Switchyard accepts ("
                    + DTLSFingerprint.negotiableAlgorithms.joined(separator: ", ") + ")",
                at: firstFingerprintLine)
        }
        guard let setupLine = description.attributes(named: "setup", for: media).first,
            let setup = DTLSSetupRole(rawValue: setupLine.attributeValue ?? "")
        else {
            throw SDPError("no a=setup in this m-section or at session level", at: media)
        }
        guard acceptedSetups.contains(setup) else { throw SDPError(setupRefusal, at: setupLine) }
        self.init(iceUsernameFragment: usernameFragment, icePassword: password, fingerprint: fingerprint, setup: setup)
    }
}
