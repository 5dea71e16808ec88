import Foundation
import Signaling

/// One event as it is delivered: numbered in its session, its body rendered once, the same bytes
/// on every attempt.
public struct WebhookRecord: Equatable, Sendable {
    /// Unique, and the same on every retry and after another node takes it over.
    public var id: String
    /// The lane it is delivered in: its session's id, or "" for the node's own events.
    public var sessionKey: String
    /// 1 for a session's `sessionCreated`, then one more per event of that session.
    public var sequence: Int64
    /// Where the outbox put it among every event it holds: a session's events are delivered in
    /// this order, which holds across nodes even where `sequence` starts again (a drained
    /// session created anew on another node).
    public var order: Int64
    public var kind: SessionActivity.Kind
    /// When it happened, milliseconds since the Unix epoch.
    public var time: Int64
    /// The JSON body (docs/webhooks.md).
    public var body: [UInt8]

    public init(
        id: String, sessionKey: String, sequence: Int64, order: Int64 = 0, kind: SessionActivity.Kind, time: Int64, body: [UInt8]
    ) {
        self.id = id
        self.sessionKey = sessionKey
        self.sequence = sequence
        self.order = order
        self.kind = kind
        self.time = time
        self.body = body
    }

    /// Numbers and renders an activity.
    public init(_ activity: SessionActivity, id: String, sequence: Int64, order: Int64 = 0, nodeId: String?) {
        let envelope = WebhookEventEnvelope(
            id: id, seq: sequence, time: activity.time, event: activity.event.kind, sessionId: activity.sessionId,
            connectionId: activity.connectionId, nodeId: nodeId)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Both encode plain values; a failure would be a bug in their Codable conformances.
        var body = try! encoder.encode(envelope)
        let data = try! encoder.encode(activity.event)
        body.removeLast()
        body.append(contentsOf: Array(#","data":"#.utf8))
        body.append(data)
        body.append(UInt8(ascii: "}"))
        self.init(
            id: id, sessionKey: activity.sessionId ?? "", sequence: sequence, order: order, kind: activity.event.kind, time: activity.time,
            body: Array(body))
    }

    /// A new event id: `evt_` and 128 random bits.
    public static func makeId() -> String {
        SessionIdentifier.make(prefix: "evt_")
    }
}

/// Every field of a delivery's body but `data`.
struct WebhookEventEnvelope: Encodable {
    var id: String
    var seq: Int64
    var time: Int64
    var event: SessionActivity.Kind
    var sessionId: String?
    var connectionId: String?
    var nodeId: String?
}
