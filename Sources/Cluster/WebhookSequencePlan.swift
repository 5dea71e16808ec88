/// How one batch of webhook events is numbered in their sessions, so the whole batch costs a few
/// statements instead of one per event. A session's events continue its stored counter until a
/// `sessionDestroyed`, which ends it: what follows in the same batch (a session created again under
/// the same id) starts again at 1, as the memory outbox does.
struct WebhookSequencePlan {
    /// Per session key, in key order (the order rows are locked in, so two nodes never deadlock):
    /// how many events continue the stored counter, up to and including the first `sessionDestroyed`.
    private(set) var continuing: [(key: String, count: Int64)] = []
    /// Sessions a `sessionDestroyed` in the batch ended, with nothing after it: their counters go.
    private(set) var ended: [String] = []
    /// Sessions created again after a `sessionDestroyed` in the batch: their counters restart at this.
    private(set) var restarted: [(key: String, lastSequence: Int64)] = []
    private var slots: [Slot] = []

    private enum Slot {
        /// The event is the `offset`th (from 1) of its session's events that continue the counter.
        case continuing(key: String, offset: Int64)
        case restarted(sequence: Int64)
    }

    /// - Parameter events: each event's session key and whether it is a `sessionDestroyed`, in order.
    init(_ events: [(sessionKey: String, endsSession: Bool)]) {
        var continuingCounts: [String: Int64] = [:]
        // For sessions already ended in this batch: their events since the last end.
        var sinceEnd: [String: Int64] = [:]
        for (key, endsSession) in events {
            if let count = sinceEnd[key] {
                slots.append(.restarted(sequence: count + 1))
                sinceEnd[key] = endsSession ? 0 : count + 1
            } else {
                let offset = continuingCounts[key, default: 0] + 1
                continuingCounts[key] = offset
                slots.append(.continuing(key: key, offset: offset))
                if endsSession { sinceEnd[key] = 0 }
            }
        }
        continuing = continuingCounts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        ended = sinceEnd.filter { $0.value == 0 }.keys.sorted()
        restarted = sinceEnd.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Each event's sequence, given each continuing session's counter once the batch's `continuing`
    /// counts were added to it.
    func sequences(lastStored: [String: Int64]) -> [Int64] {
        let counts = Dictionary(uniqueKeysWithValues: continuing.map { ($0.key, $0.count) })
        return slots.map { slot in
            switch slot {
            case .continuing(let key, let offset): lastStored[key, default: counts[key]!] - counts[key]! + offset
            case .restarted(let sequence): sequence
            }
        }
    }
}
