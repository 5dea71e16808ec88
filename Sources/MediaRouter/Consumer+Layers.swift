import MediaControl
import Quality

/// Layer selection of a consumer of a simulcast producer: what its preference allows, what it asks
/// of the downlink budget, and the events that tell its subscriber which layer it receives.
extension Consumer {
    /// Where the consumer stands among the producer's layers; nil for one encoding.
    var layerState: VideoLayerState? {
        guard let selector = layerSelector else { return nil }
        let count = producer.encodings[currentEncoding].temporalLayerCount
        return VideoLayerState(
            currentLayer: isForwarding ? selector.current : nil, targetLayer: selector.target,
            temporalLayer: min(temporalLayer, count - 1), temporalLayerCount: count, reason: selector.reason.rawValue)
    }

    /// The highest active layer the preference allows: the highest whose picture is within the
    /// preferred size in both dimensions, else the lowest active one. Nil while no layer arrives.
    func preferredLayer(now: UInt64) -> Int? {
        preferredLayer(among: producer.encodings.lazy.filter { $0.isActive(now: now) })
    }

    /// The layer the preference alone would allow had the publisher not stopped any layer it sent:
    /// above `preferredLayer(now:)` when a stopped layer holds the subscriber back.
    func preferredLayerIfNoneStopped() -> Int? {
        preferredLayer(among: producer.encodings.lazy.filter(\.hasArrived))
    }

    private func preferredLayer(among encodings: some Sequence<ProducerEncoding>) -> Int? {
        var lowest: Int?
        var fitting: Int?
        for encoding in encodings {
            lowest = lowest ?? encoding.index
            // A layer whose picture is not known yet (no key frame seen, none declared) is taken to
            // fit until its first key frame says otherwise.
            guard let size = encoding.pictureWidthAndHeight else {
                fitting = encoding.index
                continue
            }
            if size.width <= layerPreference.maximumWidth ?? .max, size.height <= layerPreference.maximumHeight ?? .max {
                fitting = encoding.index
            }
        }
        return fitting ?? lowest
    }

    /// What this consumer asks of its transport's budget, or nil when it asks nothing now (no layer
    /// arrives, or a person's choice has it off).
    func layerDemand(now: UInt64) -> (demand: LayerBudget.Demand, preferred: Int, highestActive: Int)? {
        guard let selector = layerSelector, !selector.isPinned, !isPausedByChoice, let preferred = preferredLayer(now: now),
            let highestActive = producer.encodings.last(where: { $0.isActive(now: now) })?.index
        else { return nil }
        let bitrates = producer.encodings[0...preferred].map(\.budgetedBitrate)
        return (LayerBudget.Demand(layerBitrates: bitrates, currentLayer: selector.target), preferred, highestActive)
    }

    /// Moves the target to what the preference and the budget allow, asks for the target's key
    /// frame while it is not the layer flowing, and picks the temporal layer.
    func applyLayers(preferred: Int, affordable: Int, highestActive: Int, hold: FallbackLayerHold, now: UInt64) {
        guard layerSelector != nil else { return }
        _ = layerSelector!.update(
            preferred: preferred, affordable: affordable, highestActive: highestActive, hold: hold,
            preferredIfNoneStopped: preferredLayerIfNoneStopped() ?? preferred, now: now)
        if isForwarding, layerSelector!.current != layerSelector!.target {
            // A subscriber whose layer stopped sees a frozen picture: its request is as urgent as a
            // new receiver's.
            let isStarved = layerSelector!.current.map { !producer.encodings[$0].isActive(now: now) } ?? false
            producer.requestKeyFrame(encoding: layerSelector!.target, now: now, forNewReceiver: isStarved)
        }
        let encoding = producer.encodings[currentEncoding]
        targetTemporalLayer =
            layerPreference.maximumFrameRate == nil
            ? .max
            : SimulcastLayerSelector.temporalLayer(
                preferredFrameRate: layerPreference.maximumFrameRate, frameRate: encoding.frameRate,
                temporalLayerCount: encoding.temporalLayerCount)
        announceLayerState()
    }

    /// Tells signaling when the layer state changed since the last time.
    func announceLayerState() {
        guard let state = layerState, state != announcedLayerState else { return }
        announcedLayerState = state
        transport.worker.events.yield(.consumerLayerChanged(id, state))
    }
}
