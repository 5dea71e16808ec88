/// Totals of a node's cluster work since it started.
public struct ClusterMetrics: Equatable, Sendable {
    public var heartbeats: UInt64 = 0
    public var heartbeatFailures: UInt64 = 0
    /// Sessions this node placed, on itself or another node.
    public var placements: UInt64 = 0
    /// REST requests answered by the node that holds their session.
    public var forwardedRequests: UInt64 = 0
    public var forwardingFailures: UInt64 = 0
    /// Placement requests refused because the database did not answer in time.
    public var databaseFailures: UInt64 = 0
}
