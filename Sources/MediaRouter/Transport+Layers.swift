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

    /// Timer work: re-divides the budget when due.
    func tickLayers(now: UInt64) {
        guard hasLayeredConsumers, now &- lastLayerAllocationAt >= Self.layerAllocationInterval else { return }
        allocateLayers(now: now)
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
        for (ssrc, consumer) in consumersBySSRC where ssrc == consumer.ssrc && consumer.layerSelector == nil && consumer.isForwarding {
            fixed += consumer.producer.encodings[0].measuredBitrate ?? 0
        }
        return max(0, total - fixed)
    }

    func allocateLayers(now: UInt64) {
        lastLayerAllocationAt = now
        var consumers: [(consumer: Consumer, preferred: Int, highestActive: Int)] = []
        var demands: [LayerBudget.Demand] = []
        for (ssrc, consumer) in consumersBySSRC where ssrc == consumer.ssrc {
            guard let demand = consumer.layerDemand(now: now) else { continue }
            consumers.append((consumer, demand.preferred, demand.highestActive))
            demands.append(demand.demand)
        }
        let affordable = LayerBudget.allocate(available: layerBudget, demands: demands)
        let heldLowest = layersHeldLowestUntil.map { now < $0 } ?? false
        for (entry, layer) in zip(consumers, affordable) {
            entry.consumer.applyLayers(
                preferred: entry.preferred, affordable: layer, highestActive: entry.highestActive, heldLowest: heldLowest, now: now)
        }
    }

    /// The audio-fallback policy warned: when a simulcast consumer can still step down, that is the
    /// answer, and the warning is withdrawn unannounced. Returns whether it was.
    func absorbWarningByLayers(now: UInt64) -> Bool {
        let canStepDown = consumersBySSRC.values.contains { consumer in
            guard let selector = consumer.layerSelector, consumer.isForwarding else { return false }
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
        guard hasLayeredConsumers else { return }
        layersHeldLowestUntil = now + Self.fallbackLayerHold
        allocateLayers(now: now)
    }

    var hasLayeredConsumers: Bool {
        consumersBySSRC.values.contains { $0.layerSelector != nil }
    }
}
