import SRTP

/// What a finished DTLS-SRTP handshake gives the transport: the negotiated profile and a key for each
/// direction (RFC 5764 section 4.2), seen from the server.
public struct DTLSSRTPKeys: Equatable, Sendable {
    /// What the server (we) protects with.
    public var local: SRTPKeyMaterial
    /// What the client (the peer) protects with.
    public var remote: SRTPKeyMaterial

    public var profile: SRTPProfile { local.profile }

    /// Splits exporter output, laid out as client key, server key, client salt, server salt.
    public init(profile: SRTPProfile, exported: [UInt8]) throws(SRTPError) {
        let key = profile.masterKeyLength
        let salt = profile.masterSaltLength
        let clientKey = Array(exported[0..<key])
        let serverKey = Array(exported[key..<(2 * key)])
        let clientSalt = Array(exported[(2 * key)..<(2 * key + salt)])
        let serverSalt = Array(exported[(2 * key + salt)..<(2 * key + 2 * salt)])
        local = try SRTPKeyMaterial(profile: profile, masterKey: serverKey, masterSalt: serverSalt)
        remote = try SRTPKeyMaterial(profile: profile, masterKey: clientKey, masterSalt: clientSalt)
    }
}
