/// Latencies in fixed 50 µs buckets up to 100 ms (anything above counts in the last bucket, and the
/// maximum is kept exactly), so a thousand subscribers can record every packet without allocating
/// and their histograms merge by adding.
public struct LatencyHistogram: Equatable, Sendable {
    public static let bucketNanoseconds: UInt64 = 50_000
    public static let bucketCount = 2000
    public private(set) var buckets: [UInt32]
    public private(set) var count: UInt64 = 0
    public private(set) var maximumNanoseconds: UInt64 = 0
    public private(set) var totalNanoseconds: UInt64 = 0

    public init() {
        buckets = Array(repeating: 0, count: Self.bucketCount)
    }

    public mutating func record(nanoseconds: UInt64) {
        let index = min(Int(nanoseconds / Self.bucketNanoseconds), Self.bucketCount - 1)
        buckets[index] &+= 1
        count += 1
        totalNanoseconds &+= nanoseconds
        maximumNanoseconds = max(maximumNanoseconds, nanoseconds)
    }

    public mutating func merge(_ other: LatencyHistogram) {
        for index in 0..<Self.bucketCount { buckets[index] &+= other.buckets[index] }
        count += other.count
        totalNanoseconds &+= other.totalNanoseconds
        maximumNanoseconds = max(maximumNanoseconds, other.maximumNanoseconds)
    }

    /// The latency below which `fraction` of the samples fall, in milliseconds: the upper edge of
    /// its bucket (never above the maximum), or the maximum when it falls beyond 100 ms; nil when empty.
    public func percentileMilliseconds(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, UInt64((fraction * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucket) in buckets.enumerated() {
            seen += UInt64(bucket)
            if seen >= rank {
                // The last bucket is open-ended: what lies in it is known only by its maximum.
                guard index < Self.bucketCount - 1 else { break }
                return Double(min(UInt64(index + 1) * Self.bucketNanoseconds, maximumNanoseconds)) / 1e6
            }
        }
        return Double(maximumNanoseconds) / 1e6
    }

    public var meanMilliseconds: Double? {
        count > 0 ? Double(totalNanoseconds) / Double(count) / 1e6 : nil
    }
}
