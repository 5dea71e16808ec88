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
///
/// A receiver that has just become able to forward (a new subscriber, or a WebRTC subscriber whose
/// keys now exist) has seen no key frame yet, and the interval protects the publisher from floods of
/// requests, not from that first one: its request waits only for `newReceiverInterval` after the
/// last one sent, so a crowd joining at once still costs the publisher at most one request per
/// `newReceiverInterval`.
struct KeyFrameRequestThrottle: Sendable {
    /// Least nanoseconds between two requests sent to the publisher.
    let interval: UInt64
    /// Least nanoseconds between two requests when the later one is for a new receiver.
    let newReceiverInterval: UInt64

    /// The default `newReceiverInterval`: 100 ms, a few frames.
    static let defaultNewReceiverInterval: UInt64 = 100_000_000

    /// When the last request was sent, nil before the first.
    private(set) var lastSentAt: UInt64?
    /// When the last key frame arrived, nil before the first.
    private(set) var lastKeyFrameAt: UInt64?
    /// Whether a request is waiting for the interval to pass.
    var isPending: Bool { pendingAfter != nil }
    /// How long after the last sent request the pending one goes out; nil when none is pending.
    private var pendingAfter: UInt64?
    /// Requests sent to the publisher.
    private(set) var sentCount = 0
    /// Requests that did not cause a send of their own (`request(now:)` returned false).
    private(set) var deferredCount = 0

    /// - Parameters:
    ///   - interval: Least nanoseconds between two requests sent to the publisher.
    ///   - newReceiverInterval: Least nanoseconds before a new receiver's request; at most `interval`.
    init(interval: UInt64, newReceiverInterval: UInt64 = defaultNewReceiverInterval) {
        self.interval = interval
        self.newReceiverInterval = min(interval, newReceiverInterval)
    }

    /// When `due(now:)` will next return true, for the caller's timer; nil when nothing is pending.
    var deadline: UInt64? {
        guard let pendingAfter, let last = lastSentAt else { return nil }
        return last &+ pendingAfter
    }

    /// Asks for a key frame.
    ///
    /// - Parameter forNewReceiver: The request is the first of a receiver that has just become
    ///   able to forward; it waits only `newReceiverInterval` after the last request sent.
    /// - Returns: True when the caller should send a request to the publisher now; false when the
    ///   request was folded into the last one or deferred until `due(now:)`.
    mutating func request(now: UInt64, forNewReceiver: Bool = false) -> Bool {
        let wait = forNewReceiver ? newReceiverInterval : interval
        if hasPassed(wait, now: now) {
            send(now: now)
            return true
        }
        deferredCount += 1
        pendingAfter = min(pendingAfter ?? wait, wait)
        return false
    }

    /// Whether a deferred request should be sent now; true once per pending request.
    mutating func due(now: UInt64) -> Bool {
        guard let pendingAfter, hasPassed(pendingAfter, now: now) else { return false }
        send(now: now)
        return true
    }

    /// A key frame arrived from the publisher: it answers any pending request.
    mutating func keyFrameReceived(now: UInt64) {
        lastKeyFrameAt = now
        pendingAfter = nil
    }

    /// Whether `wait` nanoseconds have passed since the last request sent.
    private func hasPassed(_ wait: UInt64, now: UInt64) -> Bool {
        guard let last = lastSentAt else { return true }
        // A monotonic clock does not run backwards; if it did, stay inside the interval.
        return now >= last && now - last >= wait
    }

    private mutating func send(now: UInt64) {
        lastSentAt = now
        pendingAfter = nil
        sentCount += 1
    }
}
