import SignalingProtocol

/// Why a session call failed.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server refused the request; its code and message.
    case refused(code: SignalingErrorCode, message: String)
    /// No reply within the timeout.
    case timedOut(method: String)
    /// The WebSocket is closed (by the server, the network, or `disconnect`).
    case connectionClosed
    /// The session is reconnecting and the request is not one that waits for it.
    case reconnecting
    /// The WebSocket could not be opened.
    case unreachable(url: String, reason: String)
    /// The server answered with a result of another method.
    case unexpectedReply(method: String)
    /// The media side could not be set up.
    case media(String)
    /// In a cluster: the session is on another node, at `url`. `Session.connect` follows it by itself.
    case sessionOnOtherNode(url: String)

    public var description: String {
        switch self {
        case .refused(let code, let message): "refused (\(code.rawValue)): \(message)"
        case .timedOut(let method): "no reply to \(method) in time"
        case .connectionClosed: "the connection to the server is closed"
        case .reconnecting: "the session is reconnecting; only signals sent with retryAfterReconnect wait for it"
        case .unreachable(let url, let reason): "cannot open \(url): \(reason)"
        case .unexpectedReply(let method): "the server answered \(method) with another method's result"
        case .media(let reason): "media: \(reason)"
        case .sessionOnOtherNode(let url): "the session is served by another node, at \(url)"
        }
    }
}
