import NIOCore

/// The signal ids one sender used lately (a connection, or the app's backend through REST in one
/// session), so a signal resent after a reconnection or a timeout (its reply was lost) is delivered
/// once. Bounded in count and in age; an id's age counts from its first send, so resending it does
/// not keep it longer.
struct RecentSignalIds {
    private var seenAt: [String: Int64] = [:]
    private var order = CircularBuffer<(id: String, milliseconds: Int64)>()
    private let capacity: Int
    private let windowMilliseconds: Int64

    init(capacity: Int, window: Duration) {
        self.capacity = capacity
        windowMilliseconds = window.components.seconds * 1000 + window.components.attoseconds / 1_000_000_000_000_000
    }

    /// Records `id` and says whether it is new: false when the same id came within the window.
    mutating func isFirstSighting(of id: String, nowMilliseconds now: Int64) -> Bool {
        while let oldest = order.first, now - oldest.milliseconds > windowMilliseconds { forgetOldest() }
        if seenAt[id] != nil { return false }
        while order.count >= capacity, !order.isEmpty { forgetOldest() }
        seenAt[id] = now
        order.append((id, now))
        return true
    }

    private mutating func forgetOldest() {
        let oldest = order.removeFirst()
        seenAt[oldest.id] = nil
    }
}
