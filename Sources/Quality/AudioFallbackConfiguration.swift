/// Every threshold and timer of quality scoring and the audio-fallback policy. The defaults meet the
/// targets in `docs/audio-fallback.md`: warning within 2 s and video off within 4 s of sustained 30 %
/// loss, video back within 6 s of recovery, nothing at 3 % random loss.
public struct AudioFallbackConfiguration: Equatable, Sendable {
    /// Below this score (0–100) the person is warned.
    public var warningScore: Double
    /// Below this score, held for `disableAfter`, video is turned off.
    public var disableScore: Double
    /// At or above this score, held for `liftAfter`, a warning is lifted; held for the recovery time
    /// while probing, video is turned back on.
    public var recoveryScore: Double
    /// How long the score must stay below `warningScore` before the warning.
    public var warnAfter: Duration
    /// How long the score must stay below `disableScore` before video goes off.
    public var disableAfter: Duration
    /// How long the score must stay at or above `recoveryScore` before a warning is lifted.
    public var liftAfter: Duration
    /// How long the probed path must carry video (score and delivered rate) before video comes back,
    /// the first time; multiplied by `backoffFactor` for each quick re-disable.
    public var recoverAfter: Duration
    /// A disable within this time of the last enable raises the back-off level; a later one resets it.
    public var backoffWindow: Duration
    /// Growth of the recovery time per back-off level.
    public var backoffFactor: Double
    /// The recovery time never exceeds this.
    public var maximumRecoverAfter: Duration
    /// The rate the lowest video needs, in bits per second: the rate probed while video is off, and the
    /// available bandwidth below which the score loses points.
    public var probeBitrate: Int
    /// Share of `probeBitrate` (plus audio) that must arrive for the path to count as carrying video.
    public var probeDeliveredShare: Double
    /// Weight of the newest measurement in the smoothed values (0 < weight ≤ 1).
    public var smoothing: Double
    /// How often the router samples what it receives from a publisher.
    public var publisherSampleInterval: Duration

    public init(
        warningScore: Double = 70,
        disableScore: Double = 45,
        recoveryScore: Double = 80,
        warnAfter: Duration = .milliseconds(500),
        disableAfter: Duration = .milliseconds(1500),
        liftAfter: Duration = .seconds(2),
        recoverAfter: Duration = .seconds(2),
        backoffWindow: Duration = .seconds(60),
        backoffFactor: Double = 4,
        maximumRecoverAfter: Duration = .seconds(64),
        probeBitrate: Int = 150_000,
        probeDeliveredShare: Double = 0.85,
        smoothing: Double = 0.5,
        publisherSampleInterval: Duration = .milliseconds(500)
    ) {
        self.warningScore = warningScore
        self.disableScore = disableScore
        self.recoveryScore = recoveryScore
        self.warnAfter = warnAfter
        self.disableAfter = disableAfter
        self.liftAfter = liftAfter
        self.recoverAfter = recoverAfter
        self.backoffWindow = backoffWindow
        self.backoffFactor = backoffFactor
        self.maximumRecoverAfter = maximumRecoverAfter
        self.probeBitrate = probeBitrate
        self.probeDeliveredShare = probeDeliveredShare
        self.smoothing = smoothing
        self.publisherSampleInterval = publisherSampleInterval
    }

    /// What is wrong with these settings, or nil when they can work together. Names are those of the
    /// JSON configuration (`media.audioFallback`), which is where operators meet them.
    public var problem: String? {
        if !(0...100).contains(warningScore) { return "warningScore must be within 0...100, not \(warningScore)" }
        if !(0...100).contains(disableScore) { return "disableScore must be within 0...100, not \(disableScore)" }
        if !(0...100).contains(recoveryScore) { return "recoveryScore must be within 0...100, not \(recoveryScore)" }
        if disableScore > warningScore { return "disableScore (\(disableScore)) must not exceed warningScore (\(warningScore))" }
        if recoveryScore < warningScore { return "recoveryScore (\(recoveryScore)) must not be below warningScore (\(warningScore))" }
        if backoffFactor < 1 { return "backoffFactor must be at least 1, not \(backoffFactor)" }
        if maximumRecoverAfter < recoverAfter { return "maxRecoverAfterMs must not be shorter than recoverAfterMs" }
        if probeBitrate < 1 { return "probeBitrate must be positive, not \(probeBitrate)" }
        if !(probeDeliveredShare > 0 && probeDeliveredShare <= 1) { return "probeDeliveredShare must be within (0, 1], not \(probeDeliveredShare)" }
        if !(smoothing > 0 && smoothing <= 1) { return "smoothing must be within (0, 1], not \(smoothing)" }
        if publisherSampleInterval < .milliseconds(100) { return "publisherSampleIntervalMs must be at least 100" }
        for (name, value) in [("warnAfterMs", warnAfter), ("disableAfterMs", disableAfter), ("liftAfterMs", liftAfter), ("recoverAfterMs", recoverAfter), ("backoffWindowMs", backoffWindow)]
        where value < .zero {
            return "\(name) must not be negative"
        }
        return nil
    }
}

extension Duration {
    /// Whole nanoseconds, for the UInt64 monotonic clock the media plane passes in as `now`.
    var wholeNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
