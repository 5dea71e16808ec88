import Crypto
import Foundation
import Glibc
import MediaTestSupport
import Synchronization

/// A private coturn for one test: the shipped `Config/turnserver.conf` with what only a test
/// changes (ports, secret, the SFU's address, files in a temporary directory), started as a child
/// process on 127.0.0.1, or with TURN over TLS on port 443 of another address, and stopped by its
/// PID. Never the system service.
final class PrivateTURNServer: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case notInstalled(String, package: String)
        case socket(Int32)
        case portTaken(address: String, port: Int)
        case exited(Int32, log: String)
        case notAnswering(log: String)

        var description: String {
            switch self {
            case .notInstalled(let executable, let package): "\(executable) is not installed (apt-get install \(package); make test installs it)"
            case .socket(let code): "socket: \(String(cString: strerror(code)))"
            case .portTaken(let address, let port): "TCP port \(port) on \(address) is taken (coturn would retry binding it forever)"
            case .exited(let status, let log): "turnserver exited with \(status):\n\(log)"
            case .notAnswering(let log): "turnserver did not answer a STUN Binding (and, with TLS, a TCP connect to 443) within 5 s:\n\(log)"
            }
        }
    }

    static let executable = "/usr/bin/turnserver"
    private static let openssl = "/usr/bin/openssl"
    /// The port of TURN over TLS: the one port a network that passes only HTTPS lets through.
    static let tlsPort = 443
    /// Settings the test sets itself; the shipped file's lines for them are left out.
    private static let replacedKeys: Set<String> = [
        "listening-port", "tls-listening-port", "cert", "pkey", "static-auth-secret", "allowed-peer-ip", "external-ip",
    ]

    /// Where coturn listens and relays from: UDP and TCP on `port`, TLS on `tlsPort` when started `tlsOn` it.
    let address: String
    let port: Int
    /// base64 of the SHA-256 of the TLS certificate's public key (its SubjectPublicKeyInfo), what
    /// Chromium's `--ignore-certificate-errors-spki-list` takes; nil without TLS.
    let certificateSPKIHash: String?
    let directory: String
    let pid: pid_t
    private let isStopped = Atomic<Bool>(false)

    /// Starts coturn with `sharedSecret`, relaying only to `sfuAddress`, and returns once it answers
    /// a STUN Binding request. With `tlsAddress` it listens on that address, TURN over TLS on
    /// `tlsPort` among its listeners, with a self-signed certificate for the address made for this
    /// run; without it, on 127.0.0.1 and with no TLS.
    static func start(
        sharedSecret: String, sfuAddress: String = "127.0.0.1", tlsOn tlsAddress: String? = nil
    ) async throws -> PrivateTURNServer {
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw Failure.notInstalled(executable, package: "coturn") }
        let address = tlsAddress ?? "127.0.0.1"
        if tlsAddress != nil, !tcpPortIsFree(tlsPort, on: address) { throw Failure.portTaken(address: address, port: tlsPort) }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-turn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let port = try freeUDPAndTCPPort(on: address)
        var settings = ["# The test's own settings.", "listening-ip=\(address)", "relay-ip=\(address)", "listening-port=\(port)"]
        var certificateSPKIHash: String?
        if tlsAddress != nil {
            certificateSPKIHash = try await onOwnThread { try makeCertificate(for: address, in: directory) }
            settings += ["tls-listening-port=\(tlsPort)", "cert=\(directory)/cert.pem", "pkey=\(directory)/key.pem"]
        } else {
            // TLS is the browser tests' business; these tests speak TURN over UDP.
            settings.append("no-tls")
        }
        settings += ["static-auth-secret=\(sharedSecret)", "allowed-peer-ip=\(sfuAddress)"]
        if sfuAddress.hasPrefix("127.") {
            // The test's SFU is on loopback, which coturn refuses before it reads any allowed-peer-ip;
            // the shipped denied-peer-ip=127.0.0.0-... still refuses every other loopback address.
            settings.append("allow-loopback-peers")
        }
        settings += [
            "pidfile=\(directory)/turnserver.pid", "log-file=\(directory)/turnserver.log", "simple-log", "userdb=\(directory)/turndb",
        ]
        let shipped = try String(
            contentsOf: ConfigurationTests.repositoryRoot.appendingPathComponent("Config/turnserver.conf"), encoding: .utf8)
        let kept = shipped.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let key = line.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return !replacedKeys.contains(key)
        }
        let configuration = kept.map(String.init) + settings
        try configuration.joined(separator: "\n").write(toFile: "\(directory)/turnserver.conf", atomically: true, encoding: .utf8)
        let pid = try ChildProcess.spawn(executable, ["-c", "\(directory)/turnserver.conf"], output: "\(directory)/output")
        let server = PrivateTURNServer(
            address: address, port: port, certificateSPKIHash: certificateSPKIHash, directory: directory, pid: pid)
        StartedProcesses.register { await server.stop() }
        try await server.waitUntilAnswering()
        return server
    }

    private init(address: String, port: Int, certificateSPKIHash: String?, directory: String, pid: pid_t) {
        self.address = address
        self.port = port
        self.certificateSPKIHash = certificateSPKIHash
        self.directory = directory
        self.pid = pid
    }

    /// Writes a self-signed certificate for `address` (its subject and an IP subjectAltName) and its
    /// key to `directory`/cert.pem and key.pem; returns the base64 SHA-256 of its public key.
    private static func makeCertificate(for address: String, in directory: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: openssl) else { throw Failure.notInstalled(openssl, package: "openssl") }
        try ChildProcess.run(openssl, [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=\(address)", "-addext", "subjectAltName=IP:\(address)",
            "-keyout", "\(directory)/key.pem", "-out", "\(directory)/cert.pem",
        ])
        let publicKeyPath = "\(directory)/spki.der"
        try ChildProcess.run(openssl, ["pkey", "-in", "\(directory)/key.pem", "-pubout", "-outform", "DER", "-out", publicKeyPath])
        let publicKey = try Data(contentsOf: URL(fileURLWithPath: publicKeyPath))
        return Data(SHA256.hash(data: publicKey)).base64EncodedString()
    }

    /// What coturn wrote: its log, then what it printed.
    var log: String {
        ["turnserver.log", "output"].map { (try? String(contentsOfFile: "\(directory)/\($0)", encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }

    /// Asks for a STUN Binding until one is answered, and with TLS until its port takes a TCP
    /// connection (coturn opens its listeners one by one), for at most 5 s; fails at once if coturn exits.
    private func waitUntilAnswering() async throws {
        let (address, port, pid) = (address, port, pid)
        let withTLS = certificateSPKIHash != nil
        enum Readiness: Sendable { case answering, exited(Int32), silent }
        let readiness = try await onOwnThread { () throws -> Readiness in
            let client = try TURNTestClient(serverPort: port, address: address)
            // Until coturn listens, a request is refused at once (ICMP port unreachable), so the
            // bound is on time, not on attempts.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if let status = ChildProcess.exitStatus(of: pid) { return .exited(status) }
                let tlsListens = !withTLS || Self.tcpConnects(to: Self.tlsPort, on: address)
                if tlsListens, client.binding(attempts: 1) == .success { return .answering }
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

    /// A port free for both UDP and TCP on `host` (coturn listens on both), picked by the kernel for UDP.
    private static func freeUDPAndTCPPort(on host: String) throws -> Int {
        for _ in 0..<20 {
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer {
                close(udp)
                close(tcp)
            }
            var address = socketAddress(host, port: 0)
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

    /// Whether nothing listens on TCP `port` of `host`: coturn retries binding a taken TLS port
    /// forever instead of exiting, so a taken one is refused before it starts. SO_REUSEADDR, as
    /// coturn's own listener has, so an earlier run's connections in TIME_WAIT are no conflict.
    private static func tcpPortIsFree(_ port: Int, on host: String) -> Bool {
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(tcp) }
        var reuse: Int32 = 1
        setsockopt(tcp, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = socketAddress(host, port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(tcp, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Whether TCP `port` of `host`, an address of this machine, takes a connection.
    private static func tcpConnects(to port: Int, on host: String) -> Bool {
        let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(tcp) }
        var address = socketAddress(host, port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(tcp, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func socketAddress(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }
}
