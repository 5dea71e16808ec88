/// Why the server refused a request. Every error reply carries one of these and a message naming
/// the input that was wrong.
public enum SignalingErrorCode: String, Codable, Equatable, Sendable {
    /// Not JSON, or not an object with `v`, `id` and `method`.
    case malformedMessage
    /// `v` is not a version this server speaks.
    case unsupportedVersion
    /// `method` is not one this server knows.
    case unknownMethod
    /// `params` is missing a field, has a field of the wrong type, or a value out of range.
    case invalidParams
    /// The first request must be `connect`.
    case notConnected
    /// `connect` was sent twice.
    case alreadyConnected
    /// The token is malformed, wrongly signed, uses another algorithm, or names another session.
    case invalidToken
    /// The token's `exp` has passed, or its `nbf` has not come yet.
    case tokenExpired
    /// The token's role does not allow the request.
    case forbidden
    /// No stream, subscriber or connection with that id in this session.
    case notFound
    /// The request acts on a stream or subscriber that belongs to another connection.
    case notOwner
    /// Too many messages; keep it up and the connection is closed.
    case rateLimited
    /// The media plane failed (it could not create the session's router, a system call failed, the
    /// media connection failed before the request completed). No free media port is `limitReached`.
    case mediaError
    /// A server limit (sessions, connections per session, streams, free media ports) is reached.
    case limitReached
    /// `reconnect` cannot resume the connection (the events it missed are no longer kept, or too
    /// many wrong secrets on this socket); connect afresh.
    case reconnectRefused
    /// In a cluster: the session is served by another node. `location` is that node's WebSocket URL;
    /// connect there with the same token.
    case sessionOnOtherNode
    /// In a cluster: what the request needs (the cluster's database, the session's node) cannot be
    /// reached now; try again shortly.
    case unavailable
    /// The request conflicts with the state of what it acts on: the session is already being
    /// recorded, the archive already stopped, an archive still recording cannot be deleted.
    case conflict
    case internalError
}

/// The `error` member of an error reply.
public struct SignalingError: Codable, Equatable, Sendable, Error {
    public var code: SignalingErrorCode
    public var message: String
    /// With `sessionOnOtherNode`: where to connect instead.
    public var location: String?

    public init(_ code: SignalingErrorCode, _ message: String, location: String? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }
}
