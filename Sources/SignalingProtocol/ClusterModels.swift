/// `GET /v1/cluster`: every node the cluster's database knows, as the answering node sees it.
public struct ClusterOverview: Codable, Equatable, Sendable {
    /// The node that answered.
    public var nodeId: String
    public var nodes: [ClusterNodeStatus]

    public init(nodeId: String, nodes: [ClusterNodeStatus]) {
        self.nodeId = nodeId
        self.nodes = nodes
    }
}

/// One node of the cluster: how to reach it, whether it is alive, its load, its sessions.
public struct ClusterNodeStatus: Codable, Equatable, Sendable {
    public var nodeId: String
    public var signalingURL: String
    public var internalURL: String
    /// `active`, or `draining` once its shutdown began (it takes no new sessions).
    public var state: String
    /// Whether its last heartbeat is within `cluster.nodeTimeoutSeconds`.
    public var live: Bool
    public var heartbeatAgeMilliseconds: Int64
    /// When it joined, in milliseconds since 1970.
    public var startedAt: Int64
    public var maxSessions: Int
    /// What it reported with its last heartbeat.
    public var load: NodeLoad
    /// The sessions placed on it.
    public var sessionIds: [String]

    public init(
        nodeId: String, signalingURL: String, internalURL: String, state: String, live: Bool, heartbeatAgeMilliseconds: Int64,
        startedAt: Int64, maxSessions: Int, load: NodeLoad, sessionIds: [String]
    ) {
        self.nodeId = nodeId
        self.signalingURL = signalingURL
        self.internalURL = internalURL
        self.state = state
        self.live = live
        self.heartbeatAgeMilliseconds = heartbeatAgeMilliseconds
        self.startedAt = startedAt
        self.maxSessions = maxSessions
        self.load = load
        self.sessionIds = sessionIds
    }
}

/// A node's load, as its heartbeat reports it.
public struct NodeLoad: Codable, Equatable, Sendable {
    public var sessions: Int
    public var connections: Int
    public var streams: Int
    public var subscribers: Int
    public var forwardedPacketsPerSecond: Double
    /// CPU the process used since the last heartbeat, in cores (1.5 = one and a half cores busy).
    public var cpuCores: Double

    public init(sessions: Int = 0, connections: Int = 0, streams: Int = 0, subscribers: Int = 0, forwardedPacketsPerSecond: Double = 0, cpuCores: Double = 0) {
        self.sessions = sessions
        self.connections = connections
        self.streams = streams
        self.subscribers = subscribers
        self.forwardedPacketsPerSecond = forwardedPacketsPerSecond
        self.cpuCores = cpuCores
    }
}
