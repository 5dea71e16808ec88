import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Signaling
import Synchronization

/// Delivers every session activity to the endpoints that want it (docs/webhooks.md): kept in the
/// outbox first, then per endpoint one lane per session, so a session's events arrive in order
/// while a slow session or endpoint holds up nobody else. Retried with back-off until delivered,
/// refused for good or given up on. `record` only queues, so signaling never waits for a receiver.
public actor WebhookDispatcher: SessionActivitySink, Service {
    public let configuration: WebhookConfiguration
    private let outbox: any WebhookOutbox
    /// Made when `run` starts and shut down when it ends: an HTTP client must not outlive its
    /// shutdown, and a dispatcher that never runs (a daemon that failed to start) holds none.
    private var client: HTTPClient?
    private let logger: Logger
    private let wallClock: @Sendable () -> Date
    /// How long a graceful shutdown waits for what is queued to be delivered.
    private let flushTime: Duration
    private nonisolated let intake: Mutex<WebhookIntake>
    private nonisolated let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    private var queues: [String: EndpointQueue] = [:]
    private var counters: [String: EndpointCounters] = [:]
    private var deliveries: [String: Task<Void, Never>] = [:]
    private var stopping = false
    /// Set by `checkForTakenOverEvents`: the outbox is asked at the next wake, not at every one.
    private var takeOverRequested = true
    /// While taken-over events are on their way into the queues (nil otherwise): lanes that finished
    /// waiting for earlier nodes meanwhile, resumed once those events are queued, since the claim
    /// that ended their wait may be this one.
    private var lanesAwaitingAdoption: [CheckedContinuation<Void, Never>]?

    public init(
        configuration: WebhookConfiguration, outbox: any WebhookOutbox, logger: Logger, flushTime: Duration = .seconds(5),
        wallClock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.outbox = outbox
        self.logger = logger
        self.flushTime = flushTime
        self.wallClock = wallClock
        intake = Mutex(WebhookIntake(capacity: configuration.maximumQueuedEvents))
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        for endpoint in configuration.endpoints {
            queues[endpoint.name] = EndpointQueue(
                capacity: configuration.maximumQueuedEvents, concurrency: configuration.maximumConcurrentDeliveries)
            counters[endpoint.name] = EndpointCounters()
        }
    }

    /// Queues an activity for the outbox; past the intake's bound it is dropped and counted.
    public nonisolated func record(_ activity: SessionActivity) {
        guard configuration.endpoints.contains(where: { $0.wants(activity.event.kind) }) else { return }
        let accepted = intake.withLock { $0.offer(activity) }
        if accepted { wake.yield() }
    }

    /// Runs until a graceful shutdown, then delivers what it can within the flush time.
    public func run() async throws {
        let endpointCount = max(configuration.endpoints.count, 1)
        client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .init(configuration.requestTimeout), read: .init(configuration.requestTimeout)),
                connectionPool: .init(
                    idleTimeout: .seconds(60),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maximumConcurrentDeliveries * endpointCount),
                decompression: .disabled))
        await withGracefulShutdownHandler {
            for await _ in wakes {
                await admitPending()
                if takeOverRequested {
                    takeOverRequested = false
                    await adoptTakenOver()
                }
            }
        } onGracefulShutdown: {
            self.wake.finish()
        }
        await admitPending()
        let deadline = ContinuousClock.now + flushTime
        while queues.values.contains(where: { $0.depth > 0 }), ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
        stopping = true
        for delivery in deliveries.values { delivery.cancel() }
        for delivery in deliveries.values { await delivery.value }
        try? await client?.shutdown()
        client = nil
    }

    /// Asks the outbox for events of dead nodes at the next wake; the cluster calls it after each
    /// heartbeat.
    public func checkForTakenOverEvents() {
        takeOverRequested = true
        wake.yield()
    }

    public func status() -> WebhookStatus {
        let now = nowMilliseconds
        return WebhookStatus(
            outbox: outbox.kind, droppedAtIntake: intake.withLock { $0.dropped },
            endpoints: configuration.endpoints.map { endpoint in
                let queue = queues[endpoint.name]!
                let counts = counters[endpoint.name]!
                return WebhookEndpointStatus(
                    name: endpoint.name, url: endpoint.url.absoluteString, queued: queue.depth, deliveringSessions: queue.active.count,
                    oldestUndeliveredSeconds: queue.oldestTime.map { Double(max(now - $0, 0)) / 1000 } ?? 0,
                    delivered: counts.delivered, retries: counts.retries, failures: counts.failures, dropped: counts.dropped,
                    latencyP50Seconds: counts.latencies.quantile(0.5), latencyP99Seconds: counts.latencies.quantile(0.99))
            })
    }

    private var nowMilliseconds: Int64 { Int64(wallClock().timeIntervalSince1970 * 1000) }

    // MARK: - Queuing

    private func admitPending() async {
        let pending = intake.withLock { $0.takeAll() }
        guard !pending.isEmpty else { return }
        let entries = pending.map { activity in
            OutboxEntry(
                activity: activity, endpoints: configuration.endpoints.filter { $0.wants(activity.event.kind) }.map(\.name))
        }
        let records: [WebhookRecord]
        do {
            records = try await outbox.append(entries)
        } catch {
            // The database is away: these are not kept, so they are counted as dropped rather
            // than delivered without the guarantee the outbox gives.
            logger.error("webhook events could not be kept in the outbox; dropped", metadata: ["events": "\(entries.count)", "error": "\(error)"])
            for entry in entries {
                for endpoint in entry.endpoints { counters[endpoint]?.dropped["outboxUnavailable", default: 0] += 1 }
            }
            return
        }
        for (record, entry) in zip(records, entries) {
            for endpoint in entry.endpoints { await enqueue(record, for: endpoint) }
        }
        startDeliveries()
    }

    private func adoptTakenOver() async {
        lanesAwaitingAdoption = []
        defer {
            for lane in lanesAwaitingAdoption ?? [] { lane.resume() }
            lanesAwaitingAdoption = nil
        }
        let adopted = await outbox.takeOver()
        guard !adopted.isEmpty else { return }
        logger.info("delivering webhook events a dead node left", metadata: ["events": "\(adopted.count)"])
        for (record, endpoint) in adopted where queues[endpoint] != nil { await enqueue(record, for: endpoint) }
        startDeliveries()
    }

    private func enqueue(_ record: WebhookRecord, for endpoint: String) async {
        guard queues[endpoint]!.enqueue(record) else {
            let dropped = counters[endpoint]!.dropped["queueFull", default: 0] + 1
            counters[endpoint]!.dropped["queueFull"] = dropped
            // A dead endpoint under load drops thousands: the log says so at 1, 10, 100, ...
            if Self.isPowerOfTen(dropped) {
                logger.warning(
                    "webhook queue full; events dropped",
                    metadata: ["endpoint": "\(endpoint)", "droppedSoFar": "\(dropped)", "limit": "\(configuration.maximumQueuedEvents)"])
            }
            await outbox.settle(record, endpoint: endpoint)
            return
        }
    }

    private func startDeliveries() {
        guard !stopping else { return }
        for endpoint in configuration.endpoints {
            for lane in queues[endpoint.name]!.start() {
                let key = "\(endpoint.name)\u{0}\(lane)"
                deliveries[key] = Task { [weak self] in
                    await self?.deliverLane(lane, to: endpoint)
                }
            }
        }
    }

    // MARK: - Delivering

    private func deliverLane(_ lane: String, to endpoint: WebhookEndpoint) async {
        await outbox.waitForEarlierNodes(sessionKey: lane, endpoint: endpoint.name)
        if lanesAwaitingAdoption != nil { await withCheckedContinuation { lanesAwaitingAdoption?.append($0) } }
        var next = queues[endpoint.name]!.beginSending(lane)
        while let record = next, !Task.isCancelled {
            guard let outcome = await deliver(record, to: endpoint) else { break }
            await outbox.settle(record, endpoint: endpoint.name)
            count(outcome, of: record, for: endpoint)
            queues[endpoint.name]!.settleHead(of: lane)
            next = queues[endpoint.name]!.beginSending(lane)
        }
        deliveries["\(endpoint.name)\u{0}\(lane)"] = nil
        startDeliveries()
    }

    private enum Outcome {
        case delivered(latencyMilliseconds: Int64)
        case rejected(status: Int)
        case expired
    }

    /// Attempts until delivered, refused for good or out of time; nil when cancelled by shutdown
    /// (the record stays in the outbox).
    private func deliver(_ record: WebhookRecord, to endpoint: WebhookEndpoint) async -> Outcome? {
        let firstAttempt = ContinuousClock.now
        var failedAttempts = 0
        while !Task.isCancelled {
            switch await attempt(record, to: endpoint) {
            case .delivered:
                return .delivered(latencyMilliseconds: nowMilliseconds - record.time)
            case .rejected(let status):
                return .rejected(status: status)
            case .retry(let cause):
                failedAttempts += 1
                counters[endpoint.name]!.failures[cause.label, default: 0] += 1
                let delay = configuration.retry.delay(afterFailedAttempts: failedAttempts, jitter: Double.random(in: 0..<1))
                guard ContinuousClock.now + delay - firstAttempt <= configuration.retry.giveUpAfter else { return .expired }
                counters[endpoint.name]!.retries += 1
                logger.debug(
                    "webhook attempt failed; retrying",
                    metadata: ["endpoint": "\(endpoint.name)", "event": "\(record.id)", "cause": "\(cause.label)", "in": "\(delay)"])
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    return nil
                }
            }
        }
        return nil
    }

    private func count(_ outcome: Outcome, of record: WebhookRecord, for endpoint: WebhookEndpoint) {
        switch outcome {
        case .delivered(let latency):
            counters[endpoint.name]!.delivered += 1
            counters[endpoint.name]!.latencies.add(Double(max(latency, 0)) / 1000)
        case .rejected(let status):
            counters[endpoint.name]!.failures["rejected", default: 0] += 1
            counters[endpoint.name]!.dropped["rejected", default: 0] += 1
            logger.warning(
                "webhook endpoint refused an event; not retried",
                metadata: ["endpoint": "\(endpoint.name)", "event": "\(record.id)", "kind": "\(record.kind.rawValue)", "status": "\(status)"])
        case .expired:
            counters[endpoint.name]!.dropped["expired", default: 0] += 1
            logger.warning(
                "webhook event given up after retrying", metadata: ["endpoint": "\(endpoint.name)", "event": "\(record.id)"])
        }
    }

    /// One POST, signed now. The deadline bounds the whole exchange, the response's body included,
    /// and at most `maximumResponseBytes` of that body are read.
    private func attempt(_ record: WebhookRecord, to endpoint: WebhookEndpoint) async -> WebhookAttemptResult {
        guard let client else { return .retry(.connection) }
        let timestamp = Int64(wallClock().timeIntervalSince1970)
        var request = HTTPClientRequest(url: endpoint.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "Switchyard-Webhooks")
        request.headers.add(name: WebhookSignature.idHeader, value: record.id)
        request.headers.add(name: WebhookSignature.timestampHeader, value: "\(timestamp)")
        request.headers.add(
            name: WebhookSignature.signatureHeader, value: WebhookSignature.sign(id: record.id, timestamp: timestamp, body: record.body, secret: endpoint.secret))
        request.body = .bytes(ByteBuffer(bytes: record.body))
        do {
            let response = try await client.execute(request, deadline: .now() + .init(configuration.requestTimeout), logger: nil)
            _ = try? await response.body.collect(upTo: Self.maximumResponseBytes)
            return WebhookAttemptResult(status: Int(response.status.code))
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) {
            return .retry(.timeout)
        } catch {
            return .retry(.connection)
        }
    }

    static let maximumResponseBytes = 16_384

    static func isPowerOfTen(_ value: UInt64) -> Bool {
        var remaining = value
        while remaining >= 10, remaining % 10 == 0 { remaining /= 10 }
        return remaining == 1
    }
}

/// What one endpoint has done since the server started.
struct EndpointCounters {
    var delivered: UInt64 = 0
    var retries: UInt64 = 0
    var failures: [String: UInt64] = [:]
    var dropped: [String: UInt64] = [:]
    var latencies = RecentLatencies(capacity: 1000)
}
