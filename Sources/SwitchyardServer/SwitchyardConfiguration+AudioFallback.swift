import MediaRouter
import Quality

extension SwitchyardConfiguration {
    /// Reads `media.audioFallback`: every threshold and timer of the policy (docs/audio-fallback.md).
    static func audioFallback(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> AudioFallbackConfiguration {
        let defaults = AudioFallbackConfiguration()
        func milliseconds(_ key: String, _ fallback: Duration, in range: ClosedRange<Int>) throws(ConfigurationError) -> Duration {
            .milliseconds(try reader.integer(key, default: Int(fallback / .milliseconds(1)), in: range))
        }
        let configuration = AudioFallbackConfiguration(
            warningScore: try reader.number("warningScore", default: defaults.warningScore, in: 0...100),
            disableScore: try reader.number("disableScore", default: defaults.disableScore, in: 0...100),
            recoveryScore: try reader.number("recoveryScore", default: defaults.recoveryScore, in: 0...100),
            warnAfter: try milliseconds("warnAfterMs", defaults.warnAfter, in: 0...600_000),
            disableAfter: try milliseconds("disableAfterMs", defaults.disableAfter, in: 0...600_000),
            liftAfter: try milliseconds("liftAfterMs", defaults.liftAfter, in: 0...600_000),
            recoverAfter: try milliseconds("recoverAfterMs", defaults.recoverAfter, in: 0...600_000),
            backoffWindow: try milliseconds("backoffWindowMs", defaults.backoffWindow, in: 0...3_600_000),
            backoffFactor: try reader.number("backoffFactor", default: defaults.backoffFactor, in: 1...100),
            maximumRecoverAfter: try milliseconds("maxRecoverAfterMs", defaults.maximumRecoverAfter, in: 0...3_600_000),
            probeBitrate: try reader.integer("probeBitrate", default: defaults.probeBitrate, in: 10_000...100_000_000),
            probeDeliveredShare: try reader.number("probeDeliveredShare", default: defaults.probeDeliveredShare, in: 0.01...1),
            smoothing: try reader.number("smoothing", default: defaults.smoothing, in: 0.01...1),
            publisherSampleInterval: try milliseconds("publisherSampleIntervalMs", defaults.publisherSampleInterval, in: 100...60_000))
        try reader.finish()
        if let problem = configuration.problem {
            throw ConfigurationError(keyPath: reader.path, problem: problem)
        }
        return configuration
    }
}
