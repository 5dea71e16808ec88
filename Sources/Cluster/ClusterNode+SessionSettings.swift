import Foundation
import PostgresNIO
import Signaling
import SignalingProtocol

/// The settings of sessions made or changed through REST, kept in the database so that the node
/// that makes a session again after it moved makes it as it was (docs/cluster.md, "Session
/// settings").
extension ClusterNode {
    public func keep(_ settings: SessionSettings, ofSession sessionId: String) async throws(SignalingError) {
        let encoded = String(decoding: try! JSONEncoder().encode(settings), as: UTF8.self)
        _ = try await database("keeping the settings of session \(sessionId)") { [client, logger] in
            try await client.query(
                """
                INSERT INTO switchyard_session_settings (session_id, settings) VALUES (\(sessionId), \(encoded))
                ON CONFLICT (session_id) DO UPDATE SET settings = EXCLUDED.settings
                """, logger: logger)
        }
    }

    public func keptSettings(ofSession sessionId: String) async throws(SignalingError) -> SessionSettings? {
        let encoded = try await database("reading the settings of session \(sessionId)") { [client, logger] () async throws -> String? in
            let rows = try await client.query(
                "SELECT settings FROM switchyard_session_settings WHERE session_id = \(sessionId)", logger: logger
            ).decode(String.self)
            for try await settings in rows { return settings }
            return nil
        }
        guard let encoded else { return nil }
        do {
            return try JSONDecoder().decode(SessionSettings.self, from: Data(encoded.utf8))
        } catch {
            throw SignalingError(.internalError, "the cluster's database keeps settings of session \(sessionId) this node cannot read: \(error)")
        }
    }
}
