import MediaRouter

extension SwitchyardConfiguration {
    /// Reads `media.overload`: overload shedding and admission (docs/capacity.md#overload).
    static func overloadShedding(_ reader: inout ConfigurationReader) throws(ConfigurationError) -> OverloadShedding {
        let defaults = OverloadShedding()
        let shedding = OverloadShedding(
            enabled: try reader.boolean("enabled", default: defaults.enabled),
            videoQueueLimit: try reader.milliseconds("videoQueueLimitMs", default: defaults.videoQueueLimit, in: 20...5000),
            audioQueueLimit: try reader.milliseconds("audioQueueLimitMs", default: defaults.audioQueueLimit, in: 20...5000),
            shedAbove: try reader.milliseconds("shedAboveMs", default: defaults.shedAbove, in: 5...1000),
            stepShare: try reader.number("stepShare", default: defaults.stepShare, in: 0.01...1),
            restoreAfter: try reader.milliseconds("restoreAfterMs", default: defaults.restoreAfter, in: 100...600_000),
            restoreBelowBusyShare: try reader.number("restoreBelowBusyShare", default: defaults.restoreBelowBusyShare, in: 0.1...1),
            forwardingBudget: try reader.integer("forwardingBudget", default: defaults.forwardingBudget, in: 0...100_000_000))
        try reader.finish()
        if shedding.audioQueueLimit < shedding.videoQueueLimit {
            throw ConfigurationError(
                keyPath: reader.path + ".audioQueueLimitMs", problem: "is below videoQueueLimitMs: audio would be dropped before video")
        }
        if shedding.shedAbove >= shedding.videoQueueLimit {
            throw ConfigurationError(
                keyPath: reader.path + ".shedAboveMs", problem: "is not below videoQueueLimitMs: video would be dropped late before any is turned off")
        }
        return shedding
    }
}
