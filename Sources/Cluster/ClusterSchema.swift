import Logging
import PostgresNIO

/// The cluster's tables, created and migrated by the nodes themselves. Each migration runs once, in
/// order, inside a transaction that holds an advisory lock, so nodes starting together apply it once.
/// docs/cluster.md describes the tables.
enum ClusterSchema {
    /// Statements that take the schema from version `index` to `index + 1`.
    static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE switchyard_nodes (
                node_id text PRIMARY KEY,
                instance text NOT NULL,
                signaling_url text NOT NULL,
                internal_url text NOT NULL,
                state text NOT NULL CHECK (state IN ('active', 'draining')),
                started_at timestamptz NOT NULL,
                heartbeat_at timestamptz NOT NULL,
                max_sessions integer NOT NULL,
                sessions integer NOT NULL DEFAULT 0,
                connections integer NOT NULL DEFAULT 0,
                streams integer NOT NULL DEFAULT 0,
                subscribers integer NOT NULL DEFAULT 0,
                forwarded_packets_per_second double precision NOT NULL DEFAULT 0,
                cpu_cores double precision NOT NULL DEFAULT 0
            )
            """,
            """
            CREATE TABLE switchyard_sessions (
                session_id text PRIMARY KEY,
                node_id text NOT NULL REFERENCES switchyard_nodes (node_id) ON DELETE CASCADE,
                placed_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX switchyard_sessions_by_node ON switchyard_sessions (node_id)",
        ],
        // The webhook outbox (PostgresWebhookOutbox). Its rows name their node without a foreign
        // key: they must outlive a dead node's row until a live node has delivered them.
        [
            """
            CREATE TABLE switchyard_webhook_outbox (
                event_id text NOT NULL,
                endpoint text NOT NULL,
                node_id text NOT NULL,
                instance text NOT NULL,
                append_order bigint GENERATED ALWAYS AS IDENTITY,
                session_key text NOT NULL,
                sequence bigint NOT NULL,
                kind text NOT NULL,
                event_time_ms bigint NOT NULL,
                body bytea NOT NULL,
                created_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (event_id, endpoint)
            )
            """,
            "CREATE INDEX switchyard_webhook_outbox_by_node ON switchyard_webhook_outbox (node_id, instance)",
            "CREATE INDEX switchyard_webhook_outbox_by_session ON switchyard_webhook_outbox (session_key, append_order)",
            "CREATE TABLE switchyard_webhook_sequences (session_key text PRIMARY KEY, last_seq bigint NOT NULL)",
        ],
        // The archive list (PostgresArchiveCatalog). A row names the node that holds the files
        // without a foreign key: the archive outlives its node's row.
        [
            """
            CREATE TABLE switchyard_archives (
                archive_id text PRIMARY KEY,
                session_id text NOT NULL,
                node_id text NOT NULL,
                created_at_ms bigint NOT NULL,
                info text NOT NULL
            )
            """,
            "CREATE INDEX switchyard_archives_by_time ON switchyard_archives (created_at_ms DESC, archive_id DESC)",
            "CREATE INDEX switchyard_archives_by_session ON switchyard_archives (session_id)",
        ],
        // The settings of sessions made or changed through REST (ClusterNode+SessionSettings),
        // without a foreign key: they must outlive the placement, whose deletion (an ended node,
        // a drain, a reconciliation) a trigger notes, however it was deleted.
        [
            """
            CREATE TABLE switchyard_session_settings (
                session_id text PRIMARY KEY,
                settings text NOT NULL,
                unplaced_at timestamptz
            )
            """,
            "CREATE INDEX switchyard_session_settings_unplaced ON switchyard_session_settings (unplaced_at) WHERE unplaced_at IS NOT NULL",
            """
            CREATE FUNCTION switchyard_note_unplaced() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE switchyard_session_settings SET unplaced_at = now() WHERE session_id = OLD.session_id;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER switchyard_sessions_unplaced AFTER DELETE ON switchyard_sessions
            FOR EACH ROW EXECUTE FUNCTION switchyard_note_unplaced()
            """,
        ],
    ]

    static var currentVersion: Int { migrations.count }

    /// Brings the database to `currentVersion`; refuses a database a newer build migrated with
    /// `ClusterError.schemaTooNew` itself, not wrapped in the transaction's error.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        do {
            try await migrateInTransaction(client, logger: logger)
        } catch let error as PostgresTransactionError {
            if let refusal = error.closureError as? ClusterError { throw refusal }
            throw error
        }
    }

    private static func migrateInTransaction(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            // One node migrates at a time; the others wait here and then find nothing to do.
            try await connection.query("SELECT pg_advisory_xact_lock(7880001)", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS switchyard_schema_version (version integer NOT NULL)", logger: logger)
            var version = 0
            for try await found in try await connection.query("SELECT version FROM switchyard_schema_version", logger: logger).decode(Int.self) {
                version = found
            }
            if version > currentVersion { throw ClusterError.schemaTooNew(found: version, known: currentVersion) }
            guard version < currentVersion else { return }
            for migration in migrations[version...] {
                for statement in migration { try await connection.query(statement, logger: logger) }
            }
            try await connection.query("DELETE FROM switchyard_schema_version", logger: logger)
            try await connection.query("INSERT INTO switchyard_schema_version (version) VALUES (\(currentVersion))", logger: logger)
            logger.info("cluster schema migrated", metadata: ["from": "\(version)", "to": "\(currentVersion)"])
        }
    }
}
