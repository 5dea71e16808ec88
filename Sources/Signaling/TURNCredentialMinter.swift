import Crypto
import Foundation
import SignalingProtocol

/// Mints time-limited TURN credentials by the TURN REST API scheme (coturn's `use-auth-secret`,
/// draft-uberti-behave-turn-rest): the username is `<expiry in Unix seconds>:<connection id>` and
/// the password is base64(HMAC-SHA1(shared secret, username)). The TURN server recomputes the HMAC
/// from the username and refuses it once the expiry has passed, so nothing is stored or revoked and
/// the daemon and the TURN server share only the secret.
public struct TURNCredentialMinter: Sendable {
    /// One connection's credential.
    public struct Credential: Equatable, Sendable {
        public var username: String
        public var password: String
        /// Unix seconds after which the TURN server refuses it.
        public var expiry: Int64
    }

    public let configuration: TURNConfiguration

    public init(configuration: TURNConfiguration) {
        self.configuration = configuration
    }

    /// The credential of `connectionId`, valid for the configured lifetime from `now`.
    public func credential(for connectionId: String, now: Date) -> Credential {
        let expiry = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(configuration.credentialLifetimeSeconds)
        let username = "\(expiry):\(connectionId)"
        return Credential(username: username, password: Self.password(username: username, sharedSecret: configuration.sharedSecret), expiry: expiry)
    }

    /// What a client is given: the STUN URLs alone (they need no credential), then the TURN URLs
    /// with `connectionId`'s credential. Empty groups are left out.
    public func iceServers(for connectionId: String, now: Date) -> [ICEServer] {
        let stun = configuration.urls.filter { !$0.needsCredentials }.map(\.description)
        let turn = configuration.urls.filter(\.needsCredentials).map(\.description)
        var servers: [ICEServer] = []
        if !stun.isEmpty { servers.append(ICEServer(urls: stun)) }
        if !turn.isEmpty {
            let credential = credential(for: connectionId, now: now)
            servers.append(ICEServer(urls: turn, username: credential.username, credential: credential.password))
        }
        return servers
    }

    /// base64(HMAC-SHA1(`sharedSecret`, `username`)), as coturn computes it.
    public static func password(username: String, sharedSecret: String) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(sharedSecret.utf8)))
        return Data(code).base64EncodedString()
    }
}
