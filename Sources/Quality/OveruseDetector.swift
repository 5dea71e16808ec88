/// Compares the delay trend with an adaptive threshold. Overuse needs the trend above the threshold
/// for `overuseMilliseconds` of send time and two deltas in a row, and not falling; underuse is a
/// trend below minus the threshold. The threshold follows the trend's magnitude (slowly up, faster
/// down) so the estimator neither starves beside loss-based TCP flows nor reacts to steady jitter.
public struct OveruseDetector: Equatable, Sendable {
    static let initialThreshold = 12.5
    static let thresholdRange = 6.0...600.0
    static let raiseRate = 0.0087
    static let lowerRate = 0.039
    static let overuseMilliseconds = 10.0
    /// A trend this far past the threshold is a spike; the threshold does not chase it.
    static let spikeMargin = 15.0

    public private(set) var threshold = Self.initialThreshold
    public private(set) var usage = BandwidthUsage.normal
    private var overusingFor: Double?
    private var overuseCount = 0
    private var previousTrend = 0.0
    private var lastThresholdUpdate: Double?

    public init() {}

    /// Takes the trend after a delta whose groups were `sendDeltaMilliseconds` apart, at
    /// `nowMilliseconds` (any monotonic clock), and returns the usage.
    public mutating func detect(trend: Double, deltaCount: Int, sendDeltaMilliseconds: Double, nowMilliseconds: Double) -> BandwidthUsage {
        guard deltaCount >= 2 else { return usage }
        if trend > threshold {
            overusingFor = overusingFor.map { $0 + sendDeltaMilliseconds } ?? sendDeltaMilliseconds / 2
            overuseCount += 1
            if let time = overusingFor, time > Self.overuseMilliseconds, overuseCount > 1, trend >= previousTrend {
                overusingFor = 0
                overuseCount = 0
                usage = .overusing
            }
        } else if trend < -threshold {
            overusingFor = nil
            overuseCount = 0
            usage = .underusing
        } else {
            overusingFor = nil
            overuseCount = 0
            usage = .normal
        }
        previousTrend = trend
        adaptThreshold(trend: trend, nowMilliseconds: nowMilliseconds)
        return usage
    }

    private mutating func adaptThreshold(trend: Double, nowMilliseconds: Double) {
        let last = lastThresholdUpdate ?? nowMilliseconds
        lastThresholdUpdate = nowMilliseconds
        let magnitude = abs(trend)
        if magnitude > threshold + Self.spikeMargin { return }
        let rate = magnitude < threshold ? Self.lowerRate : Self.raiseRate
        let elapsed = min(max(nowMilliseconds - last, 0), 100)
        threshold += rate * (magnitude - threshold) * elapsed
        threshold = min(max(threshold, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound)
    }
}
