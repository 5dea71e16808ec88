@testable import Cluster
import Logging
import Signaling
import SignalingProtocol
import Testing
import Webhooks

/// The cluster's webhook outbox against a private PostgreSQL, with nodes whose heartbeats the tests
/// drive: a node is killed by ageing its heartbeat in the database, as a node that stopped beating.
extension ClusterTests {
    private func outboxNode(
        _ nodeId: String, _ database: PostgresServer, nodeTimeout: Duration = .seconds(30), endpoints: [String] = ["backend", "audit"]
    ) async throws -> (ClusterNode, PostgresWebhookOutbox) {
        let configuration = ClusterConfiguration(
            database: try DatabaseAddress(url: database.url), nodeId: nodeId, signalingURL: "ws://127.0.0.1:9/v1/ws",
            internalURL: "http://127.0.0.1:9", maxSessions: 10, nodeTimeout: nodeTimeout, databaseTimeout: .seconds(5))
        let logger = Logger(label: "switchyard-test")
        let node = try await ClusterNode(configuration: configuration, logger: logger)
        return (node, PostgresWebhookOutbox(node: node, endpoints: endpoints, logger: logger, earlierNodesPollInterval: .milliseconds(100)))
    }

    private func kill(_ nodeId: String, in database: PostgresServer) throws {
        _ = try database.query("UPDATE switchyard_nodes SET heartbeat_at = now() - interval '1 hour' WHERE node_id = '\(nodeId)'")
    }

    private func entry(_ session: String, _ event: SessionActivity.Event, endpoints: [String] = ["backend", "audit"]) -> OutboxEntry {
        OutboxEntry(activity: SessionActivity(sessionId: session, event: event, time: 1_795_590_000_000), endpoints: endpoints)
    }

    private func joined(_ index: Int) -> SessionActivity.Event {
        .connectionCreated(ConnectionEvent(connection: ConnectionInfo(connectionId: "c_\(index)", creationTime: 1, data: "\(index)")))
    }

    private static let created = SessionActivity.Event.sessionCreated(SessionCreation(origin: .connect))
    private static let destroyed = SessionActivity.Event.sessionDestroyed(SessionDestruction(reason: .lastConnectionLeft))

    /// `(session, sequence, endpoint)` of each taken-over row, to compare without caring who took it.
    private func keys(_ taken: [(record: WebhookRecord, endpoint: String)]) -> [String] {
        taken.map { "\($0.record.sessionKey)/\($0.record.sequence)/\($0.endpoint)" }
    }

    @Test func webhookSequencesContinueOnAnotherNodeAndStartAgainAfterTheSessionEnds() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let (a, outboxA) = try await outboxNode("node-a", database)
        let (b, outboxB) = try await outboxNode("node-b", database)

        let first = try await outboxA.append([entry("moving", Self.created), entry("moving", joined(1)), entry("other", Self.created)])
        #expect(first.map(\.sequence) == [1, 2, 1])
        // Each event's order is its first row's place in the table, so later events come after.
        #expect(
            first.map { "\($0.order)" }
                == (try first.map { try database.query("SELECT min(append_order) FROM switchyard_webhook_outbox WHERE event_id = '\($0.id)'")[0] }))
        #expect(first.map(\.order) == first.map(\.order).sorted() && Set(first.map(\.order)).count == 3)
        // The session moved to B; within one batch it ends and is created again under its id.
        let second = try await outboxB.append([
            entry("moving", joined(2)), entry("moving", Self.destroyed), entry("moving", Self.created), entry("moving", joined(3)),
            entry("other", Self.destroyed),
        ])
        #expect(second.map(\.sequence) == [3, 4, 1, 2, 2])
        #expect(second.map(\.order).allSatisfy { $0 > first.map(\.order).max()! })
        #expect(try database.query("SELECT session_key, last_seq FROM switchyard_webhook_sequences ORDER BY 1") == ["moving|2"])
        let third = try await outboxA.append([entry("moving", joined(4)), entry("other", Self.created)])
        #expect(third.map(\.sequence) == [3, 1])
        #expect(String(decoding: third[0].body, as: UTF8.self).contains(#""seq":3"#))

        // One row per endpoint named, owned by the node that appended it.
        let onlyBackend = try await outboxA.append([entry("solo", Self.created, endpoints: ["backend"])])
        #expect(
            try database.query("SELECT node_id, count(*) FROM switchyard_webhook_outbox GROUP BY node_id ORDER BY 1")
                == ["node-a|11", "node-b|10"])
        #expect(try database.query("SELECT endpoint FROM switchyard_webhook_outbox WHERE event_id = '\(onlyBackend[0].id)'") == ["backend"])

        // Two nodes appending to one session at once never share a number nor skip one.
        async let fromA = (0..<10).asyncMap { batch in try await outboxA.append((0..<5).map { self.entry("busy", self.joined(batch * 5 + $0)) }) }
        async let fromB = (0..<10).asyncMap { batch in try await outboxB.append((0..<5).map { self.entry("busy", self.joined(100 + batch * 5 + $0)) }) }
        let (batchesA, batchesB) = try await (fromA, fromB)
        let sequences = (batchesA + batchesB).flatMap { $0.map(\.sequence) }
        #expect(sequences.sorted() == Array(1...100))
        await a.leave()
        await b.leave()
    }

    @Test func aDeadNodesWebhookEventsAreTakenOverOnceInOrderWithTheirIds() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let (dead, outboxD) = try await outboxNode("node-d", database)
        let (a, outboxA) = try await outboxNode("node-a", database)
        let (b, outboxB) = try await outboxNode("node-b", database)
        var appended = try await outboxD.append([entry("s1", Self.created), entry("s1", joined(1)), entry("s2", Self.created)])
        appended += try await outboxD.append([entry("s1", joined(2)), entry("s2", joined(3))])
        // What no node here can deliver: an endpoint they lack, a kind a newer build made.
        _ = try database.query(
            """
            INSERT INTO switchyard_webhook_outbox (event_id, endpoint, node_id, instance, session_key, sequence, kind, event_time_ms, body)
            VALUES ('evt_elsewhere', 'crm', 'node-d', '\(dead.instance)', 's3', 1, 'sessionCreated', 0, '\\x7b7d'),
                ('evt_newer', 'backend', 'node-d', '\(dead.instance)', 's3', 2, 'archiveAvailable', 0, '\\x7b7d')
            """)

        #expect(await outboxA.takeOver().isEmpty, "a live node's events were taken")
        try kill("node-d", in: database)
        async let byA = outboxA.takeOver()
        async let byB = outboxB.takeOver()
        let (takenByA, takenByB) = await (byA, byB)

        #expect(Set(keys(takenByA)).isDisjoint(with: keys(takenByB)), "both nodes took \(keys(takenByA)) and \(keys(takenByB))")
        let expected = appended.flatMap { record in ["backend", "audit"].map { (record: record, endpoint: $0) } }
        #expect(Set(keys(takenByA + takenByB)) == Set(keys(expected)))
        #expect((takenByA + takenByB).count == expected.count)
        for taken in [takenByA, takenByB] {
            // In order per session and endpoint, the same records: ids, numbers and bodies.
            for endpoint in ["backend", "audit"] {
                let lanes = taken.filter { $0.endpoint == endpoint }.map(\.record)
                #expect(lanes.map(\.sessionKey) == lanes.map(\.sessionKey).sorted())
                for session in ["s1", "s2"] {
                    let lane = lanes.filter { $0.sessionKey == session }
                    #expect(lane.map(\.sequence) == lane.map(\.sequence).sorted())
                    #expect(lane.map(\.order) == lane.map(\.order).sorted())
                }
                for record in lanes {
                    // Its order is its own row's, which follows the event's first row.
                    let original = appended.first { $0.id == record.id }
                    #expect(record.order >= original?.order ?? .max)
                    var unordered = record
                    unordered.order = original?.order ?? 0
                    #expect(unordered == original, "\(record.id) came back changed")
                }
            }
        }
        let taker = takenByA.isEmpty ? "node-b" : "node-a"
        #expect(
            try database.query("SELECT DISTINCT node_id FROM switchyard_webhook_outbox WHERE kind <> 'archiveAvailable' AND endpoint <> 'crm'")
                == [taker])
        #expect(await outboxA.takeOver().isEmpty)
        #expect(await outboxB.takeOver().isEmpty)
        #expect(
            try database.query("SELECT event_id FROM switchyard_webhook_outbox WHERE node_id = 'node-d' ORDER BY 1") == ["evt_elsewhere", "evt_newer"],
            "what the live nodes cannot deliver waits for a node that can")
        await dead.leave()
        await a.leave()
        await b.leave()
    }

    /// A node killed and started again under its id (a new instance) delivers what its earlier run
    /// left, and its sessions' numbers continue.
    @Test func aNodeStartedAgainUnderItsIdTakesOverWhatItsEarlierRunLeft() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let (earlier, earlierOutbox) = try await outboxNode("node-a", database)
        let left = try await earlierOutbox.append([entry("s1", Self.created), entry("s1", joined(1))])
        try kill("node-a", in: database)
        let (again, outbox) = try await outboxNode("node-a", database)
        #expect(again.instance != earlier.instance)

        let taken = await outbox.takeOver()
        #expect(taken.map(\.record.id) == [left[0].id, left[0].id, left[1].id, left[1].id])
        #expect(taken.map(\.endpoint) == ["backend", "audit", "backend", "audit"])
        #expect(await outbox.takeOver().isEmpty)
        #expect(try await outbox.append([entry("s1", joined(2))]).map(\.sequence) == [3])
        #expect(await earlierOutbox.takeOver().isEmpty, "the earlier run, no longer registered, took its rows back")
        await earlier.leave()
        await again.leave()
    }

    @Test func settlingAWebhookEventDeletesOnlyThatEndpointsRow() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let (node, outbox) = try await outboxNode("node-a", database)
        let records = try await outbox.append([entry("s1", Self.created), entry("s1", joined(1))])
        await outbox.settle(records[0], endpoint: "backend")
        #expect(
            try database.query("SELECT event_id, endpoint FROM switchyard_webhook_outbox ORDER BY append_order")
                == ["\(records[0].id)|audit", "\(records[1].id)|backend", "\(records[1].id)|audit"])
        await outbox.settle(records[0], endpoint: "audit")
        await outbox.settle(records[0], endpoint: "audit")
        #expect(try database.query("SELECT count(*) FROM switchyard_webhook_outbox WHERE event_id = '\(records[0].id)'") == ["0"])
        #expect(try database.query("SELECT count(*) FROM switchyard_webhook_outbox") == ["2"])
        await node.leave()
    }

    /// A session that moved here waits, per endpoint, for what its earlier node had not delivered:
    /// after a node died (numbers continue) and after a drain (the session ended there and its
    /// numbers start again here). The node holding the earlier events never waits for the later.
    @Test func aSessionThatMovedWaitsPerEndpointForItsEarlierNodesWebhookEvents() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let (dead, outboxD) = try await outboxNode("node-d", database)
        let (draining, outboxE) = try await outboxNode("node-e", database)
        let (a, outboxA) = try await outboxNode("node-a", database)
        let (b, outboxB) = try await outboxNode("node-b", database)
        _ = try await outboxD.append([entry("died", Self.created), entry("died", joined(1))])
        let drained = try await outboxE.append([entry("drained", Self.created), entry("drained", Self.destroyed)])
        try kill("node-d", in: database)
        let inherited = await outboxA.takeOver()
        #expect(inherited.count == 4)
        #expect(try await outboxB.append([entry("died", joined(2)), entry("drained", Self.created)]).map(\.sequence) == [3, 1])

        let start = ContinuousClock.now
        await outboxA.waitForEarlierNodes(sessionKey: "died", endpoint: "backend")
        await outboxE.waitForEarlierNodes(sessionKey: "drained", endpoint: "backend")
        await outboxB.waitForEarlierNodes(sessionKey: "", endpoint: "backend")
        #expect(ContinuousClock.now - start < .seconds(5), "a node that holds the earliest events waited")

        let returned = Arrivals()
        let waits = ["died/backend", "died/audit", "drained/backend"].map { lane in
            Task {
                let parts = lane.split(separator: "/").map(String.init)
                await outboxB.waitForEarlierNodes(sessionKey: parts[0], endpoint: parts[1])
                await returned.add(lane)
            }
        }
        for (record, endpoint) in inherited where endpoint == "backend" { await outboxA.settle(record, endpoint: endpoint) }
        await waits[0].value
        #expect(await returned.items == ["died/backend"], "the audit lane or the drained session went before their earlier events")
        for (record, endpoint) in inherited where endpoint == "audit" { await outboxA.settle(record, endpoint: endpoint) }
        await waits[1].value
        for record in drained { await outboxE.settle(record, endpoint: "backend") }
        await waits[2].value
        #expect(await returned.items == ["died/backend", "died/audit", "drained/backend"])

        // Events nobody delivers hold a moved session for at most two node timeouts.
        let (c, outboxC) = try await outboxNode("node-c", database, nodeTimeout: .seconds(1))
        _ = try await outboxC.append([entry("drained", joined(3))])
        let waitStart = ContinuousClock.now
        await outboxC.waitForEarlierNodes(sessionKey: "drained", endpoint: "audit")
        let waited = ContinuousClock.now - waitStart
        #expect(waited >= .seconds(2) && waited < .seconds(10), "waited \(waited)")
        for node in [dead, draining, a, b, c] { await node.leave() }
    }

    /// What the daemon wires to `WebhookDispatcher.checkForTakenOverEvents()`: it runs after each
    /// heartbeat, and once the database is away, no more.
    @Test func aNodeRunsItsHeartbeatActionAfterEachHeartbeatTheDatabaseTook() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let configuration = ClusterConfiguration(
            database: try DatabaseAddress(url: database.url), nodeId: "node-a", signalingURL: "ws://127.0.0.1:9/v1/ws",
            internalURL: "http://127.0.0.1:9", maxSessions: 10, heartbeatInterval: .milliseconds(100), nodeTimeout: .seconds(1),
            databaseTimeout: .milliseconds(500))
        let node = try await ClusterNode(configuration: configuration, logger: Logger(label: "switchyard-test"))
        let beats = Arrivals()
        await node.onHeartbeat { await beats.add("beat") }
        let running = Task { await node.run() }
        defer { running.cancel() }
        #expect(try await eventually(.seconds(5)) { await beats.items.count >= 3 })
        try database.pause()
        // The beat under way when the database stopped may still have been taken.
        try await Task.sleep(for: .seconds(1))
        let whileAway = await beats.items.count
        try await Task.sleep(for: .seconds(1))
        #expect(await beats.items.count == whileAway, "the action ran after heartbeats the database did not take")
    }
}

/// What arrived, in the order it did.
private actor Arrivals {
    private(set) var items: [String] = []

    func add(_ item: String) { items.append(item) }
}

extension Sequence {
    /// `transform` of each element, one after the other.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
