/// How a node joins a cluster: the shared database, its own id, and the addresses clients and the
/// other nodes reach it on. Absent from the configuration, the daemon runs alone.
public struct ClusterConfiguration: Equatable, Sendable {
    /// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`.
    public var database: DatabaseAddress
    /// Unique among the cluster's nodes: `A-Z a-z 0-9 - _`, up to 64 characters.
    public var nodeId: String
    /// The client WebSocket URL clients are sent to for sessions on this node, e.g. `wss://b.example.com/v1/ws`.
    public var signalingURL: String
    /// The base URL the other nodes forward REST requests to, e.g. `http://10.0.0.12:7880`.
    public var internalURL: String
    /// Sessions this node takes before placement looks elsewhere.
    public var maxSessions: Int
    /// How often this node writes its liveness and load.
    public var heartbeatInterval: Duration
    /// A node whose last heartbeat is older than this is dead: its sessions are placed afresh.
    public var nodeTimeout: Duration
    /// Longest wait for the database (and for another node answering a forwarded request) before
    /// the request that needed it is refused with `unavailable`.
    public var databaseTimeout: Duration
    /// Subscribers of one session this node serves itself; further ones are served by other nodes,
    /// each fed every published track once over a relay leg (cascading). Nil: never cascade.
    public var subscribersBeforeCascading: Int?

    public init(
        database: DatabaseAddress, nodeId: String, signalingURL: String, internalURL: String, maxSessions: Int,
        heartbeatInterval: Duration = .seconds(2), nodeTimeout: Duration = .seconds(10), databaseTimeout: Duration = .seconds(5),
        subscribersBeforeCascading: Int? = nil
    ) {
        self.database = database
        self.nodeId = nodeId
        self.signalingURL = signalingURL
        self.internalURL = internalURL
        self.maxSessions = maxSessions
        self.heartbeatInterval = heartbeatInterval
        self.nodeTimeout = nodeTimeout
        self.databaseTimeout = databaseTimeout
        self.subscribersBeforeCascading = subscribersBeforeCascading
    }

    /// Whether `id` can name a node.
    public static func isValidNodeId(_ id: String) -> Bool {
        (1...64).contains(id.count) && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }
}
