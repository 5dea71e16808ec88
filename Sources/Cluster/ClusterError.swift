/// Why a node could not join or serve its cluster.
public enum ClusterError: Error, Equatable, CustomStringConvertible {
    case invalidDatabaseURL(String)
    /// The database did not answer, or refused, while the node started.
    case databaseUnreachable(address: String, reason: String)
    /// The database's schema is newer than this build knows.
    case schemaTooNew(found: Int, known: Int)
    /// Another live node uses this node's id.
    case nodeIdInUse(String)

    public var description: String {
        switch self {
        case .invalidDatabaseURL(let problem): "cluster.databaseURL \(problem)"
        case .databaseUnreachable(let address, let reason): "the cluster's database \(address) is unreachable: \(reason)"
        case .schemaTooNew(let found, let known):
            "the cluster's database schema version \(found) is newer than this build's \(known): upgrade this node"
        case .nodeIdInUse(let id):
            "cluster.nodeId \"\(id)\" belongs to a live node (its heartbeat is within cluster.nodeTimeoutSeconds); give every node its own id"
        }
    }
}
