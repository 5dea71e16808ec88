import Foundation
import Glibc
import Synchronization

/// A `switchyard` process the bench starts for one run, on a free port with a media port range big
/// enough for every client, and stops afterwards.
final class LocalDaemon: Sendable {
    let process: Process
    let url: String
    let metricsURL: String
    let configPath: String
    /// Where its archives go; removed when it stops.
    let archivesPath: String

    /// Where the daemon sends its webhooks (every event), the secret it signs them with, and its
    /// `maxQueuedEvents` (nil: the daemon's default).
    struct WebhookEndpoint {
        var url: String
        var secret: String
        var maxQueuedEvents: Int?
    }

    /// Starts `executable` with a configuration for `clients` media transports (each needs a port),
    /// sending webhooks to `webhookEndpoint` when given (the daemon's defaults otherwise: 5 s
    /// timeout, 8 sessions delivered at once, retries from 1 s). With a kernel `network`, the daemon
    /// runs inside its server namespace and listens (HTTP and media) on its address.
    /// The overload run keeps the daemon on the first core and the bench on the others
    /// (`BenchRun.keepOffTheDaemonsCore`): a daemon that saturates its core then slows its own
    /// signaling, as on a server of its own, not the bench's measurement.
    static func pinning(_ options: BenchOptions) -> [String] {
        options.overload && ProcessInfo.processInfo.activeProcessorCount >= 2 ? ["/usr/bin/taskset", "-c", "0"] : []
    }

    init(
        executable: URL, options: BenchOptions, transports: Int, webhookEndpoint: WebhookEndpoint? = nil, network: KernelNetwork? = nil
    ) async throws(BenchError) {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw .daemonFailed("no switchyard executable at \(executable.path) (build it, or pass --daemon or --server)")
        }
        guard let httpPort = Self.freePort(), let mediaFirst = Self.freePortBlock(count: transports + 64) else {
            throw .daemonFailed("no free ports on 127.0.0.1")
        }
        let host = network?.serverAddress ?? "127.0.0.1"
        archivesPath = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-bench-archives-\(getpid())-\(httpPort)").path
        var media: [String: Any] = [
            "workers": options.workers, "listenAddress": host,
            "portRange": ["first": mediaFirst, "last": mediaFirst + transports + 63],
        ]
        if let spreadThreshold = options.spreadThreshold { media["spreadThreshold"] = spreadThreshold }
        if let workerLoop = options.workerLoop { media["workerLoop"] = workerLoop }
        // The overload run measures shedding: every subscriber is admitted, whatever the worker forwards.
        if options.overload { media["overload"] = ["forwardingBudget": 0] }
        var configuration: [String: Any] = [
            // Every client comes from this one address: the per-address cap must take them all.
            "server": [
                "host": host, "port": httpPort,
                "http": ["maxConnections": max(10_000, options.clients + 100), "maxConnectionsPerAddress": max(2000, options.clients + 100)],
            ],
            "credentials": ["apiKey": options.apiKey, "apiSecret": options.apiSecret],
            "signaling": [
                "maxConnectionsPerSession": max(1000, options.clients + 16), "maxSubscribersPerConnection": max(256, options.clients + 16),
                "messagesPerSecond": 200, "messageBurst": 400,
            ],
            "media": media,
            "logging": ["level": "warning"],
            "shutdown": ["drainSeconds": 5],
            "archives": ["directory": archivesPath, "minimumFreeBytes": 0],
        ]
        // The broadcast's dropped crowd waits out the reconnection grace: a short one keeps the run short.
        if options.scenario == .broadcast, var signaling = configuration["signaling"] as? [String: Any] {
            signaling["reconnectGraceSeconds"] = 3
            configuration["signaling"] = signaling
        }
        if let webhookEndpoint {
            var webhooks: [String: Any] = ["endpoints": [["name": "bench", "url": webhookEndpoint.url, "secret": webhookEndpoint.secret]]]
            if let maxQueuedEvents = webhookEndpoint.maxQueuedEvents { webhooks["maxQueuedEvents"] = maxQueuedEvents }
            configuration["webhooks"] = webhooks
        }
        configPath = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-bench-\(getpid())-\(httpPort).json").path
        do {
            let data = try JSONSerialization.data(withJSONObject: configuration, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: configPath))
        } catch {
            throw .daemonFailed("cannot write \(configPath): \(error)")
        }
        let process = Process()
        let command = (network?.serverCommandPrefix ?? []) + Self.pinning(options) + [executable.path, "--config", configPath]
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .daemonFailed("cannot start \(executable.path): \(error)")
        }
        self.process = process
        url = "ws://\(host):\(httpPort)/v1/ws"
        metricsURL = "http://\(host):\(httpPort)/metrics"
        for _ in 0..<300 {
            if await MetricsScraper(url: metricsURL).isHealthy() { return }
            guard process.isRunning else { throw .daemonFailed("exited with status \(process.terminationStatus) before listening") }
            try? await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw .daemonFailed("not listening on port \(httpPort) after 15 s")
    }

    var pid: Int32 { process.processIdentifier }

    /// SIGTERM, and wait for the graceful shutdown.
    func stop() async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: configPath)
        try? FileManager.default.removeItem(atPath: archivesPath)
    }

    private static func freePort() -> Int? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        return ok ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    /// Media port ranges given to the daemons this process started, which bind them only as
    /// clients arrive: a daemon started beside another must not be given the same.
    private static let portBlocksGiven = Mutex<[Range<Int>]>([])

    /// The first port of `count` consecutive UDP ports that are all free now and given to no other
    /// daemon of this bench, above the ephemeral clients' usual range start.
    private static func freePortBlock(count: Int) -> Int? {
        portBlocksGiven.withLock { given in
            var first = 20_000 + Int(getpid() % 50) * 200
            while first + count < 32_000 {
                let block = first..<(first + count)
                if !given.contains(where: { $0.overlaps(block) }), block.allSatisfy(isFreeUDPPort) {
                    given.append(block)
                    return first
                }
                first += count
            }
            return nil
        }
    }

    private static func isFreeUDPPort(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
