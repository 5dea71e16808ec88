/// One endpoint's waiting events, a lane per session: a session's events go one at a time in
/// order, and up to `concurrency` sessions' lanes deliver at once. Holds at most `capacity` events.
struct EndpointQueue {
    let capacity: Int
    let concurrency: Int
    private var lanes: [String: [WebhookRecord]] = [:]
    /// Lanes whose delivery has started (they may still wait for an earlier node's events).
    private(set) var active: Set<String> = []
    /// Active lanes whose head has gone out at least once: it stays first whatever arrives.
    private var sending: Set<String> = []
    /// Lanes with events and no delivery under way, oldest first.
    private var waiting: [String] = []
    private(set) var depth = 0

    init(capacity: Int, concurrency: Int) {
        self.capacity = capacity
        self.concurrency = concurrency
    }

    /// Queues a record behind the earlier events of its session; false when the queue is full.
    /// A record taken over from another node may be older than what waits: it goes before it,
    /// though not before a head already sent.
    mutating func enqueue(_ record: WebhookRecord) -> Bool {
        guard depth < capacity else { return false }
        var lane = lanes[record.sessionKey] ?? []
        let firstMovable = sending.contains(record.sessionKey) ? 1 : 0
        var index = lane.count
        while index > firstMovable, lane[index - 1].order > record.order { index -= 1 }
        lane.insert(record, at: index)
        if lanes[record.sessionKey] == nil, !active.contains(record.sessionKey) { waiting.append(record.sessionKey) }
        lanes[record.sessionKey] = lane
        depth += 1
        return true
    }

    /// The lanes that may start delivering now, marked active.
    mutating func start() -> [String] {
        var started: [String] = []
        while active.count < concurrency, !waiting.isEmpty {
            let lane = waiting.removeFirst()
            active.insert(lane)
            started.append(lane)
        }
        return started
    }

    func head(of lane: String) -> WebhookRecord? {
        lanes[lane]?.first
    }

    /// The lane's head is about to go out: from now on it stays first.
    mutating func beginSending(_ lane: String) -> WebhookRecord? {
        guard active.contains(lane), let head = lanes[lane]?.first else { return nil }
        sending.insert(lane)
        return head
    }

    /// Removes a lane's head once it is settled; an emptied lane stops, freeing its place.
    mutating func settleHead(of lane: String) {
        guard var records = lanes[lane], !records.isEmpty else { return }
        records.removeFirst()
        depth -= 1
        if records.isEmpty {
            lanes[lane] = nil
            active.remove(lane)
            sending.remove(lane)
        } else {
            lanes[lane] = records
        }
    }

    /// When the oldest waiting event happened (milliseconds since the epoch).
    var oldestTime: Int64? {
        lanes.values.compactMap { $0.first?.time }.min()
    }
}
