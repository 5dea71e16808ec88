/// The rate a run of packets arrived at, from the spread of their arrival times: the bytes after the
/// earliest arrival over the time from it to the latest. A bottleneck spaces packets that queue at it
/// out to its own rate, so for a probe or a queue-building burst this is what the path carries.
public struct ArrivalSpread: Equatable, Sendable {
    public private(set) var count = 0
    private var firstArrival: Int64?
    private var lastArrival: Int64?
    private var bytesAfterFirst = 0

    public init() {}

    public mutating func add(size: Int, arrivalTime: Int64) {
        count += 1
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

    /// Nanoseconds from the earliest arrival to the latest.
    public var spanNanoseconds: Int64 {
        guard let first = firstArrival, let last = lastArrival else { return 0 }
        return last - first
    }

    /// Bits per second; nil while the arrivals have no spread.
    public var bitrate: Double? {
        guard spanNanoseconds > 0 else { return nil }
        return Double(bytesAfterFirst) * 8 / (Double(spanNanoseconds) / 1e9)
    }
}
