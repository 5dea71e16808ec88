/// Latencies in fixed buckets — 50 µs up to 100 ms, then 1 ms up to 2 s, anything above in the last
/// bucket with the maximum kept exactly — so a thousand subscribers can record every packet without
/// allocating, and their histograms merge by adding.
public struct LatencyHistogram: Equatable, Sendable {
    public static let fineBucketNanoseconds: UInt64 = 50_000
    public static let fineBucketCount = 2000
    public static let coarseBucketNanoseconds: UInt64 = 1_000_000
    public static let coarseBucketCount = 1900
    static let fineRange = UInt64(fineBucketCount) * fineBucketNanoseconds
    static let bucketCount = fineBucketCount + coarseBucketCount

    public private(set) var buckets: [UInt32]
    public private(set) var count: UInt64 = 0
    public private(set) var maximumNanoseconds: UInt64 = 0
    public private(set) var totalNanoseconds: UInt64 = 0

    public init() {
        buckets = Array(repeating: 0, count: Self.bucketCount)
    }

    public mutating func record(nanoseconds: UInt64) {
        buckets[Self.bucket(for: nanoseconds)] &+= 1
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
    /// its bucket (never above the maximum), or the maximum when it falls beyond 2 s; nil when empty.
    public func percentileMilliseconds(_ fraction: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = max(1, UInt64((fraction * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucket) in buckets.enumerated() {
            seen += UInt64(bucket)
            if seen >= rank {
                // The last bucket is open-ended: what lies in it is known only by its maximum.
                guard index < Self.bucketCount - 1 else { break }
                return Double(min(Self.upperEdge(of: index), maximumNanoseconds)) / 1e6
            }
        }
        return Double(maximumNanoseconds) / 1e6
    }

    public var meanMilliseconds: Double? {
        count > 0 ? Double(totalNanoseconds) / Double(count) / 1e6 : nil
    }

    static func bucket(for nanoseconds: UInt64) -> Int {
        if nanoseconds < fineRange { return Int(nanoseconds / fineBucketNanoseconds) }
        return min(fineBucketCount + Int((nanoseconds - fineRange) / coarseBucketNanoseconds), bucketCount - 1)
    }

    static func upperEdge(of index: Int) -> UInt64 {
        if index < fineBucketCount { return UInt64(index + 1) * fineBucketNanoseconds }
        return fineRange + UInt64(index - fineBucketCount + 1) * coarseBucketNanoseconds
    }
}
