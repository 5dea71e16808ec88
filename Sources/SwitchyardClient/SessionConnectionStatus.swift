/// Where a session's connection to the server stands (the reference platform's
/// `sessionConnectionStatus`).
public enum SessionConnectionStatus: String, Equatable, Sendable {
    /// `Session.connect` has not finished.
    case connecting
    case connected
    /// The WebSocket dropped; the session is trying to take its connection back. Publishers and
    /// subscribers go on; the others in the session see nothing.
    case reconnecting
    /// The session ended: the client left, or the server ended it and said why.
    case disconnected
    /// The network dropped the session and it could not come back (reconnection off, refused, or
    /// out of time).
    case failed
}
