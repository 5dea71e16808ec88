import Synchronization

/// What the webhooks scenario's churn did that the daemon must report: every session it created
/// and ended, every connection it opened and closed, written down when the daemon's answer came
/// back (so the event has happened by then).
final class WebhookChurnLog: Sendable {
    /// One event the daemon owes the receiver.
    struct ExpectedEvent: Hashable, Sendable {
        var sessionId: String
        /// `sessionCreated`, `sessionDestroyed`, `connectionCreated` or `connectionDestroyed`.
        var event: String
        /// The connection of a connection event.
        var connectionId: String?
    }

    struct Counts: Sendable {
        var expected: [ExpectedEvent] = []
        /// Subscribers that connected and that left, and connects that failed (with the first reasons).
        var joins = 0
        var leaves = 0
        var failures = 0
        var failureReasons: [String] = []
        /// Each subscriber's join, from sending `connect` to its reply, in milliseconds.
        var joinReplyMs: [Double] = []
    }

    private let counts = Mutex(Counts())

    var snapshot: Counts { counts.withLock { $0 } }

    /// A session's first client connected: the session was created for it.
    func sessionCreated(_ sessionId: String) {
        counts.withLock { $0.expected.append(ExpectedEvent(sessionId: sessionId, event: "sessionCreated")) }
    }

    /// A session's last client left.
    func sessionDestroyed(_ sessionId: String) {
        counts.withLock { $0.expected.append(ExpectedEvent(sessionId: sessionId, event: "sessionDestroyed")) }
    }

    /// `replyTime`: a subscriber's join, from sending `connect` to its reply.
    func connected(_ connectionId: String, in sessionId: String, subscriber: Bool, replyTime: Duration? = nil) {
        counts.withLock {
            $0.expected.append(ExpectedEvent(sessionId: sessionId, event: "connectionCreated", connectionId: connectionId))
            if subscriber { $0.joins += 1 }
            if let replyTime { $0.joinReplyMs.append(Double(replyTime.components.seconds) * 1000 + Double(replyTime.components.attoseconds) / 1e15) }
        }
    }

    func disconnected(_ connectionId: String, in sessionId: String, subscriber: Bool) {
        counts.withLock {
            $0.expected.append(ExpectedEvent(sessionId: sessionId, event: "connectionDestroyed", connectionId: connectionId))
            if subscriber { $0.leaves += 1 }
        }
    }

    func connectFailed(_ reason: String) {
        counts.withLock {
            $0.failures += 1
            if $0.failureReasons.count < 5 { $0.failureReasons.append(reason) }
        }
    }
}
