import SignalingProtocol

/// A connection's outgoing messages, in order. The WebSocket writer drains it; the directory and the
/// request handler fill it. Bounded: a client that stops reading is closed rather than allowed to
/// grow the server's memory.
public struct ClientOutbox: Sendable {
    public static let capacity = 4096

    public let messages: AsyncStream<ServerMessage>
    private let continuation: AsyncStream<ServerMessage>.Continuation

    public init() {
        (messages, continuation) = AsyncStream.makeStream(of: ServerMessage.self, bufferingPolicy: .bufferingOldest(Self.capacity))
    }

    public func send(_ message: ServerMessage) {
        if case .dropped = continuation.yield(message) {
            continuation.finish()
        }
    }

    public func send(_ event: SessionEvent) {
        send(.event(event))
    }

    /// Tells the client why, then ends the stream; the writer closes the WebSocket after it.
    public func close(_ reason: SessionDisconnectedReason, message: String) {
        send(.sessionDisconnected(SessionDisconnection(reason: reason, message: message)))
        continuation.finish()
    }

    /// Ends the stream without a word (the socket is already gone).
    public func finish() {
        continuation.finish()
    }
}
