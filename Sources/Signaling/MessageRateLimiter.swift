/// A token bucket per connection: `burst` messages at once, refilled at `rate` per second. A client
/// over the limit gets `rateLimited` errors; one that keeps going for `violationsBeforeDisconnect`
/// refused messages in a row is disconnected.
public struct MessageRateLimiter: Sendable {
    public enum Decision: Equatable, Sendable {
        case accept
        case refuse
        case disconnect
    }

    public let rate: Double
    public let burst: Double
    public let violationsBeforeDisconnect: Int
    private var tokens: Double
    private var lastRefill: Duration?
    private var consecutiveViolations = 0

    public init(rate: Double, burst: Int, violationsBeforeDisconnect: Int) {
        self.rate = rate
        self.burst = Double(burst)
        self.violationsBeforeDisconnect = violationsBeforeDisconnect
        tokens = Double(burst)
    }

    /// Accounts for one message arriving at `now` (time since any fixed origin).
    public mutating func admit(now: Duration) -> Decision {
        if let lastRefill {
            let elapsedSeconds = (now - lastRefill) / .seconds(1)
            tokens = min(burst, tokens + max(0, elapsedSeconds) * rate)
        }
        lastRefill = now
        if tokens >= 1 {
            tokens -= 1
            consecutiveViolations = 0
            return .accept
        }
        consecutiveViolations += 1
        return consecutiveViolations >= violationsBeforeDisconnect ? .disconnect : .refuse
    }
}
