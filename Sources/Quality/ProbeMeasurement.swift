/// What came back of one probe cluster: the rate its packets arrived at, from the spread of their
/// arrival times (the bottleneck spaces a burst out to its own rate).
public struct ProbeMeasurement: Equatable, Sendable {
    /// A probe is judged once this share of its packets is reported received.
    static let requiredShare = 0.8

    public let cluster: ProbeCluster
    public let startedAt: UInt64
    private var arrivals = ArrivalSpread()

    public init(cluster: ProbeCluster, startedAt: UInt64) {
        self.cluster = cluster
        self.startedAt = startedAt
    }

    public mutating func add(size: Int, arrivalTime: Int64) {
        arrivals.add(size: size, arrivalTime: arrivalTime)
    }

    public var isComplete: Bool {
        Double(arrivals.count) >= Double(cluster.packetCount) * Self.requiredShare && arrivals.count >= 2
    }

    /// The rate the path carried the probe at, at most the probe's own target; nil before it is
    /// complete, the target when its arrivals have no spread to measure.
    public var provenBitrate: Double? {
        guard isComplete else { return nil }
        return min(arrivals.bitrate ?? cluster.targetBitrate, cluster.targetBitrate)
    }
}
