import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Webhooks

/// The app's backend as the webhooks scenario plays it: an HTTP server in the bench that checks
/// every delivery's signature as docs/webhooks.md tells a receiver to (`WebhookSignature.verify`
/// over the Standard Webhooks headers, with the endpoint's secret), notes when it arrived and what
/// it says, and answers 204. A bad signature is answered 401, which the daemon does not retry.
/// A silent receiver notes each POST the same way and then never answers it until the run ends.
final class WebhookReceiver: Sendable {
    /// One POST whose signature held, as it arrived.
    struct Delivery: Sendable {
        var id: String
        /// nil for the node's own events (`nodeDraining`).
        var sessionId: String?
        var sequence: Int64
        var event: String
        /// The connection a connection event is about (its data's `connection.connectionId`).
        var connectionId: String?
        /// When it happened (the body's `time`) and when it arrived here, milliseconds since the
        /// Unix epoch.
        var time: Int64
        var arrivedAt: Double
    }

    /// What arrived so far.
    struct Tally: Sendable {
        /// In arrival order, retries included.
        var deliveries: [Delivery] = []
        /// POSTs refused for their signature: missing headers, stale, or not matching the secret.
        var badSignatures = 0
        /// Correctly signed POSTs whose body is not the documented JSON.
        var unreadableBodies = 0
    }

    /// Where the daemon's endpoint must point, and the port it listens on.
    let url: String
    let port: Int
    /// A silent receiver's unanswered requests; nil for one that answers.
    let held: HeldWebhookRequests?
    private let ledger: Ledger
    private let server: Task<Void, any Error>

    /// Requests a silent receiver holds at most: with the daemon's defaults (8 sessions delivered at
    /// once, 5 s timeout) a minute's run sends about a hundred attempts.
    static let heldRequestBound = 1_000

    private init(host: String, port: Int, held: HeldWebhookRequests?, ledger: Ledger, server: Task<Void, any Error>) {
        url = "http://\(host):\(port)/webhooks"
        self.port = port
        self.held = held
        self.ledger = ledger
        self.server = server
    }

    /// Listens on `host`:`port` (0: a free port) for `POST /webhooks` signed with `secret`, answering
    /// as `mode` says.
    static func start(host: String, port: Int, secret: String, mode: WebhookReceiverMode) async throws(BenchError) -> WebhookReceiver {
        let ledger = Ledger(secret: secret)
        let held = mode == .silent ? HeldWebhookRequests(bound: heldRequestBound) : nil
        let router = Router()
        router.post("/webhooks") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let response = ledger.receive(headers: request.headers, body: Array(body.readableBytesView))
            guard let held else { return response }
            await held.hold()
            // Let go at the end of the run (or past the bound): a status the daemon retries, so
            // nothing held counts as delivered.
            return Response(status: .serviceUnavailable)
        }
        var logger = Logger(label: "switchyard-bench-webhooks")
        logger.logLevel = .critical
        let (bound, boundContinuation) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "switchyard-bench"),
            onServerRunning: { channel in boundContinuation.yield(channel.localAddress?.port) }, logger: logger)
        let server = Task {
            defer { boundContinuation.finish() }
            try await application.runService()
        }
        var iterator = bound.makeAsyncIterator()
        guard let listening = await iterator.next(), let listeningPort = listening else {
            let reason: String =
                switch await server.result {
                case .failure(let error): "\(error)"
                case .success: "it stopped at once"
                }
            throw .setupFailed("the webhook receiver cannot listen on \(host):\(port): \(reason)")
        }
        return WebhookReceiver(host: host, port: listeningPort, held: held, ledger: ledger, server: server)
    }

    var received: Tally { ledger.tally.withLock { $0 } }

    /// Lets the held requests go first: the server's shutdown waits for every request in flight.
    func stop() async {
        held?.releaseAll()
        server.cancel()
        _ = await server.result
    }

    /// What the server's handler writes to.
    private final class Ledger: Sendable {
        let secret: String
        let tally = Mutex(Tally())

        init(secret: String) {
            self.secret = secret
        }

        private static let idHeader = HTTPField.Name(WebhookSignature.idHeader)!
        private static let timestampHeader = HTTPField.Name(WebhookSignature.timestampHeader)!
        private static let signatureHeader = HTTPField.Name(WebhookSignature.signatureHeader)!

        /// The body's fields the analysis needs (docs/webhooks.md has them all).
        private struct Body: Decodable {
            struct EventData: Decodable {
                struct Connection: Decodable {
                    var connectionId: String
                }

                var connection: Connection?
            }

            var id: String
            var seq: Int64
            var time: Int64
            var event: String
            var sessionId: String?
            var data: EventData
        }

        func receive(headers: HTTPFields, body: [UInt8]) -> Response {
            let arrivedAt = Date().timeIntervalSince1970 * 1000
            guard let id = headers[Self.idHeader], let timestamp = headers[Self.timestampHeader].flatMap({ Int64($0) }),
                let signature = headers[Self.signatureHeader],
                (try? WebhookSignature.verify(
                    id: id, timestamp: timestamp, signatureHeader: signature, body: body, secret: secret, now: Int64(arrivedAt / 1000))) != nil
            else {
                tally.withLock { $0.badSignatures += 1 }
                return Response(status: .unauthorized)
            }
            guard let decoded = try? JSONDecoder().decode(Body.self, from: Data(body)), decoded.id == id else {
                tally.withLock { $0.unreadableBodies += 1 }
                return Response(status: .badRequest)
            }
            let delivery = Delivery(
                id: id, sessionId: decoded.sessionId, sequence: decoded.seq, event: decoded.event, connectionId: decoded.data.connection?.connectionId,
                time: decoded.time, arrivedAt: arrivedAt)
            tally.withLock { $0.deliveries.append(delivery) }
            return Response(status: .noContent)
        }
    }
}
