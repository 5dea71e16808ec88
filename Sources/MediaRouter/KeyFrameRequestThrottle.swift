/// Folds the key-frame requests of one producer (PLI / FIR from any number of subscribers, consumers
/// starting or resuming) into at most one request to the publisher per `interval`.
///
/// The choice: the first request after a quiet `interval` goes out at once, because a subscriber
/// staring at a frozen picture should not wait. Requests within the `interval` after a sent one are
/// not dropped but remembered as one pending request, sent by `due(now:)` once the interval has
/// passed: a subscriber that joined just after the key frame was requested may not have been
/// forwarding when that key frame arrived. A key frame arriving meanwhile answers the pending
/// request too, since it is forwarded to every consumer that asked, so `keyFrameReceived(now:)`
/// cancels it. The interval is measured from the last request sent, never from the last key frame,
/// so the publisher sees at most one request per interval however quickly it answers, and an
/// encoder that cannot keep up is not asked again and again.
struct KeyFrameRequestThrottle: Sendable {
    /// Least nanoseconds between two requests sent to the publisher.
    let interval: UInt64

    /// When the last request was sent, nil before the first.
    private(set) var lastSentAt: UInt64?
    /// When the last key frame arrived, nil before the first.
    private(set) var lastKeyFrameAt: UInt64?
    /// Whether a request is waiting for the interval to pass.
    private(set) var isPending = false
    /// Requests sent to the publisher.
    private(set) var sentCount = 0
    /// Requests that did not cause a send of their own (`request(now:)` returned false).
    private(set) var deferredCount = 0

    /// - Parameter interval: Least nanoseconds between two requests sent to the publisher.
    init(interval: UInt64) {
        self.interval = interval
    }

    /// When `due(now:)` will next return true, for the caller's timer; nil when nothing is pending.
    var deadline: UInt64? {
        guard isPending, let last = lastSentAt else { return nil }
        return last &+ interval
    }

    /// Asks for a key frame.
    ///
    /// - Returns: True when the caller should send a request to the publisher now; false when the
    ///   request was folded into the last one or deferred until `due(now:)`.
    mutating func request(now: UInt64) -> Bool {
        if isIntervalOver(now: now) {
            send(now: now)
            return true
        }
        deferredCount += 1
        isPending = true
        return false
    }

    /// Whether a deferred request should be sent now; true once per pending request.
    mutating func due(now: UInt64) -> Bool {
        guard isPending, isIntervalOver(now: now) else { return false }
        send(now: now)
        return true
    }

    /// A key frame arrived from the publisher: it answers any pending request.
    mutating func keyFrameReceived(now: UInt64) {
        lastKeyFrameAt = now
        isPending = false
    }

    private func isIntervalOver(now: UInt64) -> Bool {
        guard let last = lastSentAt else { return true }
        // A monotonic clock does not run backwards; if it did, stay inside the interval.
        return now >= last && now - last >= interval
    }

    private mutating func send(now: UInt64) {
        lastSentAt = now
        isPending = false
        sentCount += 1
    }
}
