import Foundation
import Glibc
import MediaTestSupport
import Synchronization

/// A private coturn for one test: the shipped `Config/turnserver.conf` with what only a test
/// changes (ports, secret, the SFU's address, files in a temporary directory), started as a child
/// process on 127.0.0.1 and stopped by its PID. Never the system service.
final class PrivateTURNServer: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case socket(Int32)
        case exited(Int32, log: String)
        case notAnswering(log: String)

        var description: String {
            switch self {
            case .notInstalled: "coturn is not installed (apt-get install coturn; make test installs it)"
            case .socket(let code): "socket: \(String(cString: strerror(code)))"
            case .exited(let status, let log): "turnserver exited with \(status):\n\(log)"
            case .notAnswering(let log): "turnserver did not answer a STUN Binding within 5 s:\n\(log)"
            }
        }
    }

    static let executable = "/usr/bin/turnserver"
    /// Settings the test sets itself; the shipped file's lines for them are left out.
    private static let replacedKeys: Set<String> = [
        "listening-port", "tls-listening-port", "cert", "pkey", "static-auth-secret", "allowed-peer-ip", "external-ip",
    ]

    let port: Int
    let directory: String
    let pid: pid_t
    private let isStopped = Atomic<Bool>(false)

    /// Starts coturn with `sharedSecret`, relaying only to `sfuAddress`, and returns once it answers
    /// a STUN Binding request.
    static func start(sharedSecret: String, sfuAddress: String = "127.0.0.1") async throws -> PrivateTURNServer {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw Failure.notInstalled }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-turn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try freeUDPAndTCPPort()
        let shipped = try String(
            contentsOf: ConfigurationTests.repositoryRoot.appendingPathComponent("Config/turnserver.conf"), encoding: .utf8)
        let kept = shipped.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let key = line.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return !replacedKeys.contains(key)
        }
        let configuration = kept + [
            "# The test's own settings.",
            "listening-ip=127.0.0.1", "relay-ip=127.0.0.1", "listening-port=\(port)",
            // TLS is the browser tests' business; these tests speak TURN over UDP.
            "no-tls",
            "static-auth-secret=\(sharedSecret)",
            "allowed-peer-ip=\(sfuAddress)",
            // The test's SFU is on loopback, which coturn refuses before it reads any allowed-peer-ip;
            // the shipped denied-peer-ip=127.0.0.0-... still refuses every other loopback address.
            "allow-loopback-peers",
            "pidfile=\(directory)/turnserver.pid", "log-file=\(directory)/turnserver.log", "simple-log", "userdb=\(directory)/turndb",
        ]
        try configuration.joined(separator: "\n").write(toFile: "\(directory)/turnserver.conf", atomically: true, encoding: .utf8)
        let pid = try ChildProcess.spawn(executable, ["-c", "\(directory)/turnserver.conf"], output: "\(directory)/output")
        let server = PrivateTURNServer(port: port, directory: directory, pid: pid)
        StartedProcesses.register { await server.stop() }
        try await server.waitUntilAnswering()
        return server
    }

    private init(port: Int, directory: String, pid: pid_t) {
        self.port = port
        self.directory = directory
        self.pid = pid
    }

    /// What coturn wrote: its log, then what it printed.
    var log: String {
        ["turnserver.log", "output"].map { (try? String(contentsOfFile: "\(directory)/\($0)", encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }

    /// Asks for a STUN Binding until one is answered, for at most 5 s; fails at once if coturn exits.
    private func waitUntilAnswering() async throws {
        let port = port
        let pid = pid
        enum Readiness: Sendable { case answering, exited(Int32), silent }
        let readiness = try await onOwnThread { () throws -> Readiness in
            let client = try TURNTestClient(serverPort: port)
            // Until coturn listens, a request is refused at once (ICMP port unreachable), so the
            // bound is on time, not on attempts.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if let status = ChildProcess.exitStatus(of: pid) { return .exited(status) }
                if client.binding(attempts: 1) == .success { return .answering }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return .silent
        }
        switch readiness {
        case .answering: return
        case .exited(let status): throw Failure.exited(status, log: log)
        case .silent: throw Failure.notAnswering(log: log)
        }
    }

    /// Stops coturn (SIGTERM to its PID, then waits for it) and deletes its files; later calls do nothing.
    func stop() async {
        guard !isStopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        kill(pid, SIGTERM)
        let pid = pid
        _ = try? await onOwnThread { ChildProcess.wait(for: pid) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A port free for both UDP and TCP on 127.0.0.1 (coturn listens on both), picked by the kernel for UDP.
    private static func freeUDPAndTCPPort() throws -> Int {
        for _ in 0..<20 {
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer {
                close(udp)
                close(tcp)
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(udp, pointer, length) == 0 && getsockname(udp, pointer, &length) == 0 && bind(tcp, pointer, length) == 0
                }
            }
            if bound { return Int(UInt16(bigEndian: address.sin_port)) }
        }
        throw Failure.socket(errno)
    }
}
