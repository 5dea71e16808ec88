import Foundation
import Logging
import PostgresNIO
import Signaling
import SignalingProtocol

/// The cluster's archive list in `switchyard_archives`: one row per archive, its description as
/// JSON, the node that holds its files (docs/cluster.md).
public final class PostgresArchiveCatalog: ArchiveCatalog {
    private let node: ClusterNode
    private let logger: Logger

    public init(node: ClusterNode, logger: Logger) {
        self.node = node
        self.logger = logger
    }

    public func save(_ archive: ArchiveInfo, nodeId: String) async throws(SignalingError) {
        let json = String(decoding: try Self.encode(archive), as: UTF8.self)
        let (client, logger) = (node.client, logger)
        try await run("keeping archive \(archive.id)") {
            try await client.query(
                """
                INSERT INTO switchyard_archives (archive_id, session_id, node_id, created_at_ms, info)
                VALUES (\(archive.id), \(archive.sessionId), \(nodeId), \(archive.createdAt), \(json))
                ON CONFLICT (archive_id) DO UPDATE SET node_id = EXCLUDED.node_id, info = EXCLUDED.info
                """, logger: logger)
        }
    }

    public func find(_ archiveId: String) async throws(SignalingError) -> CatalogedArchive? {
        let (client, logger) = (node.client, logger)
        let rows = try await run("reading archive \(archiveId)") { () async throws -> [(String, String)] in
            var found: [(String, String)] = []
            let result = try await client.query(
                "SELECT info, node_id FROM switchyard_archives WHERE archive_id = \(archiveId)", logger: logger
            ).decode((String, String).self)
            for try await row in result { found.append(row) }
            return found
        }
        guard let (json, nodeId) = rows.first else { return nil }
        return CatalogedArchive(archive: try Self.decode(json), nodeId: nodeId)
    }

    public func list(sessionId: String?, offset: Int, count: Int) async throws(SignalingError) -> ArchiveList {
        let (client, logger) = (node.client, logger)
        let (total, rows) = try await run("listing archives") { () async throws -> (Int, [String]) in
            var total = 0
            var rows: [String] = []
            let result = try await client.query(
                """
                SELECT info, count(*) OVER () FROM switchyard_archives
                WHERE \(sessionId == nil) OR session_id = \(sessionId ?? "")
                ORDER BY created_at_ms DESC, archive_id DESC OFFSET \(offset) LIMIT \(count)
                """, logger: logger
            ).decode((String, Int).self)
            for try await (json, all) in result {
                rows.append(json)
                total = all
            }
            if rows.isEmpty, offset > 0 {
                let counted = try await client.query(
                    "SELECT count(*) FROM switchyard_archives WHERE \(sessionId == nil) OR session_id = \(sessionId ?? "")",
                    logger: logger
                ).decode(Int.self)
                for try await all in counted { total = all }
            }
            return (total, rows)
        }
        var items: [ArchiveInfo] = []
        for json in rows { items.append(try Self.decode(json)) }
        return ArchiveList(count: total, items: items)
    }

    public func remove(_ archiveId: String) async throws(SignalingError) {
        let (client, logger) = (node.client, logger)
        try await run("forgetting archive \(archiveId)") {
            try await client.query("DELETE FROM switchyard_archives WHERE archive_id = \(archiveId)", logger: logger)
        }
    }

    private func run<Result: Sendable>(
        _ what: String, _ body: @escaping @Sendable () async throws -> Result
    ) async throws(SignalingError) -> Result {
        do {
            return try await ClusterNode.bounded(node.configuration.databaseTimeout, body)
        } catch {
            throw SignalingError(
                .unavailable,
                "the cluster's database did not answer \(what): \(ClusterNode.describe(error)); try again shortly")
        }
    }

    private static func encode(_ archive: ArchiveInfo) throws(SignalingError) -> Data {
        do {
            return try JSONEncoder().encode(archive)
        } catch {
            throw SignalingError(.internalError, "archive \(archive.id) could not be encoded: \(error)")
        }
    }

    private static func decode(_ json: String) throws(SignalingError) -> ArchiveInfo {
        do {
            return try JSONDecoder().decode(ArchiveInfo.self, from: Data(json.utf8))
        } catch {
            throw SignalingError(.internalError, "an archive row of the cluster's database does not decode: \(error)")
        }
    }
}
