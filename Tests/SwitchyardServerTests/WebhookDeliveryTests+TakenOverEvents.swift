import Foundation
import Logging
import Signaling
import SignalingProtocol
import Synchronization
import Testing
import Webhooks

extension WebhookDeliveryTests {
    /// A moved session's lane waits for its earlier node's events, and that wait ends when this
    /// node's takeover claims them; the claim is visible to the wait before the claimed events reach
    /// the queue. The lane must not send its own event in between, or it overtakes them.
    @Test func aLaneWhoseWaitEndsWithATakeoverUnderWaySendsTheTakenOverEventsFirst() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        var logger = Logger(label: "webhooks-test")
        logger.logLevel = .critical
        let outbox = ClaimUnderWayOutbox()
        let configuration = WebhookConfiguration(endpoints: [WebhookEndpoint(name: "backend", url: receiver.url, secret: receiver.secret)])
        let dispatcher = WebhookDispatcher(configuration: configuration, outbox: outbox, logger: logger, flushTime: .zero)
        let running = Task { try await dispatcher.run() }
        defer { running.cancel() }

        dispatcher.record(
            SessionActivity(
                sessionId: "moved",
                event: .connectionCreated(ConnectionEvent(connection: ConnectionInfo(connectionId: "c_2", creationTime: 1, data: ""))),
                time: Int64(Date().timeIntervalSince1970 * 1000)))
        try await outbox.laneStopsWaiting()
        // Time enough for a lane that went on at once to have sent its event; the claim ends only
        // then, so a correct dispatcher passes whatever the timing.
        try await Task.sleep(for: .milliseconds(300))
        outbox.finishClaim()
        try await receiver.wait { _ in receiver.delivered.count == 2 }
        #expect(receiver.delivered.map(\.id) == [ClaimUnderWayOutbox.takenOver.id, outbox.appendedIds.first])
    }
}

/// An outbox whose first takeover claims one earlier event of session "moved" and hands it over
/// only when the test says, while the lane's wait for earlier nodes ends as soon as the claim has
/// begun, as the database shows a committed claim before the claiming node has queued its events.
private final class ClaimUnderWayOutbox: WebhookOutbox {
    static let takenOver = WebhookRecord(
        SessionActivity(
            sessionId: "moved",
            event: .connectionCreated(ConnectionEvent(connection: ConnectionInfo(connectionId: "c_1", creationTime: 1, data: ""))),
            time: 1_795_590_000_000),
        id: "evt_taken_over", sequence: 1, order: 1, nodeId: "node-dead")

    private struct State {
        var claimStarted = false
        var claimFinished = false
        var laneStoppedWaiting = false
        var appendedIds: [String] = []
        var takenOnce = false
    }

    private let state = Mutex(State())

    var kind: String { "database" }

    var appendedIds: [String] { state.withLock { $0.appendedIds } }

    func append(_ events: [OutboxEntry]) async throws -> [WebhookRecord] {
        let records = events.enumerated().map { index, entry in
            WebhookRecord(entry.activity, id: WebhookRecord.makeId(), sequence: Int64(2 + index), order: Int64(100 + index), nodeId: "node-b")
        }
        state.withLock { $0.appendedIds += records.map(\.id) }
        return records
    }

    func settle(_ record: WebhookRecord, endpoint: String) async {}

    func waitForEarlierNodes(sessionKey: String, endpoint: String) async {
        while !state.withLock({ $0.claimStarted }) { try? await Task.sleep(for: .milliseconds(5)) }
        state.withLock { $0.laneStoppedWaiting = true }
    }

    func takeOver() async -> [(record: WebhookRecord, endpoint: String)] {
        guard state.withLock({ state in defer { state.takenOnce = true }; return !state.takenOnce }) else { return [] }
        state.withLock { $0.claimStarted = true }
        while !state.withLock({ $0.claimFinished }) { try? await Task.sleep(for: .milliseconds(5)) }
        return [(Self.takenOver, "backend")]
    }

    func laneStopsWaiting() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !state.withLock({ $0.laneStoppedWaiting }) {
            guard ContinuousClock.now < deadline else { throw WebSocketTestClient.Failure.timedOut("the lane to stop waiting") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func finishClaim() {
        state.withLock { $0.claimFinished = true }
    }
}
