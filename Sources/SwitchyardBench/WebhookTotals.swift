import Webhooks

/// What `GET /v1/webhooks/status` says of some endpoints, summed (latencies and queues: the highest).
struct WebhookTotals {
    var delivered: UInt64 = 0
    var retries: UInt64 = 0
    var failures: [String: UInt64] = [:]
    var dropped: UInt64 = 0
    /// `dropped` by reason (`queueFull`, `rejected`, `expired`), and `atIntake` for the events the
    /// intake refused before any endpoint's queue.
    var droppedByReason: [String: UInt64] = [:]
    /// The longest of the endpoints' queues: each endpoint of each node is held to the bound alone.
    var largestQueue = 0
    var latencyP50Seconds: Double?
    var latencyP99Seconds: Double?

    /// The counts since `earlier` (a daemon that restarted meanwhile counts from 0 again).
    func since(_ earlier: WebhookTotals) -> WebhookTotals {
        func difference(_ later: UInt64, _ earlier: UInt64) -> UInt64 { later >= earlier ? later - earlier : later }
        func differences(_ later: [String: UInt64], _ earlier: [String: UInt64]) -> [String: UInt64] {
            later.map { ($0.key, difference($0.value, earlier[$0.key] ?? 0)) }
                .reduce(into: [:]) { result, pair in if pair.1 > 0 { result[pair.0] = pair.1 } }
        }
        var counts = self
        counts.delivered = difference(delivered, earlier.delivered)
        counts.retries = difference(retries, earlier.retries)
        counts.dropped = difference(dropped, earlier.dropped)
        counts.failures = differences(failures, earlier.failures)
        counts.droppedByReason = differences(droppedByReason, earlier.droppedByReason)
        return counts
    }

    mutating func add(_ endpoints: [WebhookEndpointStatus], droppedAtIntake: UInt64) {
        dropped += droppedAtIntake
        droppedByReason["atIntake", default: 0] += droppedAtIntake
        for endpoint in endpoints {
            delivered += endpoint.delivered
            retries += endpoint.retries
            failures.merge(endpoint.failures, uniquingKeysWith: +)
            dropped += endpoint.dropped.values.reduce(0, +)
            droppedByReason.merge(endpoint.dropped, uniquingKeysWith: +)
            largestQueue = max(largestQueue, endpoint.queued)
            latencyP50Seconds = [latencyP50Seconds, endpoint.latencyP50Seconds].compactMap { $0 }.max()
            latencyP99Seconds = [latencyP99Seconds, endpoint.latencyP99Seconds].compactMap { $0 }.max()
        }
    }
}
