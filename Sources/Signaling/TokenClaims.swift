import JWTKit
import SignalingProtocol

/// The claims of a Switchyard JWT. One type serves both kinds:
/// - a client token: `scope` is `session.connect`, with `session_id`, `role` and optional
///   `connection_data` and `connection_events_suppressed`;
/// - a REST token from the app's backend: `ist` is `project`, and no session claims.
/// Both carry `iss` (the API key), `iat`, `exp` and optionally `nbf` and `jti`.
struct TokenClaims: JWTPayload, Equatable {
    static let connectScope = "session.connect"
    static let projectIssuerType = "project"

    var iss: String
    var iat: Int64
    var exp: Int64
    var nbf: Int64?
    var jti: String?
    var scope: String?
    var ist: String?
    var sessionId: String?
    var role: String?
    var connectionData: String?
    var connectionEventsSuppressed: Bool?

    enum CodingKeys: String, CodingKey {
        case iss, iat, exp, nbf, jti, scope, ist
        case sessionId = "session_id"
        case role
        case connectionData = "connection_data"
        case connectionEventsSuppressed = "connection_events_suppressed"
    }

    /// Signature only: time and claim checks need the caller's clock, so `TokenAuthority` makes them.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// What a verified client token grants.
public struct ClientGrant: Equatable, Sendable {
    public var sessionId: String
    public var role: Role
    public var connectionData: String
    /// Seconds since the Unix epoch.
    public var expiresAt: Int64
    /// The app's backend put this connection out of other connections' joins and leaves
    /// (`connection_events_suppressed`), whatever its `connect` asks.
    public var connectionEventsSuppressed = false
}
