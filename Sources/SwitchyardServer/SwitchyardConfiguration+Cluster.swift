import Cluster
import Foundation

extension SwitchyardConfiguration {
    /// Reads `cluster`: required `databaseURL` and `nodeId`; the URLs default to the server's own
    /// address, which must then be one others can reach (not 0.0.0.0).
    static func cluster(
        _ reader: inout ConfigurationReader, host: String, port: Int, usesTLS: Bool, maxSessions: Int
    ) throws(ConfigurationError) -> ClusterConfiguration {
        guard let url = try reader.optionalString("databaseURL") else {
            throw ConfigurationError(keyPath: reader.keyPath("databaseURL"), problem: "is required in cluster mode (postgres://user:password@host:5432/database)")
        }
        let database: DatabaseAddress
        do {
            database = try DatabaseAddress(url: url)
        } catch {
            guard case .invalidDatabaseURL(let problem) = error else { throw ConfigurationError(keyPath: reader.keyPath("databaseURL"), problem: "\(error)") }
            throw ConfigurationError(keyPath: reader.keyPath("databaseURL"), problem: problem)
        }
        guard let nodeId = try reader.optionalString("nodeId") else {
            throw ConfigurationError(keyPath: reader.keyPath("nodeId"), problem: "is required in cluster mode, unique among the nodes")
        }
        guard ClusterConfiguration.isValidNodeId(nodeId) else {
            throw ConfigurationError(keyPath: reader.keyPath("nodeId"), problem: "\"\(nodeId)\" must be 1-64 characters of A-Z a-z 0-9 - _")
        }
        let reachable = !["0.0.0.0", "::", ""].contains(host)
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let signalingURL = try nodeURL(
            &reader, "signalingURL", schemes: ["ws", "wss"],
            default: reachable ? "\(usesTLS ? "wss" : "ws")://\(authority)/v1/ws" : nil)
        let internalURL = try nodeURL(
            &reader, "internalURL", schemes: ["http", "https"], default: reachable ? "\(usesTLS ? "https" : "http")://\(authority)" : nil)
        let heartbeat = try reader.integer("heartbeatSeconds", default: 2, in: 1...60)
        let timeout = try reader.integer("nodeTimeoutSeconds", default: 10, in: 2...600)
        guard timeout >= 2 * heartbeat else {
            throw ConfigurationError(
                keyPath: reader.keyPath("nodeTimeoutSeconds"),
                problem: "\(timeout) must be at least twice cluster.heartbeatSeconds (\(heartbeat)), or one late heartbeat declares a node dead")
        }
        let configuration = ClusterConfiguration(
            database: database, nodeId: nodeId, signalingURL: signalingURL, internalURL: internalURL,
            maxSessions: try reader.integer("maxSessions", default: maxSessions, in: 1...maxSessions),
            heartbeatInterval: .seconds(heartbeat), nodeTimeout: .seconds(timeout),
            databaseTimeout: .seconds(try reader.integer("databaseTimeoutSeconds", default: 5, in: 1...60)),
            subscribersBeforeCascading: try reader.optionalInteger("subscribersBeforeCascading", in: 1...1_000_000))
        try reader.finish()
        return configuration
    }

    private static func nodeURL(
        _ reader: inout ConfigurationReader, _ key: String, schemes: [String], default fallback: String?
    ) throws(ConfigurationError) -> String {
        guard let text = try reader.optionalString(key) ?? fallback else {
            throw ConfigurationError(
                keyPath: reader.keyPath(key), problem: "is required when server.host listens on every address: the other nodes and clients need one to reach this node on")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme, schemes.contains(scheme),
            let host = components.host, !host.isEmpty
        else {
            throw ConfigurationError(keyPath: reader.keyPath(key), problem: "\"\(text)\" is not a \(schemes.joined(separator: ":// or "))://host:port URL")
        }
        return text.hasSuffix("/") && key == "internalURL" ? String(text.dropLast()) : text
    }
}
