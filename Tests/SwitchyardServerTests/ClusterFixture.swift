import Cluster
import Foundation
import SignalingProtocol
import SwitchyardClient
import SwitchyardServer
import Synchronization

/// A private PostgreSQL and daemons joined to it as a cluster, each on its own loopback address
/// (127.0.0.2, .3, ...), with heartbeats every second and nodes dead after three.
final class ClusterFixture: Sendable {
    let database: PostgresServer
    let nodes: [DaemonHarness]
    private let isStopped = Atomic<Bool>(false)

    /// - Parameter adjust: changes every node's configuration after the fixture's own settings.
    static func start(
        nodes count: Int, databaseTimeout: Duration = .seconds(5), adjust: (inout SwitchyardConfiguration) -> Void = { _ in }
    ) async throws -> ClusterFixture {
        let database = try PostgresServer.start()
        var nodes: [DaemonHarness] = []
        do {
            for index in 0..<count {
                nodes.append(try await startNode(index, database: database, databaseTimeout: databaseTimeout, adjust: adjust))
            }
        } catch {
            for node in nodes { try? await node.stop() }
            database.stop()
            throw error
        }
        let cluster = ClusterFixture(database: database, nodes: nodes)
        StartedProcesses.register { await cluster.stop() }
        return cluster
    }

    static func startNode(
        _ index: Int, database: PostgresServer, databaseTimeout: Duration = .seconds(5), adjust: (inout SwitchyardConfiguration) -> Void = { _ in }
    ) async throws -> DaemonHarness {
        let host = "127.0.0.\(index + 2)"
        let port = freeTCPPort(host: host)
        let address = try DatabaseAddress(url: database.url)
        return try await DaemonHarness.start { configuration in
            configuration.host = host
            configuration.port = port
            configuration.cluster = ClusterConfiguration(
                database: address, nodeId: nodeId(index), signalingURL: "ws://\(host):\(port)/v1/ws", internalURL: "http://\(host):\(port)",
                maxSessions: 100, heartbeatInterval: .seconds(1), nodeTimeout: .seconds(3), databaseTimeout: databaseTimeout)
            adjust(&configuration)
        }
    }

    static func nodeId(_ index: Int) -> String { "node-\(Character(UnicodeScalar(UInt8(97 + index))))" }

    private init(database: PostgresServer, nodes: [DaemonHarness]) {
        self.database = database
        self.nodes = nodes
    }

    /// Stops every node, then the database; later calls do nothing.
    func stop() async {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for node in nodes { try? await node.stop() }
        database.stop()
    }

    /// The cluster as node `index` reports it.
    func overview(from index: Int = 0) async throws -> ClusterOverview {
        let node = nodes[index]
        let (status, body) = try await node.http("GET", "/v1/cluster", token: try await node.restToken())
        guard status == 200 else { throw ClusterFixtureFailure.status(status, String(decoding: body, as: UTF8.self)) }
        return try JSONDecoder().decode(ClusterOverview.self, from: body)
    }

    /// The node that holds `sessionId` according to the database.
    func holder(of sessionId: String) throws -> String? {
        try database.query("SELECT node_id FROM switchyard_sessions WHERE session_id = '\(sessionId)'").first
    }
}

enum ClusterFixtureFailure: Error {
    case status(Int, String)
}

extension DaemonHarness {
    var webSocketURL: String { "ws://\(configuration.host):\(port)/v1/ws" }
}
