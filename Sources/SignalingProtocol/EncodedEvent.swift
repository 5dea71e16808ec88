/// An event encoded once for many connections: each connection's `seq` is spliced into the same
/// text, so a broadcast to thousands costs one JSON encoding rather than one per connection.
public struct EncodedEvent: Sendable {
    /// The text up to the last key, `v`, which sorts after `seq`.
    private let head: String
    private let tail: String

    public init(_ event: SessionEvent) {
        let text = String(decoding: ServerMessage.event(event).encoded(), as: UTF8.self)
        tail = "\"v\":\(SignalingProtocolVersion.current)}"
        precondition(text.hasSuffix(tail), "a server message's keys are sorted, and v is the last")
        head = String(text.dropLast(tail.utf8.count))
    }

    /// The event's text with `sequence` as its `seq`, as `ServerMessage.encoded(eventSequence:)` gives it.
    public func text(sequence: UInt64) -> String {
        head + "\"seq\":\(sequence)," + tail
    }

    /// The size of that text without its `seq`, which every connection that logs the event shares.
    public var sharedBytes: Int { head.utf8.count + tail.utf8.count }
}
