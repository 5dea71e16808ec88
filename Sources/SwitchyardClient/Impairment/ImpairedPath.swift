/// Decides the fate of each packet on one impaired direction: lost, or delivered at a given time.
/// Deterministic for a seed, and driven by the caller's clock, so tests need neither sleep nor luck.
public struct ImpairedPath: Sendable {
    public private(set) var impairment: NetworkImpairment
    private var random: SplitMix64
    private var isInLossBurst = false
    /// When the bandwidth-limited link finishes sending what is queued.
    private var linkFreeAt: UInt64 = 0
    /// When the last packet was delivered, so that jitter never reorders.
    private var lastDeliveryAt: UInt64 = 0
    public private(set) var lostCount: UInt64 = 0
    public private(set) var queueDropCount: UInt64 = 0

    public init(impairment: NetworkImpairment = .clean, seed: UInt64) {
        self.impairment = impairment
        random = SplitMix64(seed: seed)
    }

    public mutating func change(to impairment: NetworkImpairment) {
        self.impairment = impairment
    }

    /// When a packet of `length` bytes sent at `now` arrives, or nil when it is lost.
    public mutating func deliveryTime(length: Int, now: UInt64) -> UInt64? {
        if isLost() {
            lostCount += 1
            return nil
        }
        var departure = now
        if impairment.bandwidth > 0 {
            let start = max(now, linkFreeAt)
            let queueLimit = UInt64(impairment.queueMilliseconds * 1_000_000)
            if start - now > queueLimit {
                queueDropCount += 1
                return nil
            }
            linkFreeAt = start + UInt64(length * 8) * 1_000_000_000 / UInt64(impairment.bandwidth)
            departure = linkFreeAt
        }
        var delay = impairment.delayMilliseconds
        if impairment.jitterMilliseconds > 0 {
            delay += (random.nextUnit() * 2 - 1) * impairment.jitterMilliseconds
        }
        let arrival = max(departure + UInt64(max(0, delay) * 1_000_000), lastDeliveryAt)
        lastDeliveryAt = arrival
        return arrival
    }

    private mutating func isLost() -> Bool {
        let loss = impairment.loss
        guard loss > 0 else {
            isInLossBurst = false
            return false
        }
        guard loss < 1 else { return true }
        let burst = impairment.meanBurstPackets
        guard burst > 1 else { return random.nextUnit() < loss }
        // Two states: leave a burst with probability 1/burst, enter one so that the long-run share
        // of lost packets is `loss`.
        if isInLossBurst {
            if random.nextUnit() < 1 / burst { isInLossBurst = false }
        } else if random.nextUnit() < loss / (burst * (1 - loss)) {
            isInLossBurst = true
        }
        return isInLossBurst
    }
}

/// A small, fast, seedable generator (SplitMix64), so each path's losses repeat for a given seed.
struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}
