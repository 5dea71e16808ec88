/// How many bytes of retransmissions a subscriber's path can take: a token bucket filled at the
/// path's estimated rate, as libwebrtc bounds its retransmissions by its target rate. Without it a
/// subscriber behind a cap NACKs what the cap dropped, the resends crowd the cap further, and the
/// router sends many times what the path carries (seen: 4 Mbit/s into 300 kbit/s).
public struct RetransmissionBudget: Equatable, Sendable {
    /// Seconds of the estimated rate the bucket holds: the burst of resends one loss event may take.
    public static let depthSeconds = 0.5
    /// The least the bucket holds, so a low estimate still lets a few packets through.
    public static let minimumDepthBytes = 12_000.0

    /// Bytes per second the bucket fills at; nil while nothing estimates the path (no bound).
    public private(set) var bytesPerSecond: Double?
    private var tokens = Self.minimumDepthBytes
    private var filledAt: UInt64?

    public init() {}

    /// The path's estimate changed (or went: nil).
    public mutating func setRate(bitsPerSecond: Double?, now: UInt64) {
        fill(now: now)
        bytesPerSecond = bitsPerSecond.map { max($0, 0) / 8 }
        tokens = min(tokens, depth)
    }

    /// Whether a retransmission of `bytes` may go now; if so, it is taken from the budget.
    public mutating func spend(_ bytes: Int, now: UInt64) -> Bool {
        guard bytesPerSecond != nil else { return true }
        fill(now: now)
        guard tokens >= Double(bytes) else { return false }
        tokens -= Double(bytes)
        return true
    }

    private var depth: Double {
        max((bytesPerSecond ?? 0) * Self.depthSeconds, Self.minimumDepthBytes)
    }

    private mutating func fill(now: UInt64) {
        defer { filledAt = now }
        guard let filledAt, let bytesPerSecond, now > filledAt else { return }
        tokens = min(tokens + bytesPerSecond * Double(now - filledAt) / 1e9, depth)
    }
}
