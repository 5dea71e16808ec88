/// Totals of a node's cluster work since it started.
public struct ClusterMetrics: Equatable, Sendable {
    public var heartbeats: UInt64 = 0
    public var heartbeatFailures: UInt64 = 0
    /// Sessions this node placed, on itself or another node.
    public var placements: UInt64 = 0
    /// REST requests answered by the node that holds their session.
    public var forwardedRequests: UInt64 = 0
    public var forwardingFailures: UInt64 = 0
    /// Requests refused with `unavailable` because the database did not answer in time, a placement
    /// whose heartbeat it did not take included (that heartbeat also counts in `heartbeatFailures`).
    public var databaseFailures: UInt64 = 0
}
