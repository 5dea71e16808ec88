/// The STUN and TURN servers clients are told about, and the secret the daemon shares with the TURN
/// server (coturn's `static-auth-secret` with `use-auth-secret`) to mint each connection's
/// credentials. Absent from the configuration, clients get no `iceServers` at all.
public struct TURNConfiguration: Equatable, Sendable {
    /// What clients are given, in order.
    public var urls: [ICEServerURL]
    /// The HMAC key of the TURN REST API scheme; the TURN server holds the same one.
    public var sharedSecret: String
    /// How long a minted credential stays valid. The TURN server checks it on every refresh of an
    /// allocation too, so it must outlast the longest call that uses the relay.
    public var credentialLifetimeSeconds: Int

    /// Shortest and longest credential lifetimes the configuration takes: under a minute a slow
    /// client's first allocation could already fail; past a week a leaked credential is a standing
    /// pass to the relay.
    public static let lifetimeRange = 60...604_800
    /// coturn's and LiveKit's default: a day, longer than any call.
    public static let defaultLifetimeSeconds = 86_400

    public init(urls: [ICEServerURL], sharedSecret: String, credentialLifetimeSeconds: Int = Self.defaultLifetimeSeconds) {
        self.urls = urls
        self.sharedSecret = sharedSecret
        self.credentialLifetimeSeconds = credentialLifetimeSeconds
    }
}
