import SwitchyardClient

/// Sums up a red run: for the subscribers taking RED and those that do not, what the loss cost in
/// frames concealed (docs/benchmark.md, "red").
struct RedundantAudioAnalysis {
    let options: BenchOptions

    func analyse(_ subscribers: [TrackedSubscriber], before: [SubscriberMediaStatistics], after: [SubscriberMediaStatistics]) -> BenchReport.Red {
        var red = BenchReport.Red(
            schedule: options.schedule.description, source: options.redundancyFromRouter ? "router" : "publisher",
            redundantFrames: options.redundancyFromRouter ? 0 : options.redundantAudioFrames)
        for (index, subscriber) in subscribers.enumerated() {
            let media = after[index].subtracting(before[index])
            let lost = after[index].audio.packetsLost - before[index].audio.packetsLost
            if subscriber.subscriber.settings.receivesRedundantAudio {
                Self.add(media, lost: lost, to: &red.withRed)
            } else {
                Self.add(media, lost: lost, to: &red.withoutRed)
            }
        }
        if let with = red.withRed.concealedPercent, let without = red.withoutRed.concealedPercent, without > 0 {
            red.concealedReduction = 1 - with / without
        }
        return red
    }

    private static func add(_ media: SubscriberMediaStatistics, lost: Int64, to group: inout BenchReport.RedGroup) {
        group.subscribers += 1
        group.packetsLost += lost
        group.framesDecoded += media.audioFramesDecoded
        group.framesRecovered += media.audioFramesRecovered
        group.framesConcealed += media.audioFramesConcealed
        group.decodeErrors += media.decodeErrors
        let played = group.framesDecoded + group.framesConcealed
        group.concealedPercent = played > 0 ? 100 * Double(group.framesConcealed) / Double(played) : nil
    }
}
