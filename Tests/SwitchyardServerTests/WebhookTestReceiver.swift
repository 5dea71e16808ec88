import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Webhooks

/// A real HTTP receiver of webhooks on 127.0.0.1, in this process: it keeps every attempt, checks
/// its signature, and answers as the test scripts it (a status, or no answer at all). It can stop
/// listening and start again on the same port, as a backend that goes down and comes back.
final class WebhookTestReceiver: Sendable {
    /// One POST as it arrived.
    struct Attempt: Sendable {
        var id: String
        var timestamp: Int64
        var signature: String
        var body: Data
        /// Whether the signature matched the receiver's secret.
        var signatureValid: Bool
        var answered: Int?
        var arrival: ContinuousClock.Instant

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var event: String { json["event"] as? String ?? "" }
        var sequence: Int64 { (json["seq"] as? NSNumber)?.int64Value ?? 0 }
        var sessionId: String? { json["sessionId"] as? String }
    }

    /// What the receiver does with the next attempts.
    enum Answer: Sendable {
        case status(Int)
        /// Holds the request without answering until the script changes (or the receiver stops).
        case silence
    }

    let secret: String
    private(set) nonisolated(unsafe) var port = 0
    private let state = Mutex(State())
    private let server = Mutex<Task<Void, any Error>?>(nil)

    private struct State {
        var attempts: [Attempt] = []
        var script: [Answer] = []
        var otherwise: Answer = .status(204)
        var stopping = false
    }

    init(secret: String = String(repeating: "s3cr3t-", count: 6)) {
        self.secret = secret
    }

    /// Starts listening, on `port` when given (coming back after `stop`), else on a free one.
    func start(port requested: Int = 0) async throws {
        state.withLock { $0.stopping = false }
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            return await self.receive(request, body: body)
        }
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: requested), serverName: "receiver"),
            onServerRunning: { channel in readyContinuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let task = Task { try await application.runService() }
        server.withLock { $0 = task }
        var iterator = ready.makeAsyncIterator()
        port = await iterator.next() ?? 0
    }

    /// Stops listening: new connections are refused until `start` again.
    func stop() async {
        state.withLock { $0.stopping = true }
        let task = server.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        _ = try? await task?.value
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/hooks")! }

    /// Answers the next attempts with `answers`, one each, then with `otherwise`.
    func script(_ answers: [Answer], otherwise: Answer = .status(204)) {
        state.withLock {
            $0.script = answers
            $0.otherwise = otherwise
        }
    }

    var attempts: [Attempt] { state.withLock { $0.attempts } }

    var attemptTimes: [ContinuousClock.Instant] { attempts.map(\.arrival) }

    /// The first attempt of each event id that was answered with a 2xx, in arrival order.
    var delivered: [Attempt] {
        var seen = Set<String>()
        return attempts.filter { attempt in
            guard let status = attempt.answered, (200..<300).contains(status) else { return false }
            return seen.insert(attempt.id).inserted
        }
    }

    /// Waits until `condition` holds of the attempts, up to `timeout`.
    func wait(timeout: Duration = .seconds(30), until condition: ([Attempt]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(attempts) {
            guard ContinuousClock.now < deadline else { throw ReceiverTimeout(attempts: attempts.count) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    struct ReceiverTimeout: Error, CustomStringConvertible {
        var attempts: Int
        var description: String { "the condition did not hold in time (\(attempts) attempts received)" }
    }

    private func receive(_ request: Request, body: Data) async -> Response {
        let id = request.headers[HTTPField.Name(WebhookSignature.idHeader)!] ?? ""
        let timestamp = Int64(request.headers[HTTPField.Name(WebhookSignature.timestampHeader)!] ?? "") ?? 0
        let signature = request.headers[HTTPField.Name(WebhookSignature.signatureHeader)!] ?? ""
        let valid =
            (try? WebhookSignature.verify(
                id: id, timestamp: timestamp, signatureHeader: signature, body: Array(body), secret: secret,
                now: Int64(Date().timeIntervalSince1970))) != nil
        let (index, answer) = state.withLock { state in
            state.attempts.append(
                Attempt(id: id, timestamp: timestamp, signature: signature, body: body, signatureValid: valid, arrival: .now))
            let answer = state.script.isEmpty ? state.otherwise : state.script.removeFirst()
            return (state.attempts.count - 1, answer)
        }
        switch answer {
        case .status(let status):
            state.withLock { $0.attempts[index].answered = status }
            return Response(status: HTTPResponse.Status(code: status))
        case .silence:
            while !state.withLock({ $0.stopping }), !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
            }
            return Response(status: .serviceUnavailable)
        }
    }
}

extension WebhookDispatcher {
    /// The status once `condition` holds of it, waiting up to 10 s, else the last one seen: the
    /// receiver counts an answer before the dispatcher has read it.
    func status(when condition: (WebhookStatus) -> Bool) async throws -> WebhookStatus {
        var status = await self.status()
        for _ in 0..<500 where !condition(status) {
            try await Task.sleep(for: .milliseconds(20))
            status = await self.status()
        }
        return status
    }
}
