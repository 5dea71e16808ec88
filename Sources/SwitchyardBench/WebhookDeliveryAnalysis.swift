/// What the receiver got against what the churn caused, over the bench's own sessions: which owed
/// events never came, which came out of their session's order or twice, and how late.
struct WebhookDeliveryAnalysis {
    /// Distinct events received (by id), and every POST, retries included.
    var eventsReceived = 0
    var deliveries = 0
    /// Owed events that did not arrive.
    var lost: [WebhookChurnLog.ExpectedEvent] = []
    /// Events of the bench's sessions it did not log: a connect that failed after the daemon
    /// created the connection, or a kind the churn does not cause.
    var unexpected = 0
    /// Distinct events whose `seq` was not their session's previous one + 1 (the first: 1), in
    /// arrival order.
    var outOfOrder = 0
    /// Extra arrivals of an id already received.
    var duplicates = 0
    /// Each event's first arrival minus its `time`, ascending.
    var latenciesMs: [Double] = []
    /// Distinct events by kind.
    var eventsByKind: [String: Int] = [:]

    init(expected: [WebhookChurnLog.ExpectedEvent], deliveries all: [WebhookReceiver.Delivery], sessions: Set<String>) {
        let deliveries = all.filter { $0.sessionId.map(sessions.contains) ?? false }
        self.deliveries = deliveries.count
        var seen = Set<String>()
        var lastSequence: [String: Int64] = [:]
        var received = Set<WebhookChurnLog.ExpectedEvent>()
        for delivery in deliveries {
            guard seen.insert(delivery.id).inserted else {
                duplicates += 1
                continue
            }
            let sessionId = delivery.sessionId ?? ""
            if delivery.sequence != lastSequence[sessionId, default: 0] + 1 { outOfOrder += 1 }
            lastSequence[sessionId] = delivery.sequence
            latenciesMs.append(delivery.arrivedAt - Double(delivery.time))
            eventsByKind[delivery.event, default: 0] += 1
            received.insert(WebhookChurnLog.ExpectedEvent(sessionId: sessionId, event: delivery.event, connectionId: delivery.connectionId))
        }
        eventsReceived = seen.count
        latenciesMs.sort()
        let owed = Set(expected)
        lost = expected.filter { !received.contains($0) }
        unexpected = received.subtracting(owed).count
    }

    /// Whether everything owed has come.
    static func allArrived(_ expected: [WebhookChurnLog.ExpectedEvent], in deliveries: [WebhookReceiver.Delivery]) -> Bool {
        let received = Set(
            deliveries.map { WebhookChurnLog.ExpectedEvent(sessionId: $0.sessionId ?? "", event: $0.event, connectionId: $0.connectionId) })
        return expected.allSatisfy(received.contains)
    }
}
