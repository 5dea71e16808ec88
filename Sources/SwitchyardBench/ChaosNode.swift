import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Glibc
import Signaling
import Synchronization

/// One node of the cluster a chaos run works on: the process at a `--server` URL, which the run
/// kills, drains, stops and starts again. What starts it again is read from /proc before the first
/// fault (its command line, working directory and where its stderr goes), so the script that
/// started it needs to tell nothing more than its PID. Processes this node started are its own to
/// end; the first one belongs to whoever started it.
final class ChaosNode: Sendable {
    struct Launch: Sendable {
        var executable: String
        var arguments: [String]
        var directory: String
        /// The file the first process's stderr went to (appended to by every restart), if a file.
        var log: String?
    }

    struct ResourceSample: Sendable {
        var ageSeconds: Double
        var rssMB: Double
        var descriptors: Int
        var udpSockets: Int
    }

    let url: String
    let healthURL: URL
    let launch: Launch
    private let current: Mutex<(pid: Int32, process: ShellProcess?)>

    init(url: String, pid: Int32) throws(BenchError) {
        guard let base = ClusterNodeAddress.httpBase(ofWebSocket: url), let health = URL(string: "\(base)/health") else {
            throw .invalidOptions("--server \(url) is not a ws:// URL")
        }
        guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !raw.isEmpty else {
            throw .setupFailed("no process \(pid) (--node-pid for \(url))")
        }
        let words = raw.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }.filter { !$0.isEmpty }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? words[0]
        let directory = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? "/"
        let log = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/2")).flatMap { $0.hasPrefix("/") ? $0 : nil }
        self.url = url
        healthURL = health
        launch = Launch(executable: executable, arguments: Array(words.dropFirst()), directory: directory, log: log)
        current = Mutex((pid, nil))
    }

    var pid: Int32 { current.withLock { $0.pid } }

    /// The process this node started, when the one running is its own.
    var ownPID: Int32? { current.withLock { $0.process?.pid } }

    /// Whether the node's process is still there (a zombie is not).
    var isRunning: Bool {
        let (pid, process) = current.withLock { ($0.pid, $0.process) }
        if let process { return process.isRunning }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    func send(_ signal: Int32) throws(BenchError) {
        let pid = self.pid
        guard kill(pid, signal) == 0 else { throw .setupFailed("kill -\(signal) \(pid) (\(url)): \(String(cString: strerror(errno)))") }
    }

    /// Waits until the process has exited; false if it still runs at `deadline`.
    func waitForExit(deadline: ContinuousClock.Instant) async -> Bool {
        while isRunning {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }

    /// Whether `/health` answers 200 within `timeout`.
    func healthAnswers(timeout: TimeInterval) async -> Bool {
        var request = URLRequest(url: healthURL, timeoutInterval: timeout)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        guard let (_, response) = try? await URLSession.shared.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    /// Starts the node again with its first command line, until its `/health` answers: a start
    /// refused because the node's old heartbeat still looks live (it exits at once) is tried again
    /// every second, until `deadline`.
    func restart(deadline: ContinuousClock.Instant) async throws(BenchError) {
        while ContinuousClock.now < deadline {
            // exec: the shell becomes the node, so its PID is the node's.
            let command =
                "cd \(ShellProcess.quote(launch.directory)) && exec \(([launch.executable] + launch.arguments).map(ShellProcess.quote).joined(separator: " "))"
                + " </dev/null >/dev/null 2>>\(ShellProcess.quote(launch.log ?? "/dev/null"))"
            let process = try ShellProcess(command: command)
            current.withLock { $0 = (process.pid, process) }
            let tryUntil = min(deadline, ContinuousClock.now + .seconds(10))
            while process.isRunning, ContinuousClock.now < tryUntil {
                if await healthAnswers(timeout: 1) { return }
                try? await Task.sleep(for: .milliseconds(200))
            }
            if process.isRunning {
                kill(process.pid, SIGKILL)
                _ = await process.waitForExit()
            }
            try? await Task.sleep(for: .seconds(1))
        }
        throw .setupFailed("\(url) did not answer /health again before the deadline")
    }

    /// Ends a process this node started (SIGCONT first, in case it was stopped; SIGTERM, then
    /// SIGKILL after `grace`). The first process is left to whoever started it.
    func stopOwnProcess(grace: Duration) async {
        guard let process = current.withLock({ $0.process }), process.isRunning else { return }
        kill(process.pid, SIGCONT)
        kill(process.pid, SIGTERM)
        if await !waitForExit(deadline: ContinuousClock.now + grace) {
            kill(process.pid, SIGKILL)
            _ = await waitForExit(deadline: ContinuousClock.now + .seconds(5))
        }
    }

    /// The process's resident memory, open descriptors and UDP sockets (its descriptors that are
    /// sockets listed in /proc/<pid>/net/udp and udp6); nil once it is gone.
    func resources() -> ResourceSample? {
        let pid = self.pid
        guard let usage = ProcessUsageSample.read(pid: pid, at: 0), let age = ProcessUsageSample.age(pid: pid),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        var udpInodes = Set<Substring>()
        for table in ["udp", "udp6"] {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if fields.count > 9 { udpInodes.insert(fields[9]) }
            }
        }
        var udp = 0
        for descriptor in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { continue }
            if udpInodes.contains(target.dropFirst(8).dropLast()) { udp += 1 }
        }
        return ResourceSample(ageSeconds: age, rssMB: usage.rssMB, descriptors: descriptors.count, udpSockets: udp)
    }
}
