/// When a failed delivery is tried again: exponential back-off from `initialDelay`, doubling up to
/// `maximumDelay`, each delay drawn between half and all of its step so that many events retried
/// together spread out ("full jitter" would let some retry at once); after `giveUpAfter` since the
/// first attempt the event is dropped and counted.
public struct WebhookRetryPolicy: Equatable, Sendable {
    public var initialDelay: Duration
    public var maximumDelay: Duration
    public var giveUpAfter: Duration

    public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60), giveUpAfter: Duration = .seconds(86_400)) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.giveUpAfter = giveUpAfter
    }

    /// The wait before attempt `attempt + 1` (`attempt` failed ones so far, from 1); `jitter` in
    /// 0..<1 picks where in the step's upper half it falls.
    public func delay(afterFailedAttempts attempt: Int, jitter: Double) -> Duration {
        let doublings = min(max(attempt - 1, 0), 30)
        let step = min(initialDelay * (1 << doublings), maximumDelay)
        return step * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }
}
