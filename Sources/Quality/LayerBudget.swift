/// Shares one subscriber's downlink estimate among the simulcast video it receives: which spatial
/// layer each stream may have. Pure; the router runs it a few times a second, never per packet.
///
/// Keeping what flows needs only the estimate itself; moving any stream up needs `upHeadroom` times
/// what the result would cost, so a link near a boundary does not flap. When what flows does not
/// fit, the stream on the highest layer steps down first (each step frees the most and the picture
/// that loses least); upgrades go one step at a time to the stream on the lowest layer, so a weak
/// link spreads what it has instead of giving one tile everything.
public enum LayerBudget {
    /// One simulcast stream's demand: what each of its layers costs, up to the highest one the
    /// subscriber's preference allows, and the layer it is on now.
    public struct Demand: Equatable, Sendable {
        /// Bits per second of each layer from the lowest up, the last one being the preference's cap.
        public var layerBitrates: [Double]
        /// The layer the stream targets now (an index into `layerBitrates`, clamped to it).
        public var currentLayer: Int

        public init(layerBitrates: [Double], currentLayer: Int) {
            self.layerBitrates = layerBitrates
            self.currentLayer = currentLayer
        }
    }

    /// The layer each demand may have. `available` is what the link carries in bits per second, less
    /// what is not simulcast (audio, single-encoding video); nil means no estimate limits it, and every
    /// demand gets its cap. A demand whose lowest layer does not fit keeps the lowest layer: turning
    /// video off is the audio-fallback policy's decision, not the budget's.
    public static func allocate(available: Double?, demands: [Demand], upHeadroom: Double = 1.15) -> [Int] {
        var layers = demands.map { demand in min(max(demand.currentLayer, 0), max(demand.layerBitrates.count - 1, 0)) }
        guard let available else { return demands.map { max($0.layerBitrates.count - 1, 0) } }
        func cost(_ layers: [Int]) -> Double {
            zip(demands, layers).reduce(0) { sum, pair in sum + (pair.0.layerBitrates.isEmpty ? 0 : pair.0.layerBitrates[pair.1]) }
        }
        var total = cost(layers)
        while total > available {
            guard let highest = layers.indices.filter({ layers[$0] > 0 }).max(by: { layers[$0] < layers[$1] }) else { break }
            total -= demands[highest].layerBitrates[layers[highest]] - demands[highest].layerBitrates[layers[highest] - 1]
            layers[highest] -= 1
        }
        while true {
            let candidates = layers.indices.filter { layers[$0] + 1 < demands[$0].layerBitrates.count }
            guard let lowest = candidates.min(by: { layers[$0] < layers[$1] }) else { break }
            let step = demands[lowest].layerBitrates[layers[lowest] + 1] - demands[lowest].layerBitrates[layers[lowest]]
            guard (total + step) * upHeadroom <= available else { break }
            total += step
            layers[lowest] += 1
        }
        return layers
    }
}
