import MediaControl
import Quality

/// The simulcast layers this transport's subscriber receives: the downlink estimate shared among its
/// simulcast consumers (`LayerBudget`), a few times a second, never per packet.
extension Transport {
    static let layerAllocationInterval: UInt64 = 100_000_000
    /// How long stepping down answers a warning (or a re-enable starts low) before the budget alone
    /// decides again.
    static let fallbackLayerHold: UInt64 = 10_000_000_000
    /// Loss above which a link without a bandwidth estimate is budgeted at what gets through.
    static let lossBudgetThreshold = 0.05

    /// How long a probe for a held-back layer lasts (long enough for the receiver's estimate to show it
    /// and the up-switch hold to pass), and how often one starts while a layer is held back.
    static let layerProbeDuration: UInt64 = 2_500_000_000
    static let layerProbeInterval: UInt64 = 5_000_000_000
    /// What a probe sends: the preferred layer's rate with this much headroom, less what flows.
    static let layerProbeHeadroom = 1.25

    /// Timer work: re-divides the budget when due, and probes for a held-back layer.
    func tickLayers(now: UInt64) {
        guard layeredConsumerCount > 0 else { return }
        if now &- lastLayerAllocationAt >= Self.layerAllocationInterval { allocateLayers(now: now) }
        probeForHeldBackLayer(now: now)
    }

    /// A receiver's estimate cannot show room it was never offered: while a simulcast consumer is
    /// held below its preference for bandwidth, every `layerProbeInterval` the router pads the
    /// stream up to what the preferred layer would need, for `layerProbeDuration`; one probe can so
    /// justify a move of several layers. The padding goes in the consumer's own sequence between
    /// frames, so receivers without RTX (plain transports) count it. A transport with transport-wide feedback probes through its own estimator instead.
    private func probeForHeldBackLayer(now: UInt64) {
        guard sendSideEstimation == nil, downlink.quality.loss < 0.02, fallbackLayerHold(now: now) != .lowest,
            let (consumer, bitrate) = layerProbeTarget(now: now)
        else {
            layerProbe = nil
            return
        }
        if layerProbe == nil {
            guard now >= nextLayerProbeAt else { return }
            layerProbe = (until: now + Self.layerProbeDuration, credit: 0, lastAt: now)
            nextLayerProbeAt = now + Self.layerProbeInterval
        }
        guard var probe = layerProbe, now < probe.until else {
            layerProbe = nil
            return
        }
        let packetBytes = Double(consumer.probePacketBytes)
        probe.credit = min(probe.credit + bitrate / 8 * Double(now &- probe.lastAt) / 1e9, 8 * packetBytes)
        probe.lastAt = now
        while probe.credit >= packetBytes, consumer.sendInlineProbe(now: now) {
            probe.credit -= packetBytes
        }
        layerProbe = probe
    }

    /// The consumer held back for bandwidth and the padding rate that would show room for its
    /// preferred layer.
    private func layerProbeTarget(now: UInt64) -> (Consumer, Double)? {
        for consumer in consumersBySSRC.values where consumer.isForwarding {
            guard let selector = consumer.layerSelector, selector.reason == .bandwidth, let current = selector.current,
                let preferred = consumer.preferredLayer(now: now), preferred > current
            else { continue }
            let encodings = consumer.producer.encodings
            let missing = encodings[preferred].budgetedBitrate * Self.layerProbeHeadroom - encodings[current].budgetedBitrate
            if missing > 0 { return (consumer, missing) }
        }
        return nil
    }

    /// What the subscriber's simulcast video may use, in bits per second: the downlink estimate less
    /// the rest of what the transport forwards. Nil (no limit) when there is no estimate and the link
    /// loses little; with heavy loss and no estimate, what gets through.
    var layerBudget: Double? {
        let quality = downlink.quality
        let total: Double
        if let estimated = quality.estimatedBitrate {
            total = estimated
        } else if quality.loss >= Self.lossBudgetThreshold, let delivered = quality.deliveredBitrate {
            total = delivered * (1 - quality.loss)
        } else {
            return nil
        }
        var fixed = 0.0
        for consumer in consumersBySSRC.values where consumer.layerSelector == nil && consumer.isForwarding {
            fixed += consumer.producer.encodings[0].measuredBitrate ?? 0
        }
        return max(0, total - fixed)
    }

    func allocateLayers(now: UInt64) {
        lastLayerAllocationAt = now
        var consumers: [(consumer: Consumer, preferred: Int, highestActive: Int)] = []
        var demands: [LayerBudget.Demand] = []
        for consumer in consumersBySSRC.values {
            guard let demand = consumer.layerDemand(now: now) else { continue }
            consumers.append((consumer, demand.preferred, demand.highestActive))
            demands.append(demand.demand)
        }
        let affordable = LayerBudget.allocate(available: layerBudget, demands: demands)
        let hold = fallbackLayerHold(now: now)
        for (entry, layer) in zip(consumers, affordable) {
            entry.consumer.applyLayers(
                preferred: entry.preferred, affordable: layer, highestActive: entry.highestActive, hold: hold, now: now)
        }
    }

    /// Whether video the policy turned off would come back on less than what failed: some simulcast
    /// consumer's preference allows a layer above the lowest.
    func videoReturnsLower(now: UInt64) -> Bool {
        guard layeredConsumerCount > 0 else { return false }
        return consumersBySSRC.values.contains { consumer in
            guard let selector = consumer.layerSelector, !selector.isPinned else { return false }
            return (consumer.preferredLayer(now: now) ?? 0) > 0
        }
    }

    /// The audio-fallback policy warned: when a simulcast consumer can still step down, that is the
    /// answer, and the warning is withdrawn unannounced. Returns whether it was.
    func absorbWarningByLayers(now: UInt64) -> Bool {
        let canStepDown = consumersBySSRC.values.contains { consumer in
            guard let selector = consumer.layerSelector, !selector.isPinned, consumer.isForwarding else { return false }
            return selector.target > 0 || (selector.current ?? 0) > 0
        }
        guard canStepDown else { return false }
        holdLayersLowest(now: now)
        downlink.withdrawWarning()
        return true
    }

    /// Keeps every simulcast consumer on its lowest layer for a while (a warning absorbed, or video
    /// coming back after the policy had it off).
    func holdLayersLowest(now: UInt64) {
        guard layeredConsumerCount > 0 else { return }
        layersHeldLowestUntil = now + Self.fallbackLayerHold
        allocateLayers(now: now)
    }

    /// Video came back after the policy had it off: the lowest layer first, then every layer but the
    /// top one for as long as the policy's back-off says (as long as the lowest-layer hold the first
    /// time, longer after each quick re-disable), so a link that comes and goes gets video back in
    /// every clean spell without full quality flapping with it.
    func holdLayersAfterReturn(now: UInt64) {
        guard layeredConsumerCount > 0 else { return }
        let hold = downlink.policy.fullQualityHold(base: .nanoseconds(Int64(Self.fallbackLayerHold)))
        topLayersWithheldUntil = now + UInt64(max(0, hold.nanoseconds))
        holdLayersLowest(now: now)
    }

    private func fallbackLayerHold(now: UInt64) -> FallbackLayerHold {
        if let until = layersHeldLowestUntil, now < until { return .lowest }
        if let until = topLayersWithheldUntil, now < until { return .belowTop }
        return .none
    }
}
