import Foundation
import Glibc

/// A cluster node in a daemon process of its own on `host`, so that a test can kill it with SIGKILL
/// as a crashed machine would go. `stop()` kills it if the test did not, and removes its files.
final class KillableNode {
    let nodeId: String
    let host: String
    let port: Int
    let mediaPorts: ClosedRange<UInt16>
    private let pid: pid_t
    private let configurationPath: String
    private var isDead = false

    init(nodeId: String, host: String, mediaPorts: ClosedRange<UInt16>, database: PostgresServer, subscribersBeforeCascading: Int? = nil) throws {
        self.nodeId = nodeId
        self.host = host
        self.mediaPorts = mediaPorts
        port = freeTCPPort(host: host)
        configurationPath = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(nodeId)-\(UUID().uuidString).json").path
        try """
        {"server": {"host": "\(host)", "port": \(port)},
         "media": {"workers": 1, "portRange": {"first": \(mediaPorts.lowerBound), "last": \(mediaPorts.upperBound)}},
         "shutdown": {"drainSeconds": 5},
         "cluster": {"databaseURL": "\(database.url)", "nodeId": "\(nodeId)", "heartbeatSeconds": 1, "nodeTimeoutSeconds": 3,
                     "subscribersBeforeCascading": \(subscribersBeforeCascading.map(String.init) ?? "null")}}
        """.write(toFile: configurationPath, atomically: true, encoding: .utf8)
        pid = try ChildProcess.spawn(DaemonProcessTests.executable.path, ["--config", configurationPath], output: configurationPath + ".log")
    }

    var baseURL: String { "http://\(host):\(port)" }
    var webSocketURL: String { "ws://\(host):\(port)/v1/ws" }

    func kill() {
        guard !isDead else { return }
        Glibc.kill(pid, SIGKILL)
        ChildProcess.wait(for: pid)
        isDead = true
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: configurationPath)
        try? FileManager.default.removeItem(atPath: configurationPath + ".log")
    }
}
