import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Signaling
import SignalingProtocol
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// This node's membership of a cluster on PostgreSQL: it registers, heartbeats its liveness and
/// load, places sessions (a unique row per session: the first writer wins), forwards REST requests
/// to the node that holds their session, drains on shutdown, and clears what dead nodes left.
/// The database is the only shared state; no node talks to another except to forward a request.
public actor ClusterNode: SessionPlacement, Service {
    public nonisolated let configuration: ClusterConfiguration
    /// The database, shared with what else of this node keeps its state there (the webhook outbox).
    nonisolated let client: PostgresClient
    private let clientRun: Task<Void, Never>
    let logger: Logger
    /// The node's load and the sessions it holds, read at each heartbeat.
    private var loadSource: (@Sendable () async -> (NodeLoadSample, [String]))?
    /// Runs after each heartbeat the database took.
    private var heartbeatAction: (@Sendable () async -> Void)?
    /// Runs after each heartbeat the database took, with every other node's instance then.
    private var peersAction: (@Sendable ([String: String]) async -> Void)?
    /// Every other registered node's instance, as the last heartbeat read them.
    private var peerInstances: [String: String] = [:]
    /// Tells this process's registration from an earlier or later one under the same node id. Its
    /// database connections carry it as their `application_name`, so that a process started again
    /// under this node id can see that this one is gone (`register`).
    nonisolated let instance: String
    private var lastSample: (sample: NodeLoadSample, at: ContinuousClock.Instant)?
    /// When the database last took this node's heartbeat.
    private var lastHeartbeat: ContinuousClock.Instant?
    /// Set once the node has begun to drain (its shutdown and its cascading both ask).
    private var isDraining = false
    /// After this node could not reach the database for a while, the others' heartbeats in it are
    /// stale until their next beat, most likely because the database was away for them too: until
    /// `until`, a node that beat after `floor` (the database's clock, epoch seconds: a node timeout
    /// before this node's last beat before the gap) still counts as live, so none is taken for dead
    /// and has its sessions placed again for having shared this node's outage.
    private var outageGrace: (floor: Double, until: ContinuousClock.Instant)?
    private var metrics = ClusterMetrics()

    /// A session placed but not yet created (its client is on its way) is kept this long before the
    /// heartbeat's reconciliation deletes it.
    static let unclaimedPlacementLifetime: Duration = .seconds(30)
    /// A node dead for this many node timeouts is deleted with its placements.
    static let deadNodeRetention = 3
    /// The settings of a session no node holds are kept this long after its last placement went,
    /// for its clients to bring it back on another node with them.
    static let unplacedSettingsRetention: Duration = .seconds(86_400)

    /// Connects to the database, migrates its schema and registers this node; throws when the
    /// database cannot be reached within `databaseTimeout` or the node id is taken.
    public init(configuration: ClusterConfiguration, logger: Logger) async throws(ClusterError) {
        self.configuration = configuration
        self.logger = logger
        let instance = UUID().uuidString
        self.instance = instance
        let client = PostgresClient(
            configuration: configuration.database.clientConfiguration(
                connectTimeout: configuration.databaseTimeout, applicationName: Self.applicationName(of: instance)))
        self.client = client
        clientRun = Task { await client.run() }
        do {
            try await Self.bounded(configuration.databaseTimeout) {
                try await ClusterSchema.migrate(client, logger: logger)
            }
            try await register()
        } catch let error as ClusterError {
            clientRun.cancel()
            throw error
        } catch {
            clientRun.cancel()
            throw .databaseUnreachable(address: configuration.database.description, reason: Self.describe(error))
        }
        logger.info("joined the cluster", metadata: ["node": "\(configuration.nodeId)", "database": "\(configuration.database)"])
    }

    public nonisolated var nodeId: String { configuration.nodeId }

    /// How clients and the other nodes reach this node.
    public nonisolated var address: ClusterNodeAddress {
        ClusterNodeAddress(
            nodeId: configuration.nodeId, signalingURL: configuration.signalingURL, internalURL: configuration.internalURL, instance: instance)
    }

    /// The `application_name` of an instance's database connections.
    static func applicationName(of instance: String) -> String { "switchyard-\(instance)" }

    /// Where the heartbeat reads the node's load and the sessions it holds (the signaling server
    /// that needs this node exists only after it).
    public func reportLoad(_ source: @escaping @Sendable () async -> (NodeLoadSample, [String])) {
        loadSource = source
    }

    /// Runs `action` after each heartbeat the database took: the webhook dispatcher looks then for
    /// events that dead nodes left undelivered (`dispatcher.checkForTakenOverEvents()`).
    public func onHeartbeat(_ action: @escaping @Sendable () async -> Void) {
        heartbeatAction = action
    }

    /// Runs `action` after each heartbeat the database took, with every other registered node's
    /// instance (by node id): a node id seen under a new instance was started again, and what the
    /// earlier process held is gone with it (the cascading media control drops it at once).
    public func onPeerInstances(_ action: @escaping @Sendable ([String: String]) async -> Void) {
        peersAction = action
    }

    nonisolated var timeoutSeconds: Double { Self.seconds(configuration.nodeTimeout) }

    /// The outage grace's floor while it lasts (`LEAST` in the liveness tests ignores its NULL).
    var graceFloor: Double? {
        outageGrace.flatMap { ContinuousClock.now < $0.until ? $0.floor : nil }
    }

    // MARK: - Membership

    private func register() async throws {
        let c = configuration
        let rows = try await Self.bounded(c.databaseTimeout) { [client, instance, logger, timeoutSeconds] in
            try await client.query(
                """
                INSERT INTO switchyard_nodes (node_id, instance, signaling_url, internal_url, state, started_at, heartbeat_at, max_sessions)
                VALUES (\(c.nodeId), \(instance), \(c.signalingURL), \(c.internalURL), 'active', now(), now(), \(c.maxSessions))
                ON CONFLICT (node_id) DO UPDATE SET instance = EXCLUDED.instance, signaling_url = EXCLUDED.signaling_url,
                    internal_url = EXCLUDED.internal_url, state = 'active', started_at = now(), heartbeat_at = now(),
                    max_sessions = EXCLUDED.max_sessions
                WHERE switchyard_nodes.instance = EXCLUDED.instance
                    OR switchyard_nodes.heartbeat_at < now() - make_interval(secs => \(timeoutSeconds))
                    OR NOT EXISTS (
                        SELECT 1 FROM pg_stat_activity a WHERE a.application_name = \(Self.applicationName(of: ""))::text || switchyard_nodes.instance)
                RETURNING node_id
                """, logger: logger
            ).collect().count
        }
        guard rows == 1 else { throw ClusterError.nodeIdInUse(c.nodeId) }
        // Whatever an earlier run of this node left placed here ended with it.
        try await Self.bounded(c.databaseTimeout) { [client, instance, logger] in
            try await client.query(
                "DELETE FROM switchyard_sessions WHERE node_id = \(c.nodeId) AND placed_at < (SELECT started_at FROM switchyard_nodes WHERE instance = \(instance))",
                logger: logger)
        }
    }

    /// Heartbeats until graceful shutdown, then leaves the cluster (its row and placements go).
    public func run() async {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            if await heartbeat() {
                await peersAction?(peerInstances)
                await heartbeatAction?()
            }
            try? await cancelWhenGracefulShutdown { [configuration] in try await Task.sleep(for: configuration.heartbeatInterval) }
        }
        await leave()
    }

    /// Writes liveness and load, reconciles this node's placements with the sessions it holds, and
    /// deletes nodes dead for long and the settings of sessions no node has held for long. A failure
    /// is logged and the next beat tries again: the node keeps serving what it holds while the
    /// database is away. Returns whether the database took it.
    @discardableResult func heartbeat() async -> Bool {
        let now = ContinuousClock.now
        let (current, hosted) = await loadSource?() ?? (NodeLoadSample(sessions: 0, connections: 0, streams: 0, subscribers: 0, packetsForwarded: 0, cpuSeconds: 0), [])
        let elapsed = lastSample.map { Self.seconds($0.at.duration(to: now)) } ?? 0
        let packetRate = elapsed > 0 ? Double(current.packetsForwarded &- lastSample!.sample.packetsForwarded) / elapsed : 0
        let cpuCores = elapsed > 0 ? (current.cpuSeconds - lastSample!.sample.cpuSeconds) / elapsed : 0
        lastSample = (current, now)
        let c = configuration
        do {
            let (floor, peers) = try await Self.bounded(c.databaseTimeout) { [client, instance, logger, timeoutSeconds, graceFloor] in
                try await client.withTransaction(logger: logger) { connection -> (Double?, [String: String]) in
                    var previousBeat: (at: Double, age: Double)?
                    let rows = try await connection.query(
                        """
                        UPDATE switchyard_nodes n SET heartbeat_at = now(), sessions = \(current.sessions), connections = \(current.connections),
                            streams = \(current.streams), subscribers = \(current.subscribers),
                            forwarded_packets_per_second = \(packetRate), cpu_cores = \(cpuCores)
                        FROM (SELECT heartbeat_at FROM switchyard_nodes WHERE node_id = \(c.nodeId) AND instance = \(instance)) previous
                        WHERE n.node_id = \(c.nodeId) AND n.instance = \(instance)
                        RETURNING extract(epoch FROM previous.heartbeat_at)::float8, extract(epoch FROM now() - previous.heartbeat_at)::float8
                        """, logger: logger
                    ).decode((Double, Double).self)
                    for try await (at, age) in rows { previousBeat = (at, age) }
                    let floor = previousBeat.flatMap { $0.age > timeoutSeconds / 2 ? $0.at - timeoutSeconds : nil } ?? graceFloor
                    if previousBeat == nil {
                        // Deleted while the database could not hear from this node: join again.
                        try await connection.query(
                            """
                            INSERT INTO switchyard_nodes (node_id, instance, signaling_url, internal_url, state, started_at, heartbeat_at, max_sessions)
                            VALUES (\(c.nodeId), \(instance), \(c.signalingURL), \(c.internalURL), 'active', now(), now(), \(c.maxSessions))
                            ON CONFLICT (node_id) DO NOTHING
                            """, logger: logger)
                    }
                    // Placements of sessions that ended here without the database hearing of it, and
                    // of sessions this node holds that the database lost.
                    try await connection.query(
                        """
                        DELETE FROM switchyard_sessions WHERE node_id = \(c.nodeId) AND NOT (session_id = ANY(\(hosted)))
                            AND placed_at < now() - make_interval(secs => \(Self.seconds(Self.unclaimedPlacementLifetime)))
                        """, logger: logger)
                    try await connection.query(
                        """
                        INSERT INTO switchyard_sessions (session_id, node_id) SELECT unnest(\(hosted)::text[]), \(c.nodeId)
                        WHERE EXISTS (SELECT 1 FROM switchyard_nodes WHERE node_id = \(c.nodeId) AND instance = \(instance))
                        ON CONFLICT (session_id) DO NOTHING
                        """, logger: logger)
                    try await connection.query(
                        """
                        DELETE FROM switchyard_session_settings k
                        WHERE k.unplaced_at < now() - make_interval(secs => \(Self.seconds(Self.unplacedSettingsRetention)))
                            AND NOT EXISTS (SELECT 1 FROM switchyard_sessions s WHERE s.session_id = k.session_id)
                        """, logger: logger)
                    try await connection.query(
                        """
                        DELETE FROM switchyard_nodes
                        WHERE heartbeat_at < LEAST(now() - make_interval(secs => \(timeoutSeconds * Double(Self.deadNodeRetention))), to_timestamp(\(floor)))
                        """, logger: logger)
                    var peers: [String: String] = [:]
                    let peerRows = try await connection.query(
                        "SELECT node_id, instance FROM switchyard_nodes WHERE node_id <> \(c.nodeId)", logger: logger
                    ).decode((String, String).self)
                    for try await (node, instance) in peerRows { peers[node] = instance }
                    return (floor, peers)
                }
            }
            peerInstances = peers
            if let floor, floor != graceFloor { outageGrace = (floor, now + configuration.nodeTimeout) }
            metrics.heartbeats += 1
            lastHeartbeat = now
            return true
        } catch {
            metrics.heartbeatFailures += 1
            logger.warning("cluster heartbeat failed; serving what this node holds", metadata: ["error": "\(Self.describe(error))"])
            return false
        }
    }

    /// Marks this node draining (placement passes it by) and gives up its placements, so clients that
    /// connect again land on another node. Called before its clients are told to go.
    public func beginDrain() async {
        guard !isDraining else { return }
        isDraining = true
        let c = configuration
        do {
            try await Self.bounded(c.databaseTimeout) { [client, instance, logger] in
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.query(
                        "UPDATE switchyard_nodes SET state = 'draining' WHERE node_id = \(c.nodeId) AND instance = \(instance)", logger: logger)
                    try await connection.query("DELETE FROM switchyard_sessions WHERE node_id = \(c.nodeId)", logger: logger)
                }
            }
            logger.info("node draining", metadata: ["node": "\(c.nodeId)"])
        } catch {
            logger.error("could not mark this node draining", metadata: ["error": "\(Self.describe(error))"])
        }
    }

    /// Deletes this node's row (its placements go with it) and closes the database client.
    func leave() async {
        let c = configuration
        do {
            try await Self.bounded(c.databaseTimeout) { [client, instance, logger] in
                try await client.query("DELETE FROM switchyard_nodes WHERE node_id = \(c.nodeId) AND instance = \(instance)", logger: logger)
            }
            logger.info("left the cluster", metadata: ["node": "\(c.nodeId)"])
        } catch {
            logger.error("could not remove this node from the cluster; it will be deleted as dead", metadata: ["error": "\(Self.describe(error))"])
        }
        clientRun.cancel()
    }

    // MARK: - SessionPlacement

    public func place(sessionId: String) async throws(SignalingError) -> SessionLocation {
        // Once the database has been away, every node's liveness in it is stale until its next beat:
        // this node beats first, so it is a candidate the moment the database is back.
        if lastHeartbeat.map({ $0.duration(to: .now) > configuration.nodeTimeout / 2 }) ?? true, await !heartbeat() {
            metrics.databaseFailures += 1
            throw SignalingError(.unavailable, "the cluster's database did not answer this node's heartbeat; try again shortly")
        }
        // A node placing the same session at once wins the row: the next round reads it. Three
        // rounds cover a winner that drained or died in between.
        for _ in 0..<3 {
            if let location = try await locate(sessionId: sessionId) { return location }
            guard let target = try await leastLoadedNode() else {
                throw SignalingError(
                    .limitReached, "no node of the cluster takes new sessions: every live node is draining or holds its cluster.maxSessions")
            }
            let c = configuration
            let placed = try await database("placing session \(sessionId)") { [client, logger, timeoutSeconds, graceFloor] in
                try await client.query(
                    """
                    INSERT INTO switchyard_sessions (session_id, node_id) VALUES (\(sessionId), \(target.nodeId))
                    ON CONFLICT (session_id) DO UPDATE SET node_id = EXCLUDED.node_id, placed_at = now()
                    WHERE NOT EXISTS (
                        SELECT 1 FROM switchyard_nodes n WHERE n.node_id = switchyard_sessions.node_id AND n.state = 'active'
                            AND n.heartbeat_at >= LEAST(now() - make_interval(secs => \(timeoutSeconds)), to_timestamp(\(graceFloor))))
                    RETURNING node_id
                    """, logger: logger
                ).collect().count
            }
            if placed == 1 {
                metrics.placements += 1
                logger.info("session placed", metadata: ["session": "\(sessionId)", "node": "\(target.nodeId)", "by": "\(c.nodeId)"])
                return target.nodeId == c.nodeId ? .here : .node(target)
            }
        }
        throw SignalingError(.unavailable, "session \(sessionId) kept moving between nodes while it was placed; try again")
    }

    public func locate(sessionId: String) async throws(SignalingError) -> SessionLocation? {
        let c = configuration
        let found = try await database("looking up session \(sessionId)") { [client, logger, timeoutSeconds, graceFloor] () async throws -> (String, String, String, String)? in
            let rows = try await client.query(
                """
                SELECT n.node_id, n.signaling_url, n.internal_url, n.instance FROM switchyard_sessions s JOIN switchyard_nodes n USING (node_id)
                WHERE s.session_id = \(sessionId) AND n.state = 'active' AND n.heartbeat_at >= LEAST(now() - make_interval(secs => \(timeoutSeconds)), to_timestamp(\(graceFloor)))
                """, logger: logger
            ).decode((String, String, String, String).self)
            for try await row in rows { return row }
            return nil
        }
        guard let (nodeId, signalingURL, internalURL, instance) = found else { return nil }
        return nodeId == c.nodeId
            ? .here : .node(ClusterNodeAddress(nodeId: nodeId, signalingURL: signalingURL, internalURL: internalURL, instance: instance))
    }

    /// The live, active node with the fewest sessions below its limit; this node on a tie.
    private func leastLoadedNode() async throws(SignalingError) -> ClusterNodeAddress? {
        let c = configuration
        let found = try await database("choosing a node") { [client, logger, timeoutSeconds, graceFloor] () async throws -> (String, String, String, String)? in
            let rows = try await client.query(
                """
                SELECT n.node_id, n.signaling_url, n.internal_url, n.instance FROM switchyard_nodes n LEFT JOIN switchyard_sessions s USING (node_id)
                WHERE n.state = 'active' AND n.heartbeat_at >= LEAST(now() - make_interval(secs => \(timeoutSeconds)), to_timestamp(\(graceFloor)))
                GROUP BY n.node_id HAVING count(s.session_id) < n.max_sessions
                ORDER BY count(s.session_id), n.node_id = \(c.nodeId) DESC, n.node_id LIMIT 1
                """, logger: logger
            ).decode((String, String, String, String).self)
            for try await row in rows { return row }
            return nil
        }
        return found.map { ClusterNodeAddress(nodeId: $0.0, signalingURL: $0.1, internalURL: $0.2, instance: $0.3) }
    }

    /// The other live nodes: those that take new work (active) first, fewest subscribers first.
    /// As for a placement, a node whose own heartbeat lapsed (the database was away) beats first:
    /// until then every node's heartbeat in the database is as stale as its own, and an edge that
    /// read them would drop what it serves for origins that are alive.
    public func liveNodes() async throws(SignalingError) -> [(address: ClusterNodeAddress, active: Bool)] {
        if lastHeartbeat.map({ $0.duration(to: .now) > configuration.nodeTimeout / 2 }) ?? true, await !heartbeat() {
            metrics.databaseFailures += 1
            throw SignalingError(.unavailable, "the cluster's database did not answer this node's heartbeat; try again shortly")
        }
        let c = configuration
        return try await database("reading the live nodes") { [client, logger, timeoutSeconds, graceFloor] in
            var nodes: [(address: ClusterNodeAddress, active: Bool)] = []
            let rows = try await client.query(
                """
                SELECT node_id, signaling_url, internal_url, instance, state = 'active' FROM switchyard_nodes
                WHERE node_id <> \(c.nodeId) AND heartbeat_at >= LEAST(now() - make_interval(secs => \(timeoutSeconds)), to_timestamp(\(graceFloor)))
                ORDER BY state = 'active' DESC, subscribers, node_id
                """, logger: logger
            ).decode((String, String, String, String, Bool).self)
            for try await (nodeId, signalingURL, internalURL, instance, active) in rows {
                nodes.append((ClusterNodeAddress(nodeId: nodeId, signalingURL: signalingURL, internalURL: internalURL, instance: instance), active))
            }
            return nodes
        }
    }

    public func address(ofNode nodeId: String) async throws(SignalingError) -> ClusterNodeAddress? {
        try await liveNodes().first { $0.address.nodeId == nodeId }?.address
    }

    public func sessionEnded(sessionId: String) async {
        let c = configuration
        do {
            // Its kept settings go with the placement, unless another node holds the session now.
            _ = try await database("forgetting session \(sessionId)") { [client, logger] in
                try await client.query(
                    """
                    WITH ended AS (DELETE FROM switchyard_sessions WHERE session_id = \(sessionId) AND node_id = \(c.nodeId) RETURNING session_id)
                    DELETE FROM switchyard_session_settings WHERE session_id IN (SELECT session_id FROM ended)
                    """, logger: logger)
            }
        } catch {
            // The next heartbeat's reconciliation deletes it.
            logger.warning("could not remove an ended session's placement", metadata: ["session": "\(sessionId)", "error": "\(error.message)"])
        }
    }

    public func forward(_ request: ForwardedRequest, to node: ClusterNodeAddress) async throws(SignalingError) -> ForwardedResponse {
        guard let url = URL(string: node.internalURL + request.path) else {
            throw SignalingError(.internalError, "node \(node.nodeId) has an unusable internal URL \(node.internalURL)")
        }
        var outgoing = URLRequest(url: url, timeoutInterval: Self.seconds(configuration.databaseTimeout))
        outgoing.httpMethod = request.method
        outgoing.setValue(configuration.nodeId, forHTTPHeaderField: forwardedByHeader)
        if let authorization = request.authorization { outgoing.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let contentType = request.contentType { outgoing.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if !request.body.isEmpty { outgoing.httpBody = request.body }
        do {
            // The request's own timeout does not bound a peer that accepts and never answers.
            let (body, response) = try await Self.bounded(configuration.databaseTimeout) { [outgoing] in
                try await URLSession.shared.data(for: outgoing)
            }
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            metrics.forwardedRequests += 1
            let contentType = http.value(forHTTPHeaderField: "Content-Type")
            return ForwardedResponse(status: http.statusCode, headers: contentType.map { [("Content-Type", $0)] } ?? [], body: body)
        } catch {
            metrics.forwardingFailures += 1
            throw SignalingError(.unavailable, "node \(node.nodeId), which holds this session, did not answer: \(Self.describe(error))")
        }
    }

    public func overview() async throws(SignalingError) -> ClusterOverview {
        let nodes = try await database("reading the cluster's nodes") { [client, logger, timeoutSeconds, graceFloor] in
            var nodes: [ClusterNodeStatus] = []
            let rows = try await client.query(
                """
                SELECT n.node_id, n.signaling_url, n.internal_url, n.state,
                    n.heartbeat_at >= LEAST(now() - make_interval(secs => \(timeoutSeconds)), to_timestamp(\(graceFloor))),
                    (extract(epoch FROM now() - n.heartbeat_at) * 1000)::int8, (extract(epoch FROM n.started_at) * 1000)::int8,
                    n.max_sessions, n.sessions, n.connections, n.streams, n.subscribers, n.forwarded_packets_per_second, n.cpu_cores,
                    coalesce(array_agg(s.session_id ORDER BY s.session_id) FILTER (WHERE s.session_id IS NOT NULL), '{}')
                FROM switchyard_nodes n LEFT JOIN switchyard_sessions s USING (node_id) GROUP BY n.node_id ORDER BY n.node_id
                """, logger: logger)
            for try await row in rows {
                let columns = row.makeRandomAccess()
                nodes.append(
                    ClusterNodeStatus(
                        nodeId: try columns[0].decode(String.self), signalingURL: try columns[1].decode(String.self),
                        internalURL: try columns[2].decode(String.self), state: try columns[3].decode(String.self),
                        live: try columns[4].decode(Bool.self), heartbeatAgeMilliseconds: try columns[5].decode(Int64.self),
                        startedAt: try columns[6].decode(Int64.self), maxSessions: try columns[7].decode(Int.self),
                        load: NodeLoad(
                            sessions: try columns[8].decode(Int.self), connections: try columns[9].decode(Int.self),
                            streams: try columns[10].decode(Int.self), subscribers: try columns[11].decode(Int.self),
                            forwardedPacketsPerSecond: try columns[12].decode(Double.self), cpuCores: try columns[13].decode(Double.self)),
                        sessionIds: try columns[14].decode([String].self)))
            }
            return nodes
        }
        return ClusterOverview(nodeId: configuration.nodeId, nodes: nodes)
    }

    /// Counters of this node's cluster work, for `/metrics`.
    public var counters: ClusterMetrics { metrics }

    // MARK: - Database access

    /// Runs `work` against the database within `databaseTimeout`; a failure becomes `unavailable`,
    /// logged with its details.
    func database<T: Sendable>(_ what: String, _ work: @escaping @Sendable () async throws -> T) async throws(SignalingError) -> T {
        do {
            return try await Self.bounded(configuration.databaseTimeout, work)
        } catch {
            metrics.databaseFailures += 1
            logger.warning("cluster database request failed", metadata: ["request": "\(what)", "error": "\(Self.describe(error))"])
            throw SignalingError(.unavailable, "the cluster's database did not answer \(what); try again shortly")
        }
    }

    /// `work`, or `NoAnswerInTime` after `limit` (the pool waits for a connection as long as the
    /// database is away; the caller must not).
    @discardableResult static func bounded<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: limit)
                throw NoAnswerInTime(limit: limit)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    static func describe(_ error: any Error) -> String {
        if let timeout = error as? NoAnswerInTime { return "no answer within \(timeout.limit)" }
        if let error = error as? ClusterError { return error.description }
        // What went wrong inside a transaction, not the wrapper's Swift dump.
        if let error = error as? PostgresTransactionError {
            return [error.beginError, error.closureError, error.commitError, error.rollbackError].compactMap { $0 }.first.map(describe)
                ?? "a transaction failed"
        }
        if let error = error as? PSQLError {
            return [error.serverInfo?[.message], error.underlying.map { "\($0)" }].compactMap { $0 }.first ?? "\(error.code)"
        }
        return "\(error)"
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The database, or a node a request was forwarded to, did not answer in time.
struct NoAnswerInTime: Error {
    var limit: Duration
}
