@testable import Cluster
import Logging
import Testing

extension ClusterTests {
    /// A node of an older build refuses a database a newer build migrated, saying which versions
    /// (not the transaction wrapper's Swift dump), and leaves the database as it found it.
    @Test func aDatabaseWithANewerSchemaIsRefusedNamingBothVersions() async throws {
        let database = try PostgresServer.start()
        defer { database.stop() }
        let newer = ClusterSchema.currentVersion + 1
        _ = try database.query(
            "CREATE TABLE switchyard_schema_version (version integer NOT NULL); INSERT INTO switchyard_schema_version VALUES (\(newer))")
        let configuration = ClusterConfiguration(
            database: try DatabaseAddress(url: database.url), nodeId: "node-old", signalingURL: "ws://127.0.0.1:9/v1/ws",
            internalURL: "http://127.0.0.1:9", maxSessions: 10, databaseTimeout: .seconds(5))
        do {
            _ = try await ClusterNode(configuration: configuration, logger: Logger(label: "switchyard-test"))
            Issue.record("a node joined a cluster whose schema is newer than its build")
        } catch {
            #expect(error == .schemaTooNew(found: newer, known: ClusterSchema.currentVersion))
            #expect(
                error.description.contains("schema version \(newer) is newer than this build's \(ClusterSchema.currentVersion)"),
                "\(error.description)")
            #expect(!error.description.contains("Error("), "\(error.description)")
        }
        #expect(try database.query("SELECT version FROM switchyard_schema_version") == ["\(newer)"])
        #expect(try database.query("SELECT to_regclass('switchyard_nodes') IS NULL") == ["t"])
    }
}
