/// What came back of one probe cluster: the rate its packets arrived at, from the spread of their
/// arrival times (the bottleneck spaces a burst out to its own rate).
public struct ProbeMeasurement: Equatable, Sendable {
    /// A probe is judged once this share of its packets is reported received.
    static let requiredShare = 0.8

    public let cluster: ProbeCluster
    public let startedAt: UInt64
    private var received = 0
    private var firstArrival: Int64?
    private var lastArrival: Int64?
    private var bytesAfterFirst = 0

    public init(cluster: ProbeCluster, startedAt: UInt64) {
        self.cluster = cluster
        self.startedAt = startedAt
    }

    public mutating func add(size: Int, arrivalTime: Int64) {
        received += 1
        guard let first = firstArrival else {
            firstArrival = arrivalTime
            lastArrival = arrivalTime
            return
        }
        if arrivalTime < first {
            // The earliest arrival opens the spread; its own bytes arrived before it.
            firstArrival = arrivalTime
        } else {
            lastArrival = max(lastArrival ?? arrivalTime, arrivalTime)
        }
        bytesAfterFirst += size
    }

    public var isComplete: Bool {
        Double(received) >= Double(cluster.packetCount) * Self.requiredShare && received >= 2
    }

    /// The rate the path carried the probe at, at most the probe's own target; nil before it is
    /// complete or when its arrivals have no spread to measure.
    public var provenBitrate: Double? {
        guard isComplete, let first = firstArrival, let last = lastArrival, last > first else {
            return isComplete ? cluster.targetBitrate : nil
        }
        let received = Double(bytesAfterFirst) * 8 / (Double(last - first) / 1e9)
        return min(received, cluster.targetBitrate)
    }
}
