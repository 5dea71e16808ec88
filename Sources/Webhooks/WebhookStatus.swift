/// What `GET /v1/webhooks/status` answers and the metrics show: per endpoint, what waits and what
/// happened to what was sent.
public struct WebhookStatus: Codable, Equatable, Sendable {
    /// "memory" (a node alone: undelivered events die with the process) or "database" (a cluster's
    /// outbox in PostgreSQL).
    public var outbox: String
    /// Events refused before reaching any endpoint's queue because the intake was full.
    public var droppedAtIntake: UInt64
    public var endpoints: [WebhookEndpointStatus]
}

public struct WebhookEndpointStatus: Codable, Equatable, Sendable {
    public var name: String
    public var url: String
    /// Events waiting, in flight and retrying included.
    public var queued: Int
    /// Sessions whose events are being delivered now.
    public var deliveringSessions: Int
    /// Seconds since the oldest waiting event happened; 0 with none.
    public var oldestUndeliveredSeconds: Double
    public var delivered: UInt64
    /// Attempts that are tried again.
    public var retries: UInt64
    /// Failed attempts by cause: `timeout`, `connection`, `status5xx`, `status408`, `status429`,
    /// and `rejected` (a final 4xx or other status).
    public var failures: [String: UInt64]
    /// Events given up on, by why: `queueFull`, `rejected`, `expired` (retried past `giveUpAfterSeconds`).
    public var dropped: [String: UInt64]
    /// Seconds from an event happening to its delivery, for the latest deliveries (up to 1,000):
    /// median and 99th percentile; nil before the first.
    public var latencyP50Seconds: Double?
    public var latencyP99Seconds: Double?
}
