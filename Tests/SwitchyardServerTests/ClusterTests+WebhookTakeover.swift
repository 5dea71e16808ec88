@testable import Cluster
import Logging
import Signaling
import SignalingProtocol
import Testing
import Webhooks

extension ClusterTests {
    /// Two dispatchers on one database, as two nodes' daemons: the first keeps a session's events
    /// it could not deliver and dies; the session continues on the second, which numbers its events
    /// on and takes the dead node's over. The receiver gets them all once, in order, with their ids.
    @Test func aLiveNodesDispatcherDeliversADeadNodesWebhookEventsBeforeTheSessionsLaterOnes() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([], otherwise: .status(503))
        var logger = Logger(label: "switchyard-test")
        logger.logLevel = .warning
        func node(_ nodeId: String) async throws -> (ClusterNode, WebhookDispatcher, Task<Void, any Error>) {
            let configuration = ClusterConfiguration(
                database: try DatabaseAddress(url: database.url), nodeId: nodeId, signalingURL: "ws://127.0.0.1:9/v1/ws",
                internalURL: "http://127.0.0.1:9", maxSessions: 10, nodeTimeout: .seconds(30), databaseTimeout: .seconds(5))
            let node = try await ClusterNode(configuration: configuration, logger: logger)
            let webhooks = WebhookConfiguration(
                endpoints: [WebhookEndpoint(name: "backend", url: receiver.url, secret: receiver.secret)],
                retry: WebhookRetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(200)))
            let outbox = PostgresWebhookOutbox(node: node, endpoints: ["backend"], logger: logger, earlierNodesPollInterval: .milliseconds(100))
            let dispatcher = WebhookDispatcher(configuration: webhooks, outbox: outbox, logger: logger, flushTime: .zero)
            return (node, dispatcher, Task { try await dispatcher.run() })
        }
        func joined(_ index: Int) -> SessionActivity {
            SessionActivity(
                sessionId: "moving",
                event: .connectionCreated(ConnectionEvent(connection: ConnectionInfo(connectionId: "c_\(index)", creationTime: 1, data: ""))),
                time: 1_795_590_000_000)
        }

        let (dead, deadDispatcher, deadRun) = try await node("node-d")
        deadDispatcher.record(SessionActivity(sessionId: "moving", event: .sessionCreated(SessionCreation(origin: .connect)), time: 1_795_590_000_000))
        for index in 1...3 { deadDispatcher.record(joined(index)) }
        #expect(try await eventually { try database.query("SELECT count(*) FROM switchyard_webhook_outbox") == ["4"] })
        #expect(try await eventually { !receiver.attempts.isEmpty })
        // Killed: it delivers nothing more and settles nothing.
        deadRun.cancel()
        _ = try? await deadRun.value
        _ = try database.query("UPDATE switchyard_nodes SET heartbeat_at = now() - interval '1 hour' WHERE node_id = 'node-d'")
        let deadIds = Set(receiver.attempts.map(\.id))

        let (live, liveDispatcher, liveRun) = try await node("node-b")
        defer { liveRun.cancel() }
        // Its lane for the session starts, and waits for the dead node's events; the same wake
        // takes them over.
        for index in 4...5 { liveDispatcher.record(joined(index)) }
        #expect(try await eventually { try database.query("SELECT DISTINCT node_id FROM switchyard_webhook_outbox") == ["node-b"] })
        receiver.script([], otherwise: .status(204))

        try await receiver.wait { _ in receiver.delivered.count == 6 }
        let delivered = receiver.delivered
        #expect(delivered.map(\.sequence) == [1, 2, 3, 4, 5, 6], "arrived as \(delivered.map(\.sequence))")
        #expect(deadIds.isSubset(of: Set(delivered.prefix(4).map(\.id))), "the dead node's events came with new ids")
        #expect(delivered.allSatisfy { $0.signatureValid })
        #expect(try await eventually { try database.query("SELECT count(*) FROM switchyard_webhook_outbox") == ["0"] })
        await dead.leave()
        await live.leave()
    }
}
