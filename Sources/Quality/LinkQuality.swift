/// The smoothed state of one link and its score.
///
/// The score runs from 0 (unusable) to 100 (clean) and is
///
///     score = 100 − 400 · loss − 50 · max(0, rtt + 2 · jitter − 0.3 s) − bandwidth penalty
///
/// clamped to 0...100, where `loss` is the smoothed fraction lost (5 % costs 20 points, 25 % all of
/// them), delay costs 5 points per 100 ms of round trip plus twice the jitter beyond 300 ms, and the
/// bandwidth penalty is `50 · (1 − available / needed)` when the receiver's own estimate (REMB) says
/// less is available than the lowest video needs.
public struct LinkQuality: Equatable, Sendable {
    /// Smoothed fraction of packets lost, 0...1.
    public var loss: Double
    /// Smoothed interarrival jitter, seconds.
    public var jitterSeconds: Double
    /// Smoothed round-trip time, seconds, when known.
    public var roundTripSeconds: Double?
    /// Smoothed rate that reached the receiver, bits per second, when known.
    public var deliveredBitrate: Double?
    /// The receiver's own estimate of the bandwidth available (REMB), bits per second, when it sends one.
    public var receiverEstimatedBitrate: Double?
    /// The score, 0...100.
    public var score: Double

    public init(
        loss: Double, jitterSeconds: Double, roundTripSeconds: Double?, deliveredBitrate: Double?,
        receiverEstimatedBitrate: Double?, neededBitrate: Double
    ) {
        self.loss = loss
        self.jitterSeconds = jitterSeconds
        self.roundTripSeconds = roundTripSeconds
        self.deliveredBitrate = deliveredBitrate
        self.receiverEstimatedBitrate = receiverEstimatedBitrate
        score = Self.score(
            loss: loss, jitterSeconds: jitterSeconds, roundTripSeconds: roundTripSeconds ?? 0,
            availableBitrate: receiverEstimatedBitrate, neededBitrate: neededBitrate)
    }

    /// The documented formula.
    public static func score(
        loss: Double, jitterSeconds: Double, roundTripSeconds: Double, availableBitrate: Double?, neededBitrate: Double
    ) -> Double {
        let lossPenalty = 400 * loss
        let delayPenalty = 50 * max(0, roundTripSeconds + 2 * jitterSeconds - 0.3)
        var bandwidthPenalty = 0.0
        if let availableBitrate, neededBitrate > 0, availableBitrate < neededBitrate {
            bandwidthPenalty = 50 * (1 - availableBitrate / neededBitrate)
        }
        return min(100, max(0, 100 - lossPenalty - delayPenalty - bandwidthPenalty))
    }

    /// An estimate of the bandwidth available toward the receiver: its own REMB when it sends one,
    /// otherwise the rate that demonstrably got through (a lower bound).
    public var availableBitrate: Double? {
        receiverEstimatedBitrate ?? deliveredBitrate
    }
}
