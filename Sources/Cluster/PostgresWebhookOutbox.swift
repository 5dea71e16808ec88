import Logging
import PostgresNIO
import Signaling
import Synchronization
import Webhooks

/// The webhook outbox of a node in a cluster: every event is a row per endpoint in
/// `switchyard_webhook_outbox` until that endpoint is done with it, owned by the node run (node id
/// and instance) that appended it, and numbered by a per-session counter in
/// `switchyard_webhook_sequences` that any node continues. When a node dies (or restarts under the
/// same id), a live node claims its rows and delivers them, ids unchanged (docs/cluster.md).
public final class PostgresWebhookOutbox: WebhookOutbox {
    private let node: ClusterNode
    private let endpoints: [String]
    private let logger: Logger
    private let earlierNodesPollInterval: Duration
    /// Deletions the database did not take, tried again before each takeover, so that an event
    /// delivered here is not delivered again by whoever takes this node's rows over. Only events
    /// already queued settle while the database is away (appending needs it), so this stays within
    /// the dispatcher's queue limit.
    private let unsettled = Mutex<[(eventId: String, endpoint: String)]>([])

    /// Serializes takeovers across the cluster, so two nodes never claim the same rows.
    static let takeoverLock: Int64 = 7_880_002

    /// - Parameters:
    ///   - node: the cluster membership whose database, node id and liveness rules it uses.
    ///   - endpoints: the names of this node's webhook endpoints; a dead node's events for other
    ///     endpoints are left to a node that has them.
    public init(node: ClusterNode, endpoints: [String], logger: Logger, earlierNodesPollInterval: Duration = .milliseconds(500)) {
        self.node = node
        self.endpoints = endpoints
        self.logger = logger
        self.earlierNodesPollInterval = earlierNodesPollInterval
    }

    public var kind: String { "database" }

    /// Numbers and keeps the events in one transaction, whatever their number: one statement
    /// numbers them all, one more inserts every row.
    public func append(_ events: [OutboxEntry]) async throws -> [WebhookRecord] {
        guard !events.isEmpty else { return [] }
        let plan = WebhookSequencePlan(events.map { ($0.activity.sessionId ?? "", $0.activity.event.kind == .sessionDestroyed) })
        let (client, logger, nodeId, instance) = (node.client, logger, node.nodeId, node.instance)
        return try await ClusterNode.bounded(node.configuration.databaseTimeout) {
            try await client.withTransaction(logger: logger) { connection in
                var lastStored: [String: Int64] = [:]
                let counters = try await connection.query(
                    """
                    INSERT INTO switchyard_webhook_sequences (session_key, last_seq)
                    SELECT * FROM unnest(\(plan.continuing.map(\.key))::text[], \(plan.continuing.map(\.count))::int8[])
                    ON CONFLICT (session_key) DO UPDATE SET last_seq = switchyard_webhook_sequences.last_seq + EXCLUDED.last_seq
                    RETURNING session_key, last_seq
                    """, logger: logger
                ).decode((String, Int64).self)
                for try await (key, last) in counters { lastStored[key] = last }
                if !plan.ended.isEmpty {
                    try await connection.query(
                        "DELETE FROM switchyard_webhook_sequences WHERE session_key = ANY(\(plan.ended))", logger: logger)
                }
                if !plan.restarted.isEmpty {
                    try await connection.query(
                        """
                        INSERT INTO switchyard_webhook_sequences (session_key, last_seq)
                        SELECT * FROM unnest(\(plan.restarted.map(\.key))::text[], \(plan.restarted.map(\.lastSequence))::int8[])
                        ON CONFLICT (session_key) DO UPDATE SET last_seq = EXCLUDED.last_seq
                        """, logger: logger)
                }
                var records = zip(events, plan.sequences(lastStored: lastStored)).map { entry, sequence in
                    WebhookRecord(entry.activity, id: WebhookRecord.makeId(), sequence: sequence, nodeId: nodeId)
                }
                var rows = OutboxRows()
                for (record, entry) in zip(records, events) {
                    for endpoint in entry.endpoints { rows.append(record, endpoint: endpoint) }
                }
                guard !rows.eventIds.isEmpty else { return records }
                // Rows go in in the events' order, so `append_order` follows it; an event's order is
                // its first row's, before every later event's rows whichever endpoint compares them.
                let orders = try await connection.query(
                    """
                    WITH inserted AS (
                        INSERT INTO switchyard_webhook_outbox
                            (event_id, endpoint, node_id, instance, session_key, sequence, kind, event_time_ms, body)
                        SELECT r.event_id, r.endpoint, \(nodeId), \(instance), r.session_key, r.sequence, r.kind, r.event_time_ms, r.body
                        FROM unnest(\(rows.eventIds)::text[], \(rows.endpoints)::text[], \(rows.sessionKeys)::text[],
                            \(rows.sequences)::int8[], \(rows.kinds)::text[], \(rows.times)::int8[], \(rows.bodies)::bytea[])
                            WITH ORDINALITY AS r(event_id, endpoint, session_key, sequence, kind, event_time_ms, body, n)
                        ORDER BY r.n
                        RETURNING event_id, append_order
                    )
                    SELECT event_id, min(append_order) FROM inserted GROUP BY event_id
                    """, logger: logger
                ).decode((String, Int64).self)
                var orderOf: [String: Int64] = [:]
                for try await (eventId, order) in orders { orderOf[eventId] = order }
                for index in records.indices { records[index].order = orderOf[records[index].id] ?? 0 }
                return records
            }
        }
    }

    public func settle(_ record: WebhookRecord, endpoint: String) async {
        do {
            try await delete([(record.id, endpoint)])
        } catch {
            unsettled.withLock { $0.append((record.id, endpoint)) }
            logger.warning(
                "could not remove a settled webhook event from the outbox; trying again at the next heartbeat",
                metadata: ["event": "\(record.id)", "endpoint": "\(endpoint)", "error": "\(ClusterNode.describe(error))"])
        }
    }

    /// Waits while another node run holds rows of this session for this endpoint that were appended
    /// before this node's first one: a dead node's events (until they are taken over and delivered),
    /// or a draining node's. Compared by append order rather than sequence, since a session destroyed
    /// on its old node and created here starts again at 1. The node's own events (key "") have no
    /// order across nodes. Gives up after two node timeouts, so an endpoint that never takes the
    /// other node's events cannot hold this one's forever.
    public func waitForEarlierNodes(sessionKey: String, endpoint: String) async {
        guard !sessionKey.isEmpty else { return }
        let limit = node.configuration.nodeTimeout * 2
        let deadline = ContinuousClock.now + limit
        var waited = false
        while !Task.isCancelled {
            // Unknown while the database is away: wait, within the same limit.
            let earlier = try? await earlierEventsElsewhere(sessionKey: sessionKey, endpoint: endpoint)
            if earlier == false {
                if waited {
                    logger.info(
                        "webhook events of a session that moved here follow its earlier node's",
                        metadata: ["session": "\(sessionKey)", "endpoint": "\(endpoint)"])
                }
                return
            }
            guard ContinuousClock.now < deadline else {
                logger.warning(
                    "webhook events of a session that moved here are delivered without waiting longer for its earlier node's",
                    metadata: ["session": "\(sessionKey)", "endpoint": "\(endpoint)", "waited": "\(limit)"])
                return
            }
            waited = true
            try? await Task.sleep(for: earlierNodesPollInterval)
        }
    }

    /// Claims the rows of node runs that are no longer live (no row in `switchyard_nodes` for that
    /// node id and instance whose heartbeat is fresh, by the same rule and outage grace as placement):
    /// dead nodes, and this node's own earlier run after a restart. Only what this node can deliver
    /// (its endpoints, event kinds it knows) and only while it is registered itself.
    public func takeOver() async -> [(record: WebhookRecord, endpoint: String)] {
        await settleAgain()
        let graceFloor = await node.graceFloor
        let (client, logger, nodeId, instance, timeoutSeconds, endpoints) =
            (node.client, logger, node.nodeId, node.instance, node.timeoutSeconds, endpoints)
        let kinds = SessionActivity.Kind.allCases.map(\.rawValue)
        do {
            return try await ClusterNode.bounded(node.configuration.databaseTimeout) {
                try await client.withTransaction(logger: logger) { connection in
                    // The next node's UPDATE starts after this one commits, so it sees these rows as
                    // a live node's.
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.takeoverLock))", logger: logger)
                    let rows = try await connection.query(
                        """
                        WITH claimed AS (
                            UPDATE switchyard_webhook_outbox o SET node_id = \(nodeId), instance = \(instance)
                            WHERE o.endpoint = ANY(\(endpoints)) AND o.kind = ANY(\(kinds))
                                AND NOT (o.node_id = \(nodeId) AND o.instance = \(instance))
                                AND NOT EXISTS (
                                    SELECT 1 FROM switchyard_nodes n WHERE n.node_id = o.node_id AND n.instance = o.instance
                                        AND n.heartbeat_at >= LEAST(now() - make_interval(secs => \(timeoutSeconds)), to_timestamp(\(graceFloor))))
                                AND EXISTS (SELECT 1 FROM switchyard_nodes WHERE node_id = \(nodeId) AND instance = \(instance))
                            RETURNING o.event_id, o.endpoint, o.session_key, o.sequence, o.kind, o.event_time_ms, o.body, o.append_order
                        )
                        SELECT event_id, endpoint, session_key, sequence, append_order, kind, event_time_ms, body FROM claimed
                        ORDER BY session_key, append_order, endpoint
                        """, logger: logger
                    ).decode((String, String, String, Int64, Int64, String, Int64, ByteBuffer).self)
                    var taken: [(record: WebhookRecord, endpoint: String)] = []
                    for try await (id, endpoint, sessionKey, sequence, order, kind, time, body) in rows {
                        // Known: the claim takes only kinds this build knows.
                        guard let kind = SessionActivity.Kind(rawValue: kind) else { continue }
                        let record = WebhookRecord(
                            id: id, sessionKey: sessionKey, sequence: sequence, order: order, kind: kind, time: time,
                            body: Array(body.readableBytesView))
                        taken.append((record, endpoint))
                    }
                    return taken
                }
            }
        } catch {
            logger.warning(
                "could not look for webhook events dead nodes left; looking again at the next heartbeat",
                metadata: ["error": "\(ClusterNode.describe(error))"])
            return []
        }
    }

    // MARK: - Database access

    private func delete(_ rows: [(eventId: String, endpoint: String)]) async throws {
        let (client, logger) = (node.client, logger)
        try await ClusterNode.bounded(node.configuration.databaseTimeout) {
            try await client.query(
                """
                DELETE FROM switchyard_webhook_outbox o USING unnest(\(rows.map(\.eventId))::text[], \(rows.map(\.endpoint))::text[]) AS d(event_id, endpoint)
                WHERE o.event_id = d.event_id AND o.endpoint = d.endpoint
                """, logger: logger)
        }
    }

    private func settleAgain() async {
        let pending = unsettled.withLock { pending in
            defer { pending = [] }
            return pending
        }
        guard !pending.isEmpty else { return }
        do {
            try await delete(pending)
        } catch {
            unsettled.withLock { $0.insert(contentsOf: pending, at: 0) }
        }
    }

    private func earlierEventsElsewhere(sessionKey: String, endpoint: String) async throws -> Bool {
        let (client, logger, nodeId, instance) = (node.client, logger, node.nodeId, node.instance)
        return try await ClusterNode.bounded(node.configuration.databaseTimeout) {
            let rows = try await client.query(
                """
                SELECT EXISTS (
                    SELECT 1 FROM switchyard_webhook_outbox o
                    WHERE o.session_key = \(sessionKey) AND o.endpoint = \(endpoint) AND NOT (o.node_id = \(nodeId) AND o.instance = \(instance))
                        AND o.append_order < (
                            SELECT min(append_order) FROM switchyard_webhook_outbox
                            WHERE session_key = \(sessionKey) AND endpoint = \(endpoint) AND node_id = \(nodeId) AND instance = \(instance)))
                """, logger: logger
            ).decode(Bool.self)
            for try await exists in rows { return exists }
            return false
        }
    }
}

/// The columns of a batch of outbox rows, as arrays for one `unnest` insert.
private struct OutboxRows {
    var eventIds: [String] = []
    var endpoints: [String] = []
    var sessionKeys: [String] = []
    var sequences: [Int64] = []
    var kinds: [String] = []
    var times: [Int64] = []
    var bodies: [ByteBuffer] = []

    mutating func append(_ record: WebhookRecord, endpoint: String) {
        eventIds.append(record.id)
        endpoints.append(endpoint)
        sessionKeys.append(record.sessionKey)
        sequences.append(record.sequence)
        kinds.append(record.kind.rawValue)
        times.append(record.time)
        bodies.append(ByteBuffer(bytes: record.body))
    }
}
