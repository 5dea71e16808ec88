import MediaRouter
import Quality

extension SwitchyardConfiguration {
    /// Reads `media.audioFallback`: every threshold and timer of the policy (docs/audio-fallback.md).
    static func audioFallback(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> AudioFallbackConfiguration {
        let defaults = AudioFallbackConfiguration()
        let configuration = AudioFallbackConfiguration(
            warningScore: try reader.number("warningScore", default: defaults.warningScore, in: 0...100),
            disableScore: try reader.number("disableScore", default: defaults.disableScore, in: 0...100),
            recoveryScore: try reader.number("recoveryScore", default: defaults.recoveryScore, in: 0...100),
            warnAfter: try reader.milliseconds("warnAfterMs", default: defaults.warnAfter, in: 0...600_000),
            disableAfter: try reader.milliseconds("disableAfterMs", default: defaults.disableAfter, in: 0...600_000),
            liftAfter: try reader.milliseconds("liftAfterMs", default: defaults.liftAfter, in: 0...600_000),
            recoverAfter: try reader.milliseconds("recoverAfterMs", default: defaults.recoverAfter, in: 0...600_000),
            backoffWindow: try reader.milliseconds("backoffWindowMs", default: defaults.backoffWindow, in: 0...3_600_000),
            backoffFactor: try reader.number("backoffFactor", default: defaults.backoffFactor, in: 1...100),
            maximumRecoverAfter: try reader.milliseconds("maxRecoverAfterMs", default: defaults.maximumRecoverAfter, in: 0...3_600_000),
            probeBitrate: try reader.integer("probeBitrate", default: defaults.probeBitrate, in: 10_000...100_000_000),
            probeDeliveredShare: try reader.number("probeDeliveredShare", default: defaults.probeDeliveredShare, in: 0.01...1),
            smoothing: try reader.number("smoothing", default: defaults.smoothing, in: 0.01...1),
            publisherSampleInterval: try reader.milliseconds("publisherSampleIntervalMs", default: defaults.publisherSampleInterval, in: 100...60_000))
        try reader.finish()
        if let problem = configuration.problem {
            throw ConfigurationError(keyPath: reader.path, problem: problem)
        }
        return configuration
    }
}
