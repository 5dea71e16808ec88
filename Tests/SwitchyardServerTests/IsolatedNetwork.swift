import Foundation

/// A network namespace for a client whose network blocks what the test says, joined to this one by a
/// veth pair: the daemon listens on `hostAddress` (this side), the client runs inside with
/// `commandPrefix` and reaches it at that address, and nftables in the namespace drops what its
/// `rules` name on the way out. This side has a second address, `secondHostAddress`, for a server
/// that needs the same port as the daemon (TURN over TLS on 443 beside the site's HTTPS on 443, as
/// docs/turn.md deploys them). Nothing outside the namespace is filtered; `remove()` deletes the
/// namespace, which takes the veth pair with it.
final class IsolatedNetwork: Sendable {
    /// What the client's network lets through.
    enum Block: Sendable {
        /// Every UDP datagram is dropped: only TCP reaches the daemon.
        case udp
        /// Everything but TCP to `port` is dropped (a network that passes only HTTPS).
        case allButTCP(port: UInt16)

        var rules: String {
            switch self {
            case .udp: "meta l4proto udp drop"
            case .allButTCP(let port): "oifname \"lo\" accept; ct state established,related accept; tcp dport \(port) accept; drop"
            }
        }
    }

    let name: String
    let hostAddress: String
    let secondHostAddress: String
    let clientAddress: String
    private let hostInterface: String

    /// Makes the namespace; `subnet` (0-255) keeps namespaces that tests make one after another apart.
    init(blocking block: Block, subnet: UInt8) throws {
        let tag = "\(getpid() % 10_000)\(subnet)"
        name = "sy-net\(tag)"
        hostInterface = "syh\(tag)"
        let clientInterface = "syc\(tag)"
        hostAddress = "10.231.\(subnet).1"
        clientAddress = "10.231.\(subnet).2"
        secondHostAddress = "10.231.\(subnet).3"
        try? ChildProcess.run("/usr/sbin/ip", ["netns", "del", name])
        try ChildProcess.run("/usr/sbin/ip", ["netns", "add", name])
        do {
            try ChildProcess.run("/usr/sbin/ip", ["link", "add", hostInterface, "type", "veth", "peer", "name", clientInterface])
            try ChildProcess.run("/usr/sbin/ip", ["link", "set", clientInterface, "netns", name])
            try ChildProcess.run("/usr/sbin/ip", ["addr", "add", "\(hostAddress)/29", "dev", hostInterface])
            try ChildProcess.run("/usr/sbin/ip", ["addr", "add", "\(secondHostAddress)/29", "dev", hostInterface])
            try ChildProcess.run("/usr/sbin/ip", ["link", "set", hostInterface, "up"])
            try inside("/usr/sbin/ip", ["addr", "add", "\(clientAddress)/29", "dev", clientInterface])
            try inside("/usr/sbin/ip", ["link", "set", clientInterface, "up"])
            try inside("/usr/sbin/ip", ["link", "set", "lo", "up"])
            try inside("/usr/sbin/nft", ["add table inet blocked; add chain inet blocked out { type filter hook output priority 0; policy accept; \(block.rules); }"])
        } catch {
            remove()
            throw error
        }
        let network = self
        StartedProcesses.register { network.remove() }
    }

    /// Runs a command inside the namespace to its end.
    @discardableResult
    func inside(_ executable: String, _ arguments: [String]) throws -> String {
        try ChildProcess.run("/usr/sbin/ip", ["netns", "exec", name, executable] + arguments)
    }

    /// The prefix that runs a command inside the namespace.
    var commandPrefix: [String] { ["/usr/sbin/ip", "netns", "exec", name] }

    func remove() {
        try? ChildProcess.run("/usr/sbin/ip", ["netns", "del", name])
        try? ChildProcess.run("/usr/sbin/ip", ["link", "del", hostInterface])
    }
}
