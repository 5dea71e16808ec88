import Foundation
import Glibc
import Logging
import Signaling
import SignalingProtocol
import Testing
import Webhooks

/// The dispatcher against a real HTTP receiver: retries, back-off, refusals, a receiver that is
/// away or never answers. Activities are recorded directly, as the session directory records them.
@Suite struct WebhookDeliveryTests {
    private func dispatcher(
        to receiver: WebhookTestReceiver, timeout: Duration = .seconds(30), queued: Int = 1000, concurrency: Int = 4,
        retry: WebhookRetryPolicy = WebhookRetryPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
    ) -> (WebhookDispatcher, Task<Void, any Error>) {
        var logger = Logger(label: "webhooks-test")
        logger.logLevel = .critical
        let configuration = WebhookConfiguration(
            endpoints: [WebhookEndpoint(name: "backend", url: receiver.url, secret: receiver.secret)], requestTimeout: timeout,
            maximumQueuedEvents: queued, maximumConcurrentDeliveries: concurrency, retry: retry)
        let dispatcher = WebhookDispatcher(configuration: configuration, outbox: MemoryWebhookOutbox(), logger: logger, flushTime: .zero)
        let running = Task { try await dispatcher.run() }
        return (dispatcher, running)
    }

    private func connectionCreated(_ session: String, _ index: Int) -> SessionActivity {
        SessionActivity(
            sessionId: session,
            event: .connectionCreated(ConnectionEvent(connection: ConnectionInfo(connectionId: "c_\(index)", creationTime: 1, data: "\(index)"))),
            time: Int64(Date().timeIntervalSince1970 * 1000))
    }

    /// A TCP socket bound to 127.0.0.1:`port` that never listens, or nil when the port is taken.
    static func holdWithoutListening(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var reuse: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Each session's delivered events, in arrival order, must be numbered 1, 2, 3, ...
    private func expectInOrder(_ delivered: [WebhookTestReceiver.Attempt], sessions: [String], each count: Int) {
        for session in sessions {
            let sequences = delivered.filter { $0.sessionId == session }.map(\.sequence)
            #expect(sequences == (1...Int64(count)).map { $0 }, "session \(session) arrived as \(sequences)")
        }
    }

    @Test func aReceiverDownForThirtySecondsGetsEveryEventInOrderWithTheSameIds() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        let port = receiver.port
        await receiver.stop()
        // Bound but not listening, the port refuses connections as a receiver that is down does, and
        // no other test's server can take it meanwhile.
        let hold = try #require(Self.holdWithoutListening(port: port))
        // The HTTP client keeps trying to connect until the deadline, so a refused connection fails at it.
        let (dispatcher, running) = dispatcher(
            to: receiver, timeout: .seconds(2), retry: WebhookRetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .seconds(2)))
        defer { running.cancel() }
        let sessions = ["down-a", "down-b", "down-c"]
        for index in 0..<20 {
            for session in sessions { dispatcher.record(connectionCreated(session, index)) }
        }
        try await Task.sleep(for: .seconds(30))
        let away = await dispatcher.status().endpoints[0]
        #expect(away.queued == 60, "everything waits while the receiver is away")
        #expect(away.delivered == 0)
        #expect((away.failures["connection"] ?? 0) > 0, "refused connections count as connection failures: \(away.failures)")
        #expect(away.retries > 0)
        #expect(away.oldestUndeliveredSeconds >= 25)

        close(hold)
        try await receiver.start(port: port)
        try await receiver.wait(timeout: .seconds(30)) { attempts in Set(attempts.filter { $0.answered == 204 }.map(\.id)).count == 60 }
        let delivered = receiver.delivered
        #expect(delivered.count == 60)
        #expect(delivered.allSatisfy { $0.signatureValid })
        expectInOrder(delivered, sessions: sessions, each: 20)
        let back = try await dispatcher.status { $0.endpoints[0].delivered == 60 }.endpoints[0]
        #expect(back.queued == 0 && back.delivered == 60)
        #expect(back.dropped.isEmpty, "nothing was given up: \(back.dropped)")
    }

    @Test func serverErrorsAndTimeoutsAreRetriedUnderTheSameIdAndABadRequestIsNot() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([.status(500), .status(503), .silence, .status(429), .status(200), .status(400)])
        // Long enough that only the silent attempt times out, even on a loaded machine.
        let (dispatcher, running) = dispatcher(to: receiver, timeout: .seconds(3), concurrency: 1)
        defer { running.cancel() }
        dispatcher.record(connectionCreated("retried", 1))
        dispatcher.record(connectionCreated("retried", 2))
        dispatcher.record(connectionCreated("retried", 3))
        try await receiver.wait { attempts in attempts.count >= 7 && attempts[6].answered != nil }
        let attempts = receiver.attempts
        let first = attempts[0].id
        #expect(attempts.prefix(5).allSatisfy { $0.id == first }, "every retry carries the event's id")
        #expect(attempts.prefix(5).map(\.sequence) == [1, 1, 1, 1, 1])
        #expect(Set(attempts.prefix(5).map(\.signature)).count >= 2, "each attempt is signed anew with its own timestamp")
        #expect(attempts[5].sequence == 2 && attempts[5].answered == 400)
        #expect(attempts[6].sequence == 3 && attempts[6].answered == 204, "a refused event is not retried; the session's next one follows")
        try await Task.sleep(for: .milliseconds(500))
        #expect(receiver.attempts.count == 7, "400 is final")
        let status = try await dispatcher.status { $0.endpoints[0].delivered == 2 }.endpoints[0]
        #expect(status.delivered == 2)
        // The silent attempt ends as a timeout, or as a closed connection when the deadline cancels it first.
        #expect(
            status.failures["status5xx"] == 2 && status.failures["status429"] == 1
                && (status.failures["timeout"] ?? 0) + (status.failures["connection"] ?? 0) == 1, "\(status.failures)")
        #expect(status.failures["rejected"] == 1 && status.dropped["rejected"] == 1)
        #expect(status.retries == 4)
    }

    @Test func retriesBackOffExponentiallyWithJitter() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script(Array(repeating: .status(502), count: 4))
        let (dispatcher, running) = dispatcher(
            to: receiver, retry: WebhookRetryPolicy(initialDelay: .milliseconds(200), maximumDelay: .milliseconds(800)))
        defer { running.cancel() }
        dispatcher.record(connectionCreated("backoff", 1))
        try await receiver.wait { $0.count >= 5 }
        let arrivals = receiver.attempts.map(\.timestamp)
        #expect(arrivals.count == 5)
        // The waits are drawn from [100, 200], [200, 400], [400, 800], [400, 800] ms: 1.1 s at least.
        let timing = receiver.attemptTimes
        let gaps = zip(timing.dropFirst(), timing).map { $0 - $1 }
        #expect(gaps[0] >= .milliseconds(90) && gaps[1] >= .milliseconds(190) && gaps[2] >= .milliseconds(390) && gaps[3] >= .milliseconds(390), "\(gaps)")
    }

    @Test func aSessionWhoseEventIsRetriedHoldsUpOnlyItself() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([.status(500)])
        let (dispatcher, running) = dispatcher(
            to: receiver, concurrency: 2, retry: WebhookRetryPolicy(initialDelay: .seconds(20), maximumDelay: .seconds(20)))
        defer { running.cancel() }
        dispatcher.record(connectionCreated("stuck", 1))
        try await receiver.wait { $0.count == 1 }
        for index in 0..<10 { dispatcher.record(connectionCreated("flowing", index)) }
        try await receiver.wait { attempts in attempts.filter { $0.sessionId == "flowing" && $0.answered == 204 }.count == 10 }
        expectInOrder(receiver.delivered, sessions: ["flowing"], each: 10)
        #expect(receiver.attempts.filter { $0.sessionId == "stuck" }.count == 1, "still waiting out its back-off")
    }

    @Test func anEndpointThatNeverAnswersDelaysNoOtherEndpoint() async throws {
        let silent = WebhookTestReceiver()
        let healthy = WebhookTestReceiver()
        try await silent.start()
        try await healthy.start()
        defer { Task { await silent.stop(); await healthy.stop() } }
        silent.script([], otherwise: .silence)
        var logger = Logger(label: "webhooks-test")
        logger.logLevel = .critical
        let configuration = WebhookConfiguration(
            endpoints: [
                WebhookEndpoint(name: "silent", url: silent.url, secret: silent.secret),
                WebhookEndpoint(name: "healthy", url: healthy.url, secret: healthy.secret),
            ], requestTimeout: .seconds(30))
        let dispatcher = WebhookDispatcher(configuration: configuration, outbox: MemoryWebhookOutbox(), logger: logger, flushTime: .zero)
        let running = Task { try await dispatcher.run() }
        defer { running.cancel() }
        for index in 0..<40 { dispatcher.record(connectionCreated("room-\(index % 4)", index)) }
        try await healthy.wait { attempts in attempts.filter { $0.answered == 204 }.count == 40 }
        expectInOrder(healthy.delivered, sessions: (0..<4).map { "room-\($0)" }, each: 10)
        #expect(silent.attempts.count == 4, "one request per session waits at the silent endpoint")
        let status = try await dispatcher.status { $0.endpoints[1].queued == 0 }
        #expect(status.endpoints.map(\.queued) == [40, 0])
    }

    @Test func aReceiverThatNeverAnswersHoldsAtMostTheQueueBound() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([], otherwise: .silence)
        let (dispatcher, running) = dispatcher(to: receiver, timeout: .seconds(30), queued: 50, concurrency: 2)
        defer { running.cancel() }
        for index in 0..<500 { dispatcher.record(connectionCreated("session-\(index % 10)", index)) }
        try await receiver.wait { $0.count >= 2 }
        let status = try await dispatcher.status { ($0.endpoints[0].dropped["queueFull"] ?? 0) + $0.droppedAtIntake == 450 }
        let endpoint = status.endpoints[0]
        #expect(endpoint.queued <= 50)
        #expect(endpoint.deliveringSessions == 2, "no more sessions in flight than the concurrency allows")
        #expect((endpoint.dropped["queueFull"] ?? 0) + status.droppedAtIntake == 450, "past the bound, events are dropped and counted")
        #expect(receiver.attempts.count == 2)
    }
}
