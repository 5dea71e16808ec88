/// The fault-injection policer: a token bucket that lets through `bitsPerSecond` with bursts of up
/// to `burstSeconds` of it and drops the rest, as a rate-limited network path does.
struct FaultRateCap {
    static let allowedBitrates = 8_000...10_000_000_000
    static let burstSeconds = 0.05

    let bitsPerSecond: Int
    private var tokens: Double
    private var refilledAt: UInt64

    init(bitsPerSecond: Int, now: UInt64) {
        self.bitsPerSecond = bitsPerSecond
        tokens = Self.burstBytes(bitsPerSecond)
        refilledAt = now
    }

    /// Whether a packet of `bytes` passes now; a fault-injection aid, so it reads the clock itself.
    mutating func admits(bytes: Int, now: UInt64 = MediaClock.monotonicNow()) -> Bool {
        let rate = Double(bitsPerSecond) / 8
        tokens = min(Self.burstBytes(bitsPerSecond), tokens + rate * Double(now &- refilledAt) / 1e9)
        refilledAt = now
        guard tokens >= Double(bytes) else { return false }
        tokens -= Double(bytes)
        return true
    }

    private static func burstBytes(_ bitsPerSecond: Int) -> Double { max(Double(bitsPerSecond) / 8 * burstSeconds, 1500) }
}
