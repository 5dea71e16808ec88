/// Smooths a link's samples into a `LinkQuality`, so that one bad report does not swing the score.
///
/// Each value is an exponentially weighted moving average whose newest-sample weight is the
/// configured smoothing, scaled down for samples of fewer than `fullWeightPackets` packets: a report
/// about 5 packets says little about loss.
public struct LinkQualityEstimator: Equatable, Sendable {
    /// Samples of at least this many expected packets get the full smoothing weight.
    public static let fullWeightPackets = 20

    public let smoothing: Double
    public let neededBitrate: Double
    private(set) var loss: Double?
    private(set) var jitterSeconds: Double?
    private(set) var roundTripSeconds: Double?
    private(set) var deliveredBitrate: Double?
    private(set) var receiverEstimatedBitrate: Double?
    private(set) var senderEstimatedBitrate: Double?
    /// Samples recorded so far.
    public private(set) var sampleCount = 0

    public init(smoothing: Double, neededBitrate: Double) {
        self.smoothing = smoothing
        self.neededBitrate = neededBitrate
    }

    public init(configuration: AudioFallbackConfiguration) {
        self.init(smoothing: configuration.smoothing, neededBitrate: Double(configuration.probeBitrate))
    }

    /// Folds in one interval's measurement.
    public mutating func record(_ sample: QualitySample) {
        sampleCount += 1
        if sample.packetsExpected > 0 {
            let weight = smoothing * min(1, Double(sample.packetsExpected) / Double(Self.fullWeightPackets))
            // A link is presumed clean until shown otherwise, so a first small sample cannot swing it.
            loss = Self.blend(loss ?? 0, sample.lossFraction, weight: weight)
        }
        if let jitter = sample.jitterSeconds { jitterSeconds = Self.blend(jitterSeconds, jitter, weight: smoothing) }
        if let roundTrip = sample.roundTripSeconds { roundTripSeconds = Self.blend(roundTripSeconds, roundTrip, weight: smoothing) }
        if let delivered = sample.deliveredBitrate { deliveredBitrate = Self.blend(deliveredBitrate, delivered, weight: smoothing) }
    }

    /// Folds in the receiver's own bandwidth estimate (REMB).
    public mutating func recordReceiverEstimate(bitsPerSecond: Double) {
        receiverEstimatedBitrate = Self.blend(receiverEstimatedBitrate, bitsPerSecond, weight: smoothing)
    }

    /// Takes the router's send-side estimate from transport-wide feedback as it is: the estimator
    /// filters already.
    public mutating func recordSenderEstimate(bitsPerSecond: Double) {
        senderEstimatedBitrate = bitsPerSecond
    }

    /// Forgets the delivered rate, which describes a sending rate that has just changed (video off or
    /// back on) rather than the path.
    public mutating func resetDeliveredRate() {
        deliveredBitrate = nil
    }

    /// The current smoothed state; a link with no sample yet counts as clean.
    public var quality: LinkQuality {
        LinkQuality(
            loss: loss ?? 0, jitterSeconds: jitterSeconds ?? 0, roundTripSeconds: roundTripSeconds,
            deliveredBitrate: deliveredBitrate, receiverEstimatedBitrate: receiverEstimatedBitrate,
            senderEstimatedBitrate: senderEstimatedBitrate, neededBitrate: neededBitrate)
    }

    private static func blend(_ old: Double?, _ new: Double, weight: Double) -> Double {
        guard let old else { return new }
        return old + weight * (new - old)
    }
}
