import Signaling

/// Activities recorded and not yet in the outbox, bounded: past `capacity` new ones are dropped
/// and counted, so a stalled database cannot make signaling hold more.
struct WebhookIntake {
    let capacity: Int
    private var pending: [SessionActivity] = []
    private(set) var dropped: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func offer(_ activity: SessionActivity) -> Bool {
        guard pending.count < capacity else {
            dropped += 1
            return false
        }
        pending.append(activity)
        return true
    }

    mutating func takeAll() -> [SessionActivity] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }
}
