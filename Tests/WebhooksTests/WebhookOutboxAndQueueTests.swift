import Foundation
import Signaling
import SignalingProtocol
import Testing
@testable import Webhooks

@Suite struct WebhookOutboxAndQueueTests {
    private func activity(_ session: String?, _ event: SessionActivity.Event, time: Int64 = 1_000) -> SessionActivity {
        SessionActivity(sessionId: session, event: event, time: time)
    }

    private let created = SessionActivity.Event.sessionCreated(SessionCreation(origin: .connect))
    private let destroyed = SessionActivity.Event.sessionDestroyed(SessionDestruction(reason: .lastConnectionLeft))
    private func joined(_ id: String) -> SessionActivity.Event {
        .connectionCreated(ConnectionEvent(connection: ConnectionInfo(connectionId: id, creationTime: 5, data: "name=Ada")))
    }

    @Test func eachSessionIsNumberedFromOneAndAgainWhenItIsCreatedAnew() async {
        let outbox = MemoryWebhookOutbox()
        let records = await outbox.append(
            [
                activity("a", created), activity("b", created), activity("a", joined("c_1")), activity("a", destroyed),
                activity("a", created), activity(nil, .nodeDraining(NodeDraining(nodeId: "n1", sessions: 2))),
            ].map { OutboxEntry(activity: $0, endpoints: ["e"]) })
        #expect(records.map(\.sequence) == [1, 1, 2, 3, 1, 1])
        #expect(records.map(\.sessionKey) == ["a", "b", "a", "a", "a", ""])
        #expect(Set(records.map(\.id)).count == 6 && records.allSatisfy { $0.id.hasPrefix("evt_") })
    }

    @Test func theBodyIsTheEnvelopeWithTheProtocolsDataInside() throws {
        let record = WebhookRecord(
            SessionActivity(sessionId: "s", connectionId: "c_9", event: joined("c_1"), time: 1_764_000_000_123), id: "evt_x", sequence: 7,
            nodeId: "node-a")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(record.body)) as? [String: Any])
        #expect(json["id"] as? String == "evt_x")
        #expect(json["seq"] as? Int == 7)
        #expect(json["time"] as? Int64 == 1_764_000_000_123)
        #expect(json["event"] as? String == "connectionCreated")
        #expect(json["sessionId"] as? String == "s" && json["connectionId"] as? String == "c_9" && json["nodeId"] as? String == "node-a")
        let data = try JSONSerialization.data(withJSONObject: try #require(json["data"]))
        let decoded = try JSONDecoder().decode(ConnectionEvent.self, from: data)
        #expect(decoded == ConnectionEvent(connection: ConnectionInfo(connectionId: "c_1", creationTime: 5, data: "name=Ada")))
        #expect(record.kind == .connectionCreated && record.time == 1_764_000_000_123)
    }

    private func record(_ session: String, _ sequence: Int64, time: Int64 = 0) -> WebhookRecord {
        WebhookRecord(
            id: "evt_\(session)\(sequence)", sessionKey: session, sequence: sequence, order: sequence, kind: .connectionCreated, time: time, body: [])
    }

    @Test func aSessionsEventsGoOneAtATimeAndNoMoreSessionsThanTheConcurrencyAtOnce() {
        var queue = EndpointQueue(capacity: 10, concurrency: 2)
        for (session, sequence) in [("a", 1), ("a", 2), ("b", 1), ("c", 1), ("a", 3)] {
            let accepted = queue.enqueue(record(session, Int64(sequence)))
            #expect(accepted)
        }
        let first = queue.start()
        #expect(first == ["a", "b"], "the oldest lanes first, two at once")
        let none = queue.start()
        #expect(none.isEmpty)
        #expect(queue.head(of: "a")?.sequence == 1)
        queue.settleHead(of: "b")
        #expect(!queue.active.contains("b"))
        let freed = queue.start()
        #expect(freed == ["c"], "an emptied lane frees its place")
        queue.settleHead(of: "a")
        #expect(queue.head(of: "a")?.sequence == 2, "the lane goes on with its next event")
        #expect(queue.depth == 3)
    }

    @Test func theQueueRefusesPastItsCapacityAndTracksTheOldestEvent() {
        var queue = EndpointQueue(capacity: 2, concurrency: 1)
        let accepted = [queue.enqueue(record("a", 1, time: 50)), queue.enqueue(record("b", 1, time: 20)), queue.enqueue(record("a", 2))]
        #expect(accepted == [true, true, false])
        #expect(queue.oldestTime == 20)
    }

    @Test func anEventTakenOverFromADeadNodeGoesBeforeLaterOnesButNotBeforeOneAlreadySent() {
        var queue = EndpointQueue(capacity: 10, concurrency: 1)
        _ = queue.enqueue(record("a", 5))
        _ = queue.enqueue(record("a", 6))
        let started = queue.start()
        #expect(started == ["a"])
        _ = queue.enqueue(record("a", 3))
        let first = queue.beginSending("a")
        #expect(first?.sequence == 3, "a lane that waits for an earlier node has sent nothing yet: the older event goes first")
        _ = queue.enqueue(record("a", 2))
        #expect(queue.head(of: "a")?.sequence == 3, "the head already sent stays first")
        queue.settleHead(of: "a")
        let orderedAfter = [queue.beginSending("a")?.sequence, { queue.settleHead(of: "a"); return queue.beginSending("a")?.sequence }()]
        #expect(orderedAfter == [2, 5])
    }
}
