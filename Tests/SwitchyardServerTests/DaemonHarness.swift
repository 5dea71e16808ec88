import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Logging
import Signaling
import SignalingProtocol
import Synchronization
import SwitchyardServer

/// A daemon on an ephemeral HTTP port and its own media port range, for one test.
final class DaemonHarness: Sendable {
    /// Media ports for daemons under test, below the kernel's ephemeral range (32768-60999 here), so
    /// no socket another test binds to port 0 can hold one (a one-port range once found its port
    /// taken that way); 40 ports each leave room for 300 daemons.
    private static let nextPortBlock = Mutex<UInt16>(20_000)

    let daemon: SwitchyardDaemon
    let port: Int
    let configuration: SwitchyardConfiguration
    private let running: Task<Void, any Error>
    private let isStopped = Atomic<Bool>(false)

    /// `log` takes every line the daemon logs, down to `trace`; without it, warnings and worse go to
    /// standard output.
    static func start(log: CapturedLog? = nil, _ adjust: (inout SwitchyardConfiguration) -> Void = { _ in }) async throws -> DaemonHarness {
        var configuration = SwitchyardConfiguration.builtIn
        configuration.port = 0
        configuration.media.workerCount = 1
        let first = nextPortBlock.withLock { next in
            defer { next += 40 }
            return next
        }
        configuration.media.portRange = first...(first + 39)
        configuration.drainTime = .seconds(5)
        // A dropped socket ends its connection at once unless a test is about reconnection.
        configuration.signaling.reconnection.grace = .zero
        // The parallel phase shares two cores with up to hundreds of tests: a worker stalled there
        // would shed video that a test about something else waits for. The overload tests turn it on.
        configuration.media.overloadShedding.enabled = false
        // Each daemon records into a directory of its own, whatever disk the machine has left.
        configuration.archives?.directory = NSTemporaryDirectory() + "switchyard-archives-\(UUID().uuidString)"
        configuration.archives?.minimumFreeBytes = 0
        adjust(&configuration)
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = log?.logger(label: "switchyard-test") ?? Logger(label: "switchyard-test")
        if log == nil { logger.logLevel = .warning }
        let daemon = try await SwitchyardDaemon(configuration: configuration, logger: logger) { port in
            readyContinuation.yield(port)
        }
        let running = Task { try await daemon.run() }
        var iterator = ready.makeAsyncIterator()
        guard let port = await iterator.next() else { throw WebSocketTestClient.Failure.timedOut("the daemon to listen") }
        let harness = DaemonHarness(daemon: daemon, port: port, configuration: configuration, running: running)
        StartedProcesses.register { try? await harness.stop() }
        return harness
    }

    private init(daemon: SwitchyardDaemon, port: Int, configuration: SwitchyardConfiguration, running: Task<Void, any Error>) {
        self.daemon = daemon
        self.port = port
        self.configuration = configuration
        self.running = running
    }

    /// Shuts the daemon down gracefully and waits for it to stop; later calls only wait.
    func stop() async throws {
        if !isStopped.exchange(true, ordering: .acquiringAndReleasing) { await daemon.shutdown() }
        try await running.value
        if let archives = configuration.archives, ProcessInfo.processInfo.environment["SWITCHYARD_KEEP_ARCHIVES"] == nil { try? FileManager.default.removeItem(atPath: archives.directory) }
    }

    func token(session: String, role: Role, data: String = "", lifetime: Int64 = 600) async throws -> String {
        try await daemon.signaling.tokens.mintClientToken(sessionId: session, role: role, connectionData: data, lifetime: lifetime, now: Date())
    }

    func restToken() async throws -> String {
        try await daemon.signaling.tokens.mintRESTToken(lifetime: 60, now: Date())
    }

    /// One HTTP request to the daemon, with a bearer token and a JSON body when given.
    func http(_ method: String, _ path: String, token: String?, body: String? = nil) async throws -> (status: Int, body: Data) {
        let response = try await http(method, path, token: token, body: body, contentType: body == nil ? nil : "application/json")
        return (response.status, response.body)
    }

    /// One HTTP request to the daemon with the body's own content type; the answer's headers too.
    func http(
        _ method: String, _ path: String, token: String?, body: String?, contentType: String?
    ) async throws -> (status: Int, headers: [String: String], body: Data) {
        try await Self.http(method, url: "http://\(configuration.host):\(port)\(path)", token: token, body: body, contentType: contentType)
    }

    /// One HTTP request to any URL, with a bearer token and a body when given; the answer's headers too.
    static func http(
        _ method: String, url: String, token: String?, body: String?, contentType: String?
    ) async throws -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body { request.httpBody = Data(body.utf8) }
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in http.allHeaderFields { headers[name.lowercased()] = value }
        return (http.statusCode, headers, data)
    }

    func connect(session: String, role: Role, data: String = "") async throws -> (WebSocketTestClient, ConnectResult) {
        try await WebSocketTestClient.connected(
            port: port, host: configuration.host, sessionId: session, token: try await token(session: session, role: role, data: data))
    }
}
