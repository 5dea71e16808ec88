import SignalingProtocol
import SwitchyardClient

/// What the simulcast scenario measured: per subscriber, the layer its preference picks and the one
/// it decoded, its layer changes, and for an impaired one how fast the decoded picture followed the
/// cap down and back up (from the timeline's decoded widths, sampled every 250 ms).
struct SimulcastAnalysis {
    let options: BenchOptions
    let start: UInt64

    /// The layers' pictures, lowest first.
    var layerSizes: [VideoDimensions] {
        options.simulcastLowerLayers.map { VideoDimensions(width: $0.width, height: $0.height) }
            + [VideoDimensions(width: options.width, height: options.height)]
    }

    /// The width the router should send for `preference`: the highest layer within it, else the lowest.
    func expectedWidth(for preference: VideoDimensions?) -> Int {
        guard let preference else { return options.width }
        return (layerSizes.last { $0.width <= preference.width && $0.height <= preference.height } ?? layerSizes[0]).width
    }

    func analyse(
        _ subscribers: [TrackedSubscriber], series: [BenchReport.TimelineSeries], before: [SubscriberMediaStatistics],
        after: [SubscriberMediaStatistics]
    ) -> BenchReport.Simulcast {
        let drop = options.schedule.steps.first { $0.impairment.bandwidth > 0 && Double($0.impairment.bandwidth) < Double(options.videoBitrate) * 1.2 }
        let rise = drop.flatMap { drop in options.schedule.steps.first { $0.startSeconds > drop.startSeconds && ($0.impairment.bandwidth == 0 || $0.impairment.bandwidth > drop.impairment.bandwidth) } }
        var result = BenchReport.Simulcast(
            layers: zip(layerSizes, options.simulcastLowerLayers.map(\.bitrate) + [options.videoBitrate]).map { "\($0.width)x\($0.height) \($1) bps" },
            schedule: options.schedule.description, capDropSeconds: drop?.startSeconds, capRiseSeconds: rise?.startSeconds, subscribers: [],
            rightLayer: 0, cleanSubscribers: 0)
        for (index, tracked) in subscribers.enumerated() {
            let media = after[index].subtracting(before[index])
            var entry = BenchReport.SimulcastSubscriber(
                subscriber: tracked.label, impaired: tracked.isImpaired,
                preference: tracked.preference.map { "\($0.width)x\($0.height)" } ?? "best", expectedWidth: expectedWidth(for: tracked.preference),
                finalWidth: after[index].decodedWidth,
                framesByWidth: Dictionary(
                    uniqueKeysWithValues: after[index].framesDecodedByWidth.map { width, frames in
                        ("\(width)", frames - (before[index].framesDecodedByWidth[width] ?? 0))
                    }.filter { $0.1 > 0 }),
                layerChanges: tracked.layerChanges(since: 0).map { change in
                    BenchReport.SimulcastSubscriber.LayerChange(
                        seconds: (Double(change.at) - Double(start)) / 1e9, layer: Self.describe(change.change.layer),
                        target: Self.describe(change.change.targetLayer), reason: change.change.reason)
                },
                freezes: media.freezeCount, decodeErrors: media.decodeErrors, counterMismatches: media.counterMismatches,
                pictureIDGaps: media.pictureIDGaps)
            if tracked.isImpaired, let points = series.first(where: { $0.subscriber == tracked.label })?.points, let drop {
                let widthBefore = points.last { $0.seconds < drop.startSeconds }?.decodedWidth ?? 0
                entry.downSwitchSeconds = points.first { $0.seconds >= drop.startSeconds && ($0.decodedWidth ?? 0) < widthBefore && ($0.decodedWidth ?? 0) > 0 }
                    .map { $0.seconds - drop.startSeconds }
                if let rise {
                    entry.upSwitchSeconds = points.first { $0.seconds >= rise.startSeconds && ($0.decodedWidth ?? 0) >= widthBefore }
                        .map { $0.seconds - rise.startSeconds }
                }
            } else if !tracked.isImpaired {
                result.cleanSubscribers += 1
                if entry.finalWidth == entry.expectedWidth { result.rightLayer += 1 }
            }
            result.subscribers.append(entry)
        }
        return result
    }

    private static func describe(_ layer: VideoLayerInfo?) -> String {
        layer.map { "\($0.width)x\($0.height)@\(Int($0.frameRate.rounded()))" } ?? "none"
    }
}
