import Dispatch
import Foundation
import Glibc
import Synchronization

/// The network of a `--network kernel` run: two network namespaces joined by a veth pair, the daemon
/// in one (`serverNamespace`, at `serverAddress`), the bench's clients in the other
/// (`clientNamespace`, at `clientAddress`), on a private /30 and nothing else: no route out, so the
/// run's traffic crosses the pair and nothing outside sees it. `KernelShapedLinks` shapes the pair.
///
/// The bench (as root) makes it and runs itself again inside the client namespace (`runBench`),
/// telling the child by `environmentKey`; the child starts its daemon inside the server namespace.
/// The parent deletes both namespaces when the child ends, also after SIGINT or SIGTERM.
public struct KernelNetwork: Codable, Equatable, Sendable {
    /// Set in the child's environment to this network, as JSON.
    public static let environmentKey = "SWITCHYARD_BENCH_KERNEL_NETWORK"
    /// 10.233.0.0/30: private, clear of the 10.231.x.x the tests use. Each run's namespaces are its
    /// own, so two runs at once may both use it.
    public static let serverAddressDefault = "10.233.0.1"
    public static let clientAddressDefault = "10.233.0.2"
    static let prefixLength = 30

    public var serverNamespace: String
    public var clientNamespace: String
    /// The veth end in the server namespace (what the daemon sends by: the clients' downlinks queue
    /// on it) and the one in the client namespace (the clients' uplinks queue on it).
    public var serverInterface: String
    public var clientInterface: String
    public var serverAddress: String
    public var clientAddress: String

    /// Names made from `tag` (the bench's process id): `swy-<tag>-srv`, `swy-<tag>-cli`, and
    /// interfaces `swy<tag>s` / `swy<tag>c` (at most 15 characters).
    public init(tag: Int32) {
        serverNamespace = "swy-\(tag)-srv"
        clientNamespace = "swy-\(tag)-cli"
        serverInterface = "swy\(tag)s"
        clientInterface = "swy\(tag)c"
        serverAddress = Self.serverAddressDefault
        clientAddress = Self.clientAddressDefault
    }

    /// The network the parent bench made, when this process is its child; nil otherwise.
    public static func fromEnvironment() throws(KernelNetworkError) -> KernelNetwork? {
        guard let text = ProcessInfo.processInfo.environment[environmentKey] else { return nil }
        guard let network = try? JSONDecoder().decode(KernelNetwork.self, from: Data(text.utf8)) else { throw .unreadableLayout(text) }
        return network
    }

    /// The commands that make the namespaces, the pair and the addresses, `lo` up in both.
    public var creation: [KernelCommand] {
        let ip = KernelCommand.ip
        return [
            KernelCommand(ip, ["netns", "add", serverNamespace]),
            KernelCommand(ip, ["netns", "add", clientNamespace]),
            KernelCommand(ip, ["link", "add", serverInterface, "netns", serverNamespace, "type", "veth", "peer", "name", clientInterface, "netns", clientNamespace]),
            KernelCommand(ip, ["-n", serverNamespace, "addr", "add", "\(serverAddress)/\(Self.prefixLength)", "dev", serverInterface]),
            KernelCommand(ip, ["-n", clientNamespace, "addr", "add", "\(clientAddress)/\(Self.prefixLength)", "dev", clientInterface]),
            KernelCommand(ip, ["-n", serverNamespace, "link", "set", serverInterface, "up"]),
            KernelCommand(ip, ["-n", clientNamespace, "link", "set", clientInterface, "up"]),
            KernelCommand(ip, ["-n", serverNamespace, "link", "set", "lo", "up"]),
            KernelCommand(ip, ["-n", clientNamespace, "link", "set", "lo", "up"]),
        ]
    }

    /// Makes the network; on a failure, removes what was made.
    public func create() throws(KernelNetworkError) {
        do {
            for command in creation { try command.run() }
        } catch {
            remove()
            throw error
        }
    }

    /// Ends whatever still runs inside either namespace (a daemon the child started and left
    /// draining), SIGTERM first and SIGKILL after 6 s, then deletes both; the veth pair goes with them.
    public func remove() {
        for signal in [SIGTERM, SIGKILL] {
            let inside = [serverNamespace, clientNamespace].flatMap(processes(in:))
            if inside.isEmpty { break }
            for pid in inside { kill(pid, signal) }
            for _ in 0..<60 where ![serverNamespace, clientNamespace].flatMap(processes(in:)).isEmpty { usleep(100_000) }
        }
        for namespace in [serverNamespace, clientNamespace] {
            _ = try? KernelCommand(KernelCommand.ip, ["netns", "del", namespace]).run()
        }
    }

    private func processes(in namespace: String) -> [pid_t] {
        let listed = (try? KernelCommand(KernelCommand.ip, ["netns", "pids", namespace]).run()) ?? ""
        return listed.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
    }

    /// Where one direction of a client's traffic queues and drops: what reaches a client leaves the
    /// server namespace by its veth end and is dropped at the client namespace's input; what a
    /// client sends, the other way round.
    public func placement(_ direction: KernelLinkShaper.Direction) -> KernelLinkShaper.Placement {
        switch direction {
        case .toClient:
            KernelLinkShaper.Placement(
                egressNamespace: serverNamespace, egressInterface: serverInterface, ingressNamespace: clientNamespace, ingressInterface: clientInterface)
        case .fromClient:
            KernelLinkShaper.Placement(
                egressNamespace: clientNamespace, egressInterface: clientInterface, ingressNamespace: serverNamespace, ingressInterface: serverInterface)
        }
    }

    /// The prefix that runs a command inside the server namespace.
    var serverCommandPrefix: [String] { [KernelCommand.ip, "netns", "exec", serverNamespace] }

    /// The parent's part of a `--network kernel` run: makes a network, runs this executable again
    /// with `arguments` inside its client namespace (`environmentKey` set), forwards SIGINT and
    /// SIGTERM to it, and returns its exit status (128 + a signal that ended it) once it ended and
    /// the network is gone.
    public static func runBench(arguments: [String], progress: @escaping @Sendable (String) -> Void) throws(KernelNetworkError) -> Int32 {
        guard geteuid() == 0 else { throw .notRoot }
        let network = KernelNetwork(tag: getpid())
        progress("kernel network: namespaces \(network.serverNamespace) (daemon, \(network.serverAddress)) and \(network.clientNamespace) (clients, \(network.clientAddress))")
        try network.create()
        defer {
            network.remove()
            progress("kernel network: removed \(network.serverNamespace) and \(network.clientNamespace)")
        }
        guard let layout = try? JSONEncoder().encode(network) else { throw .unreadableLayout("\(network)") }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let words: [String] = [KernelCommand.ip, "netns", "exec", network.clientNamespace, executable] + arguments
        let variables: [String] = ProcessInfo.processInfo.environment.filter { $0.key != environmentKey }.map { "\($0.key)=\($0.value)" }
            + ["\(environmentKey)=\(String(decoding: layout, as: UTF8.self))"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { (argv + environment).forEach { free($0) } }

        // The child starts with SIGINT and SIGTERM at their defaults and nothing blocked, whatever
        // this process does with them while it waits.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // Handled before the child exists, so an interrupt at any moment still ends in the removal.
        let childPID = Atomic<Int32>(0)
        let forwarding = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let pid = childPID.load(ordering: .acquiring)
                if pid > 0 { kill(pid, number) }
            }
            source.resume()
            return source
        }
        defer { forwarding.forEach { $0.cancel() } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, KernelCommand.ip, nil, &attributes, argv, environment)
        guard spawned == 0 else { throw .cannotStart(command: "ip netns exec \(network.clientNamespace) \(executable)", reason: String(cString: strerror(spawned))) }
        childPID.store(child, ordering: .releasing)
        var raw: Int32 = 0
        while waitpid(child, &raw, 0) < 0, errno == EINTR {}
        return raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
    }
}
