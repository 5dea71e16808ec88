import SwitchyardClient

/// The simulcast scenario's stopped top layer: mid-run the publisher stops sending its top layer for
/// a while, as a browser's encoder does when its CPU or uplink cannot keep up. Every subscriber that
/// was decoding it must get the next layer's picture within 0.6 s, told `unavailable`; the freeze
/// that gap causes is counted here, apart from the run's other freezes.
struct TopLayerStop {
    let atSeconds: Double
    let forSeconds: Double
    /// How long after the stop a freeze is put down to it: long enough to reach the next layer's
    /// key frame, and over before the layer's return moves anyone back up (after the 1.5 s hold).
    var windowSeconds: Double { min(2.5, forSeconds) }

    private var stoppedAt: UInt64?
    private var before: [SubscriberMediaStatistics] = []
    private var isResumed = false
    private(set) var result: BenchReport.LayerStop?

    init(atSeconds: Double, forSeconds: Double) {
        self.atSeconds = atSeconds
        self.forSeconds = forSeconds
    }

    /// Stops the layer, reads the freezes its stop caused and restarts it, each when its time comes;
    /// called from the measurement loop with the seconds since the start.
    mutating func step(elapsed: Double, now: UInt64, publisher: Publisher, topLayer: Int, topWidth: Int, subscribers: [TrackedSubscriber]) async {
        guard elapsed >= atSeconds else { return }
        guard let stoppedAt else {
            before = await subscribers.asyncMap { await $0.subscriber.statistics() }
            publisher.setSendsVideoLayer(topLayer, false)
            self.stoppedAt = now
            return
        }
        if result == nil, elapsed >= atSeconds + windowSeconds {
            let after = await subscribers.asyncMap { await $0.subscriber.statistics() }
            var stop = BenchReport.LayerStop(atSeconds: atSeconds, forSeconds: forSeconds, windowSeconds: windowSeconds)
            for (index, subscriber) in subscribers.enumerated() {
                stop.freezes += after[index].freezeCount - before[index].freezeCount
                guard before[index].decodedWidth == topWidth else { continue }
                let reason = subscriber.layerChanges(since: stoppedAt).first { $0.change.targetLayer.width < topWidth }?.change.reason
                stop.subscribers.append(
                    BenchReport.LayerStop.Affected(
                        subscriber: subscriber.label, freezeSeconds: after[index].totalFreezeSeconds - before[index].totalFreezeSeconds,
                        decodedWidthAfter: after[index].decodedWidth, reason: reason))
            }
            result = stop
        }
        if !isResumed, elapsed >= atSeconds + forSeconds {
            publisher.setSendsVideoLayer(topLayer, true)
            isResumed = true
        }
    }
}
