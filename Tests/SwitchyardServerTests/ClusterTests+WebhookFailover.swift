import Cluster
import Foundation
import SignalingProtocol
import Testing
import Webhooks

/// Webhooks across node processes: what node A had not delivered when it was killed or drained
/// reaches the app's backend from node B, in order per session, with the ids and bodies A gave it.
/// Node B (in this process) starts first so the tests can mint tokens, and A (a process of its own)
/// joins an empty cluster, so the sessions its clients ask it for stay there.
extension ClusterTests {
    @Test func aKilledNodesUndeliveredWebhookEventsAreDeliveredByAnotherNodeInOrderWithTheirIds() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([], otherwise: .status(503))
        let b = try await webhookNodeB(database, receiver)
        let a = try await webhookNodeA(database, receiver)
        defer { a.stop() }

        // Session "left" lives and ends on A; session "moving" has a client on A when A dies.
        var leaving: [WebSocketTestClient] = []
        for index in 1...2 {
            leaving.append(try await connect(to: a, "left", token: try await b.token(session: "left", role: .publisher, data: "\(index)")).0)
        }
        for client in leaving { await disconnect(client) }
        #expect(await eventually { (try? database.query("SELECT count(*) FROM switchyard_sessions")) == ["0"] })
        let (stayer, _) = try await connect(to: a, "moving", token: try await b.token(session: "moving", role: .publisher, data: "3"))
        #expect(try await eventually { try database.query("SELECT count(*) FROM switchyard_webhook_outbox WHERE node_id = 'node-a'") == ["8"] })
        #expect(await eventually { !receiver.attempts.isEmpty }, "node A never tried its receiver")
        let keptByA = try keptEvents(database)

        let killedAt = ContinuousClock.now
        a.kill()
        stayer.drop()
        let triedBefore = receiver.attempts
        receiver.script([], otherwise: .status(204))
        // The session continues on B once B counts A dead: its numbers continue there.
        let (mover, _) = try await connect(
            to: b, "moving", token: try await b.token(session: "moving", role: .publisher, data: "4"), retryingFor: .seconds(20))
        await disconnect(mover)

        try await receiver.wait(timeout: .seconds(30)) { _ in receiver.delivered.count >= 12 }
        let delivered = receiver.delivered
        let takeoverDelay = delivered[0].arrival - killedAt
        #expect(delivered.count == 12, "\(delivered.map { "\($0.sessionId ?? "-")/\($0.sequence)" })")
        #expect(delivered.allSatisfy { $0.signatureValid })
        let left = delivered.filter { $0.sessionId == "left" }
        #expect(left.map(\.sequence) == Array(1...6), "session left arrived as \(left.map(\.sequence))")
        #expect(left.map(\.event) == ["sessionCreated", "connectionCreated", "connectionCreated", "connectionDestroyed", "connectionDestroyed", "sessionDestroyed"])
        #expect(left.allSatisfy { $0.json["nodeId"] as? String == "node-a" })
        let moving = delivered.filter { $0.sessionId == "moving" }
        #expect(moving.map(\.sequence) == Array(1...6), "session moving arrived as \(moving.map(\.sequence))")
        #expect(moving.map { $0.json["nodeId"] as? String } == ["node-a", "node-a", "node-b", "node-b", "node-b", "node-b"])
        #expect(keptByA.allSatisfy { $0.nodeId == "node-a" })
        expectDeliveredAsKept(keptByA, delivered: delivered, triedBefore: triedBefore)
        expectNoEventDeliveredUnderTwoIds(receiver.attempts)

        let status = try await webhookStatus(of: b)
        #expect(status.outbox == "database")
        #expect(try await eventually { try await webhookStatus(of: b).endpoints[0].delivered == 12 })
        #expect(try await eventually { try database.query("SELECT count(*) FROM switchyard_webhook_outbox") == ["0"] })
        print("webhook takeover: kill -9 to the first of the dead node's events delivered by another node \(takeoverDelay) (node timeout 3 s, heartbeat 1 s)")
        try await b.stop()
    }

    /// Node A drains while the receiver is down: its flush delivers nothing, it leaves, and node B
    /// delivers what A kept (the session's events, its `sessionDestroyed` `nodeDraining` and the
    /// node's `nodeDraining`) before the session's events from B, where its numbers start again.
    @Test func aNodeThatDrainedWhileTheReceiverWasDownLeavesItsWebhookEventsToAnotherNode() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([], otherwise: .status(503))
        // B's lane for the session waits for A's events for two of B's node timeouts: A's drain and
        // flush (2.5 s, half its drain time) and B's next heartbeat must fit in that with room.
        let b = try await webhookNodeB(database, receiver, nodeTimeout: .seconds(5))
        let a = try await webhookNodeA(database, receiver)
        defer { a.stop() }
        let (member, _) = try await connect(to: a, "drained", token: try await b.token(session: "drained", role: .publisher, data: "1"))
        #expect(try await eventually { try database.query("SELECT count(*) FROM switchyard_webhook_outbox WHERE node_id = 'node-a'") == ["2"] })

        let terminatedAt = ContinuousClock.now
        let terminating = Task { await a.terminate(within: .seconds(30)) }
        guard case .sessionDisconnected(let told) = try await member.event(.sessionDisconnected, timeout: .seconds(10)) else { return }
        #expect(told.reason == .nodeDraining)
        await member.close()
        // The client comes back through B once A has ended the session there: a client quicker
        // than A's outbox could see its new sessionCreated numbered before A's sessionDestroyed.
        #expect(
            try await eventually {
                try database.query("SELECT count(*) FROM switchyard_webhook_outbox WHERE kind IN ('sessionDestroyed', 'nodeDraining')") == ["2"]
            })
        let (returner, _) = try await connect(
            to: b, "drained", token: try await b.token(session: "drained", role: .publisher, data: "2"), retryingFor: .seconds(10))
        #expect(await terminating.value == 0, "node A did not drain and exit by itself")
        let exitedAt = ContinuousClock.now
        let kept = try keptEvents(database)
        let triedBefore = receiver.attempts
        receiver.script([], otherwise: .status(204))
        await disconnect(returner)

        try await receiver.wait(timeout: .seconds(30)) { _ in receiver.delivered.count >= 8 }
        let delivered = receiver.delivered
        #expect(delivered.count == 8, "\(delivered.map { "\($0.sessionId ?? "-")/\($0.event)/\($0.sequence)" })")
        let session = delivered.filter { $0.sessionId == "drained" }
        #expect(
            session.map(\.event) == [
                "sessionCreated", "connectionCreated", "sessionDestroyed", "sessionCreated", "connectionCreated", "connectionDestroyed",
                "sessionDestroyed",
            ], "arrived as \(session.map { "\($0.event)/\($0.sequence)" })")
        #expect(session.map(\.sequence) == [1, 2, 3, 1, 2, 3, 4])
        #expect(session.map { $0.json["nodeId"] as? String } == ["node-a", "node-a", "node-a", "node-b", "node-b", "node-b", "node-b"])
        #expect((session[2].json["data"] as? [String: Any])?["reason"] as? String == "nodeDraining")
        let draining = delivered.filter { $0.event == "nodeDraining" }
        #expect(draining.count == 1 && draining.first?.sessionId == nil && draining.first?.json["nodeId"] as? String == "node-a")
        #expect(kept.map(\.nodeId).filter { $0 == "node-a" }.count == 4)
        expectDeliveredAsKept(kept, delivered: delivered, triedBefore: triedBefore)
        expectNoEventDeliveredUnderTwoIds(receiver.attempts)
        #expect(try await eventually { try database.query("SELECT count(*) FROM switchyard_webhook_outbox") == ["0"] })
        print(
            "webhook takeover after a drain: SIGTERM to exit \(exitedAt - terminatedAt) (half the 5 s drain time flushing), exit to the first"
                + " of its events delivered by another node \(delivered[0].arrival - exitedAt)")
        try await b.stop()
    }

    // MARK: - Helpers

    /// An undelivered event as the outbox holds it (one endpoint: one row per event).
    private struct KeptEvent {
        var id: String
        var sessionKey: String
        var nodeId: String
        var bodyHex: String
    }

    /// The outbox's rows, in the order they were appended; `nodeId` is the one the body names.
    private func keptEvents(_ database: PostgresServer) throws -> [KeptEvent] {
        try database.query("SELECT event_id, session_key, encode(body, 'hex') FROM switchyard_webhook_outbox ORDER BY append_order").map { row in
            let columns = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let body = try JSONSerialization.jsonObject(with: Data(hex: columns[2])) as? [String: Any]
            return KeptEvent(id: columns[0], sessionKey: columns[1], nodeId: body?["nodeId"] as? String ?? "", bodyHex: columns[2])
        }
    }

    /// Every kept event arrived, with the id and the very bytes its node gave it, each session's in
    /// the order they were kept; whatever was tried before (and refused) was one of them, unchanged.
    private func expectDeliveredAsKept(
        _ kept: [KeptEvent], delivered: [WebhookTestReceiver.Attempt], triedBefore: [WebhookTestReceiver.Attempt]
    ) {
        #expect(!kept.isEmpty)
        let deliveredById = Dictionary(delivered.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for event in kept {
            #expect(deliveredById[event.id]?.body.hex == event.bodyHex, "event \(event.id) kept by \(event.nodeId) arrived changed or not at all")
        }
        for sessionKey in Set(kept.map(\.sessionKey)) {
            let keptIds = kept.filter { $0.sessionKey == sessionKey }.map(\.id)
            #expect(delivered.map(\.id).filter(keptIds.contains) == keptIds, "session \(sessionKey)'s events arrived out of the order they were kept in")
        }
        #expect(!triedBefore.isEmpty)
        let keptBodies = Dictionary(kept.map { ($0.id, $0.bodyHex) }, uniquingKeysWith: { first, _ in first })
        for attempt in triedBefore {
            #expect(keptBodies[attempt.id] == attempt.body.hex, "\(attempt.id) was tried, and not kept as such")
        }
    }

    /// At least once, never as two events: an event that arrives again does so under its id.
    private func expectNoEventDeliveredUnderTwoIds(_ attempts: [WebhookTestReceiver.Attempt]) {
        let accepted = attempts.filter { (200..<300).contains($0.answered ?? 0) }
        let events = Set(accepted.map { "\($0.sessionId ?? "")/\($0.event)/\($0.sequence)/\($0.json["nodeId"] as? String ?? "")" })
        #expect(events.count == Set(accepted.map(\.id)).count, "one event arrived under two ids")
        #expect(accepted.count == Set(accepted.map(\.id)).count, "an event was delivered twice with nothing failed in between")
    }

    /// Node A, a daemon process of its own on 127.0.0.12, whose webhooks go to `receiver` as
    /// node B's do, under the same endpoint name (a node takes over only its own endpoints' events).
    private func webhookNodeA(_ database: PostgresServer, _ receiver: WebhookTestReceiver) async throws -> KillableNode {
        try await KillableNode.start(
            nodeId: "node-a", host: "127.0.0.12", mediaPorts: 47820...47859, database: database,
            webhooks: """
                {"endpoints": [{"name": "backend", "url": "\(receiver.url.absoluteString)", "secret": "\(receiver.secret)"}],
                 "retry": {"initialDelaySeconds": 0.1, "maxDelaySeconds": 0.5}}
                """)
    }

    /// Node B, in this process on 127.0.0.3, heartbeat 1 s.
    private func webhookNodeB(_ database: PostgresServer, _ receiver: WebhookTestReceiver, nodeTimeout: Duration = .seconds(3)) async throws -> DaemonHarness {
        try await ClusterFixture.startNode(1, database: database) { configuration in
            configuration.cluster?.nodeTimeout = nodeTimeout
            configuration.webhooks = WebhookConfiguration(
                endpoints: [WebhookEndpoint(name: "backend", url: receiver.url, secret: receiver.secret)],
                retry: WebhookRetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(500)))
        }
    }

    /// A client connected to `sessionId` at node A, which must serve it.
    private func connect(to node: KillableNode, _ sessionId: String, token: String) async throws -> (WebSocketTestClient, ConnectResult) {
        try await WebSocketTestClient.connected(port: node.port, host: node.host, sessionId: sessionId, token: token)
    }

    /// A client connected to `sessionId` at node B, asking again every 200 ms while B sends it to
    /// a node it does not count dead or gone yet.
    private func connect(
        to node: DaemonHarness, _ sessionId: String, token: String, retryingFor limit: Duration
    ) async throws -> (WebSocketTestClient, ConnectResult) {
        let deadline = ContinuousClock.now + limit
        while true {
            let client = try await WebSocketTestClient.open(port: node.port, host: node.configuration.host)
            let answer = try await client.send(.connect(ConnectParameters(sessionId: sessionId, token: token)))
            if case .reply(_, .connect(let result)) = answer { return (client, result) }
            await client.close()
            guard ContinuousClock.now < deadline else { throw WebSocketTestClient.Failure.timedOut("node \(node.configuration.host) to take session \(sessionId): \(answer)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    private func disconnect(_ client: WebSocketTestClient) async {
        _ = try? await client.call(.disconnect)
        await client.close()
    }

    private func webhookStatus(of node: DaemonHarness) async throws -> WebhookStatus {
        let (status, body) = try await node.http("GET", "/v1/webhooks/status", token: try await node.restToken())
        guard status == 200 else { throw ClusterFixtureFailure.status(status, String(decoding: body, as: UTF8.self)) }
        return try JSONDecoder().decode(WebhookStatus.self, from: body)
    }
}

extension Data {
    fileprivate init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }

    fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
