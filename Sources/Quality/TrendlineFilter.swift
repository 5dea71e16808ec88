/// Estimates whether queueing delay is growing: the slope of a least-squares line through the last
/// `windowSize` points of (arrival time, smoothed accumulated delay variation), scaled by how many
/// deltas it has seen (up to 60) and a gain, so one noisy delta cannot swing it.
///
/// The window is a fixed ring: feeding it allocates nothing.
public struct TrendlineFilter: Equatable, Sendable {
    public static let windowSize = 20
    static let smoothing = 0.9
    static let gain = 4.0
    static let deltaCountCap = 60

    private var arrivalTimes: [Double]
    private var smoothedDelays: [Double]
    private var filled = 0
    private var next = 0
    private var firstArrivalTime: Double?
    private var accumulatedDelay = 0.0
    private var smoothedDelay = 0.0
    /// Deltas seen, capped.
    public private(set) var deltaCount = 0
    /// The last scaled slope, in the detector's units.
    public private(set) var modifiedTrend = 0.0

    public init() {
        arrivalTimes = Array(repeating: 0, count: Self.windowSize)
        smoothedDelays = Array(repeating: 0, count: Self.windowSize)
    }

    /// Folds in one group delta and returns the scaled trend.
    public mutating func update(_ delta: PacketGroupDelta) -> Double {
        deltaCount = min(deltaCount + 1, Self.deltaCountCap)
        let first = firstArrivalTime ?? delta.arrivalTimeMilliseconds
        firstArrivalTime = first
        accumulatedDelay += delta.delayVariationMilliseconds
        smoothedDelay = Self.smoothing * smoothedDelay + (1 - Self.smoothing) * accumulatedDelay
        arrivalTimes[next] = delta.arrivalTimeMilliseconds - first
        smoothedDelays[next] = smoothedDelay
        next = (next + 1) % Self.windowSize
        filled = min(filled + 1, Self.windowSize)
        if filled == Self.windowSize, let slope = slope() {
            modifiedTrend = Double(deltaCount) * slope * Self.gain
        }
        return modifiedTrend
    }

    private func slope() -> Double? {
        var sumX = 0.0
        var sumY = 0.0
        for index in 0..<filled {
            sumX += arrivalTimes[index]
            sumY += smoothedDelays[index]
        }
        let meanX = sumX / Double(filled)
        let meanY = sumY / Double(filled)
        var numerator = 0.0
        var denominator = 0.0
        for index in 0..<filled {
            let dx = arrivalTimes[index] - meanX
            numerator += dx * (smoothedDelays[index] - meanY)
            denominator += dx * dx
        }
        return denominator == 0 ? nil : numerator / denominator
    }
}
