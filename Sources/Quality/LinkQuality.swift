/// The smoothed state of one link and its score.
///
/// The score runs from 0 (unusable) to 100 (clean) and is
///
///     score = 100 − 400 · loss − 50 · max(0, rtt + 2 · jitter − 0.3 s) − bandwidth penalty
///
/// clamped to 0...100, where `loss` is the smoothed fraction lost (5 % costs 20 points, 25 % all of
/// them), delay costs 5 points per 100 ms of round trip plus twice the jitter beyond 300 ms, and the
/// bandwidth penalty is `50 · (1 − available / needed)` when the bandwidth estimate
/// (`estimatedBitrate`) says less is available than the lowest video needs.
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
    /// The router's send-side estimate from transport-wide feedback, bits per second, when the
    /// receiver sends that feedback.
    public var senderEstimatedBitrate: Double?
    /// The score, 0...100.
    public var score: Double

    /// Below this loss, a REMB lower than what demonstrably arrives is not believed.
    public static let cleanLoss = 0.02

    public init(
        loss: Double, jitterSeconds: Double, roundTripSeconds: Double?, deliveredBitrate: Double?,
        receiverEstimatedBitrate: Double?, senderEstimatedBitrate: Double? = nil, neededBitrate: Double
    ) {
        self.loss = loss
        self.jitterSeconds = jitterSeconds
        self.roundTripSeconds = roundTripSeconds
        self.deliveredBitrate = deliveredBitrate
        self.receiverEstimatedBitrate = receiverEstimatedBitrate
        self.senderEstimatedBitrate = senderEstimatedBitrate
        score = 0
        score = Self.score(
            loss: loss, jitterSeconds: jitterSeconds, roundTripSeconds: roundTripSeconds ?? 0,
            availableBitrate: estimatedBitrate, neededBitrate: neededBitrate)
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

    /// The bandwidth estimate the score judges: the router's send-side estimate when the receiver
    /// sends transport-wide feedback; otherwise its REMB, checked against the delivered rate: on a
    /// clean link (loss under `cleanLoss`) a REMB below what demonstrably arrives is an overloaded
    /// receiver's delay estimator, not the path, and the delivered rate stands instead.
    public var estimatedBitrate: Double? {
        if let senderEstimatedBitrate { return senderEstimatedBitrate }
        guard let remb = receiverEstimatedBitrate else { return nil }
        if let delivered = deliveredBitrate, loss < Self.cleanLoss, delivered > remb { return delivered }
        return remb
    }

    /// Where `availableBitrate` comes from: `transportFeedback`, `receiverEstimate` or `delivered`;
    /// nil while there is nothing to go on.
    public var availableBitrateSource: String? {
        if senderEstimatedBitrate != nil { return "transportFeedback" }
        if let remb = receiverEstimatedBitrate, estimatedBitrate == remb { return "receiverEstimate" }
        return deliveredBitrate == nil ? nil : "delivered"
    }

    /// An estimate of the bandwidth available toward the receiver: `estimatedBitrate` when there is
    /// one, otherwise the rate that demonstrably got through (a lower bound).
    public var availableBitrate: Double? {
        estimatedBitrate ?? deliveredBitrate
    }
}
