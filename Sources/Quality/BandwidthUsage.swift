/// What the delay-based part of the estimator makes of the queueing delay's trend.
public enum BandwidthUsage: String, Equatable, Sendable {
    /// Delay is stable: the path carries what is sent.
    case normal
    /// Delay is growing: a queue builds somewhere on the path.
    case overusing
    /// Delay is shrinking: a queue drains.
    case underusing
}
