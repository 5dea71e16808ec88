import Foundation

/// The delay-based rate: additive or multiplicative increase while delay is normal, a cut to 85 % of
/// what the receiver acknowledged on overuse, hold while a queue drains.
///
/// Far from the capacity it last found (the average acknowledged rate at its cuts), the rate grows 8 %
/// per second; near it, by about one packet per response time, so it settles instead of oscillating.
/// Growth never takes the rate past 1.5 × the acknowledged rate + 10 kbps: what is not sent cannot
/// show what the path carries (a probe can, through `raise(to:)`).
public struct AIMDRateController: Equatable, Sendable {
    enum Phase: Equatable, Sendable { case hold, increase, decrease }

    static let decreaseFactor = 0.85
    static let multiplicativeIncreasePerSecond = 1.08
    static let capacitySmoothing = 0.05
    static let packetBits = 1200.0 * 8
    /// Cuts closer together than this need the acknowledged rate to have halved.
    static let minimumCutIntervalNanoseconds: UInt64 = 200_000_000

    public private(set) var bitrate: Double
    let configuration: BandwidthEstimatorConfiguration
    private var phase = Phase.increase
    private var lastUpdate: UInt64?
    private var lastCut: UInt64?
    /// Average and normalized variance of the acknowledged rate at cuts: where the capacity lies.
    private var capacity: Capacity?

    private struct Capacity: Equatable, Sendable {
        var average: Double
        var variance: Double
    }

    public init(configuration: BandwidthEstimatorConfiguration) {
        self.configuration = configuration
        bitrate = configuration.startBitrate
    }

    /// Takes the detector's verdict and the acknowledged rate; returns the new rate.
    public mutating func update(
        usage: BandwidthUsage, acknowledgedBitrate: Double?, roundTripSeconds: Double, now: UInt64
    ) -> Double {
        let elapsedSeconds = lastUpdate.map { min(Double(now &- $0) / 1e9, 1) } ?? 0
        lastUpdate = now
        switch usage {
        case .overusing: phase = .decrease
        case .underusing: phase = .hold
        case .normal: if phase == .hold || phase == .decrease { phase = .increase }
        }
        switch phase {
        case .hold:
            break
        case .increase:
            increase(elapsedSeconds: elapsedSeconds, acknowledgedBitrate: acknowledgedBitrate, roundTripSeconds: roundTripSeconds)
        case .decrease:
            cut(acknowledgedBitrate: acknowledgedBitrate, now: now)
        }
        bitrate = min(max(bitrate, configuration.minimumBitrate), configuration.maximumBitrate)
        return bitrate
    }

    /// A probe showed the path carries `proven`: take it if it is more.
    public mutating func raise(to proven: Double) {
        bitrate = min(max(bitrate, proven), configuration.maximumBitrate)
    }

    private mutating func increase(elapsedSeconds: Double, acknowledgedBitrate: Double?, roundTripSeconds: Double) {
        if let acknowledged = acknowledgedBitrate, let known = capacity,
            acknowledged > known.average + 3 * (known.variance * known.average).squareRoot()
        {
            capacity = nil
        }
        var grown: Double
        if capacity != nil {
            let responseSeconds = roundTripSeconds + 0.1
            grown = bitrate + max(1000 * elapsedSeconds, Self.packetBits * elapsedSeconds / responseSeconds)
        } else {
            let factor = pow(Self.multiplicativeIncreasePerSecond, elapsedSeconds)
            grown = bitrate + max(bitrate * (factor - 1), 1000 * elapsedSeconds)
        }
        if let acknowledged = acknowledgedBitrate {
            grown = min(grown, max(bitrate, 1.5 * acknowledged + 10_000))
        }
        bitrate = grown
    }

    private mutating func cut(acknowledgedBitrate: Double?, now: UInt64) {
        defer { phase = .hold }
        if let lastCut, now &- lastCut < Self.minimumCutIntervalNanoseconds,
            (acknowledgedBitrate ?? bitrate) >= bitrate / 2
        {
            return
        }
        lastCut = now
        guard let acknowledged = acknowledgedBitrate else {
            bitrate *= Self.decreaseFactor
            return
        }
        var reduced = Self.decreaseFactor * acknowledged
        if reduced > bitrate, let known = capacity { reduced = Self.decreaseFactor * known.average }
        bitrate = min(bitrate, reduced)
        recordCapacity(acknowledged)
    }

    private mutating func recordCapacity(_ acknowledged: Double) {
        guard var known = capacity else {
            capacity = Capacity(average: acknowledged, variance: 0.4)
            return
        }
        if acknowledged < known.average - 3 * (known.variance * known.average).squareRoot() { known = Capacity(average: acknowledged, variance: 0.4) }
        let alpha = Self.capacitySmoothing
        known.average = (1 - alpha) * known.average + alpha * acknowledged
        let normalization = max(known.average, 1)
        let deviation = known.average - acknowledged
        known.variance = (1 - alpha) * known.variance + alpha * deviation * deviation / normalization
        known.variance = min(max(known.variance, 0.4), 2.5)
        capacity = known
    }
}

