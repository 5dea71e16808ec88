import Signaling

/// Where events wait until every endpoint that wants them has them: numbers each event in its
/// session and keeps it. In memory on a node alone (lost if the process dies); in a cluster, a
/// PostgreSQL table that a live node takes over when one dies (`Cluster`'s outbox).
public protocol WebhookOutbox: Sendable {
    /// Numbers `events` in their sessions, in order (and gives each its `order` among everything
    /// kept), and keeps one copy per endpoint named with it.
    func append(_ events: [OutboxEntry]) async throws -> [WebhookRecord]
    /// One endpoint is done with a record: delivered, refused for good, dropped or given up on.
    func settle(_ record: WebhookRecord, endpoint: String) async
    /// Returns once no other node still holds undelivered events of `sessionKey` for `endpoint`, so
    /// a session that moved here is delivered in order after what its old node had not delivered
    /// yet, and one endpoint's backlog there does not hold up the others here.
    func waitForEarlierNodes(sessionKey: String, endpoint: String) async
    /// Events that nodes found dead had not delivered, now this node's to deliver, in order.
    func takeOver() async -> [(record: WebhookRecord, endpoint: String)]
    /// "memory" or "database", for the status.
    var kind: String { get }
}

/// An event to keep, and the endpoints that want it.
public struct OutboxEntry: Sendable {
    public var activity: SessionActivity
    public var endpoints: [String]

    public init(activity: SessionActivity, endpoints: [String]) {
        self.activity = activity
        self.endpoints = endpoints
    }
}

/// The outbox of a node alone: sequence numbers in memory, nothing kept across a restart.
public actor MemoryWebhookOutbox: WebhookOutbox {
    private var lastSequences: [String: Int64] = [:]
    private var lastOrder: Int64 = 0
    private let nodeId: String?

    public init(nodeId: String? = nil) { self.nodeId = nodeId }

    public nonisolated var kind: String { "memory" }

    public func append(_ events: [OutboxEntry]) -> [WebhookRecord] {
        events.map { entry in
            let key = entry.activity.sessionId ?? ""
            let sequence = (lastSequences[key] ?? 0) + 1
            // A session created again later starts again at 1, as its `sessionCreated` says.
            if case .sessionDestroyed = entry.activity.event {
                lastSequences[key] = nil
            } else {
                lastSequences[key] = sequence
            }
            lastOrder += 1
            return WebhookRecord(entry.activity, id: WebhookRecord.makeId(), sequence: sequence, order: lastOrder, nodeId: nodeId)
        }
    }

    public func settle(_ record: WebhookRecord, endpoint: String) {}

    public func waitForEarlierNodes(sessionKey: String, endpoint: String) {}

    public func takeOver() -> [(record: WebhookRecord, endpoint: String)] { [] }
}
