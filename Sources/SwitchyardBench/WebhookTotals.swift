import Webhooks

/// What `GET /v1/webhooks/status` says of some endpoints, summed (latencies: the highest).
struct WebhookTotals {
    var delivered: UInt64 = 0
    var retries: UInt64 = 0
    var failures: [String: UInt64] = [:]
    var dropped: UInt64 = 0
    var latencyP50Seconds: Double?
    var latencyP99Seconds: Double?

    /// The counts since `earlier` (a daemon that restarted meanwhile counts from 0 again).
    func since(_ earlier: WebhookTotals) -> WebhookTotals {
        func difference(_ later: UInt64, _ earlier: UInt64) -> UInt64 { later >= earlier ? later - earlier : later }
        var counts = self
        counts.delivered = difference(delivered, earlier.delivered)
        counts.retries = difference(retries, earlier.retries)
        counts.dropped = difference(dropped, earlier.dropped)
        counts.failures = failures.map { ($0.key, difference($0.value, earlier.failures[$0.key] ?? 0)) }
            .reduce(into: [:]) { result, pair in if pair.1 > 0 { result[pair.0] = pair.1 } }
        return counts
    }

    mutating func add(_ endpoints: [WebhookEndpointStatus], droppedAtIntake: UInt64) {
        dropped += droppedAtIntake
        for endpoint in endpoints {
            delivered += endpoint.delivered
            retries += endpoint.retries
            failures.merge(endpoint.failures, uniquingKeysWith: +)
            dropped += endpoint.dropped.values.reduce(0, +)
            latencyP50Seconds = [latencyP50Seconds, endpoint.latencyP50Seconds].compactMap { $0 }.max()
            latencyP99Seconds = [latencyP99Seconds, endpoint.latencyP99Seconds].compactMap { $0 }.max()
        }
    }
}
