import Foundation
import Glibc
import Synchronization

/// A daemon in a process of its own on `host` (a cluster node when given a database), so that a
/// test can kill it with SIGKILL as a crashed machine would go, and start it again under its id as
/// a supervisor would. `start`
/// returns once the node answers HTTP; `stop()` kills it if the test did not, and removes its files.
final class KillableNode: Sendable {
    struct NotReady: Error, CustomStringConvertible {
        var nodeId: String
        var problem: String
        var log: String

        var description: String { "node \(nodeId) \(problem); its log:\n\(log)" }
    }

    let nodeId: String
    let host: String
    let port: Int
    let mediaPorts: ClosedRange<UInt16>
    private let pid: Mutex<pid_t>
    private let configurationPath: String
    private let isDead = Atomic<Bool>(false)

    /// Starts the node and waits until its health route answers, at most `readiness`: the node joins
    /// the cluster (and counts as live there) before its HTTP server listens, so neither its
    /// process's start nor its liveness says a client can connect yet.
    /// - Parameter webhooks: the `webhooks` object of its configuration, as JSON; nil for none.
    /// - Parameter archives: the `archives` object of its configuration, as JSON; nil for the default.
    static func start(
        nodeId: String, host: String, mediaPorts: ClosedRange<UInt16>, database: PostgresServer?, subscribersBeforeCascading: Int? = nil,
        webhooks: String? = nil, archives: String? = nil, readiness: Duration = .seconds(30)
    ) async throws -> KillableNode {
        let node = try KillableNode(
            nodeId: nodeId, host: host, mediaPorts: mediaPorts, database: database, subscribersBeforeCascading: subscribersBeforeCascading,
            webhooks: webhooks, archives: archives)
        StartedProcesses.register { node.stop() }
        do {
            try await node.waitUntilReady(within: readiness)
        } catch {
            node.stop()
            throw error
        }
        return node
    }

    private init(
        nodeId: String, host: String, mediaPorts: ClosedRange<UInt16>, database: PostgresServer?, subscribersBeforeCascading: Int?,
        webhooks: String?, archives: String?
    ) throws {
        self.nodeId = nodeId
        self.host = host
        self.mediaPorts = mediaPorts
        port = freeTCPPort(host: host)
        configurationPath = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(nodeId)-\(UUID().uuidString).json").path
        let cluster = database.map { database in
            """
            "cluster": {"databaseURL": "\(database.url)", "nodeId": "\(nodeId)", "heartbeatSeconds": 1, "nodeTimeoutSeconds": 3,
                        "subscribersBeforeCascading": \(subscribersBeforeCascading.map(String.init) ?? "null")}
            """
        }
        let sections = [cluster, webhooks.map { "\"webhooks\": \($0)" }, archives.map { "\"archives\": \($0)" }].compactMap { $0 }
        try """
        {"server": {"host": "\(host)", "port": \(port)},
         "media": {"workers": 1, "portRange": {"first": \(mediaPorts.lowerBound), "last": \(mediaPorts.upperBound)}},
         "shutdown": {"drainSeconds": 5}\(sections.map { ",\n " + $0 }.joined())}
        """.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        pid = Mutex(try ChildProcess.spawn(DaemonProcessTests.executable.path, ["--config", configurationPath], output: configurationPath + ".log"))
    }

    /// Starts the killed node's process again with its configuration (the same node id, addresses
    /// and media ports), and waits until it answers HTTP, at most `readiness`.
    func restart(readiness: Duration = .seconds(30)) async throws {
        precondition(isDead.load(ordering: .acquiring), "restart() follows kill()")
        let spawned = try ChildProcess.spawn(DaemonProcessTests.executable.path, ["--config", configurationPath], output: configurationPath + ".log")
        pid.withLock { $0 = spawned }
        isDead.store(false, ordering: .releasing)
        try await waitUntilReady(within: readiness)
    }

    var baseURL: String { "http://\(host):\(port)" }
    var webSocketURL: String { "ws://\(host):\(port)/v1/ws" }

    /// Polls the health route until it answers 200; fails at once if the process exits.
    private func waitUntilReady(within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let status = ChildProcess.exitStatus(of: pid.withLock { $0 }) {
                isDead.store(true, ordering: .releasing)
                throw NotReady(nodeId: nodeId, problem: "exited with \(status) before it listened", log: log)
            }
            if let answer = try? await DaemonHarness.http("GET", url: baseURL + "/health", token: nil, body: nil, contentType: nil),
                answer.status == 200
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw NotReady(nodeId: nodeId, problem: "did not answer \(baseURL)/health within \(limit)", log: log)
    }

    private var log: String { (try? String(contentsOfFile: configurationPath + ".log", encoding: .utf8)) ?? "" }

    func kill() {
        guard !isDead.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let pid = pid.withLock { $0 }
        Glibc.kill(pid, SIGKILL)
        ChildProcess.wait(for: pid)
    }

    /// Stops the node as an operator does, with SIGTERM (a cluster node drains), and waits for the
    /// process to end, at most `limit` before killing it: its exit status, nil if it was killed.
    func terminate(within limit: Duration) async -> Int32? {
        guard !isDead.load(ordering: .acquiring) else { return nil }
        let pid = pid.withLock { $0 }
        Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let status = ChildProcess.exitStatus(of: pid) {
                isDead.store(true, ordering: .releasing)
                return status
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        kill()
        return nil
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: configurationPath)
        try? FileManager.default.removeItem(atPath: configurationPath + ".log")
    }
}
