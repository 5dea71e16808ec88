@testable import Cluster
import Logging
import Signaling
import Testing

extension ClusterTests {
    /// A node on `database` with a 1 s node timeout whose heartbeats come from its placements alone
    /// (no heartbeat loop), so it lapses as in a database outage.
    static func lapsingNode(_ nodeId: String, database: PostgresServer) async throws -> ClusterNode {
        let configuration = ClusterConfiguration(
            database: try DatabaseAddress(url: database.url), nodeId: nodeId, signalingURL: "ws://127.0.0.1:9/v1/ws",
            internalURL: "http://127.0.0.1:9", maxSessions: 10, heartbeatInterval: .milliseconds(200), nodeTimeout: .seconds(1),
            databaseTimeout: .seconds(2))
        return try await ClusterNode(configuration: configuration, logger: Logger(label: "switchyard-test"))
    }

    /// Two nodes whose heartbeats are driven by their placements alone (no heartbeat loop), so both
    /// lapse exactly as in a database outage. A node back first must not take the session of a node
    /// that lapsed with it; once its grace has passed, a node that never beat again is dead.
    @Test func aNodeBackFromADatabaseOutageLeavesItsPeersSessionsAloneUntilTheyHadTimeToBeat() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let a = try await Self.lapsingNode("node-a", database: database)
        let b = try await Self.lapsingNode("node-b", database: database)
        #expect(try await a.place(sessionId: "held") == .here)

        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await b.place(sessionId: "held") == .node(a.address), "node B took node A's session while A could not have beaten yet")

        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await b.place(sessionId: "held") == .here, "node A, silent for longer than B's grace, still held its session")
        #expect(try database.query("SELECT node_id FROM switchyard_sessions WHERE session_id = 'held'") == ["node-b"])
        await a.leave()
        await b.leave()
    }

    /// The live nodes as an edge reads them to drop what it serves for dead origins: right after a
    /// database outage longer than the node timeout, every heartbeat in it is stale, this node's too.
    /// It must beat first and count as live the nodes that were live when it last reached the
    /// database, or it drops the relay routes of live origins and their cascaded subscribers go
    /// dark without a word (the chaos run found it: PostgreSQL away for 10 s, node timeout 8 s).
    @Test func liveNodesAfterADatabaseOutageCountThePeersThatHadNoChanceToBeat() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let a = try await Self.lapsingNode("node-a", database: database)
        let b = try await Self.lapsingNode("node-b", database: database)
        #expect(try await a.liveNodes().map(\.address.nodeId) == ["node-b"])

        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await a.liveNodes().map(\.address.nodeId) == ["node-b"], "node B counted dead while A's own heartbeat was as stale")

        try await Task.sleep(for: .milliseconds(1500))
        #expect(try await a.liveNodes().isEmpty, "node B, silent for longer than A's grace, still counted live")
        await a.leave()
        await b.leave()
    }

    /// A placement refused because the database did not take this node's heartbeat is a request
    /// refused with `unavailable` for want of the database: it counts in
    /// `switchyard_cluster_database_failures_total`, as well as the heartbeat in its own counter.
    @Test func aPlacementRefusedForAnUnansweredHeartbeatCountsAsADatabaseFailure() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let configuration = ClusterConfiguration(
            database: try DatabaseAddress(url: database.url), nodeId: "node-a", signalingURL: "ws://127.0.0.1:9/v1/ws",
            internalURL: "http://127.0.0.1:9", maxSessions: 10, nodeTimeout: .seconds(1), databaseTimeout: .seconds(1))
        let node = try await ClusterNode(configuration: configuration, logger: Logger(label: "switchyard-test"))
        try database.pause()
        do {
            _ = try await node.place(sessionId: "unplaced")
            Issue.record("a session was placed without the database")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("did not answer this node's heartbeat"), "\(error.message)")
        }
        let counters = await node.counters
        #expect(counters.heartbeatFailures == 1)
        #expect(counters.databaseFailures == 1)
        await node.leave()
    }
}
