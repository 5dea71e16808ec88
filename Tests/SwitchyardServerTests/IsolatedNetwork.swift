import Foundation

/// A network namespace for a client whose network blocks what the test says, joined to this one by a
/// veth pair: the daemon listens on `hostAddress` (this side), the client runs inside with
/// `commandPrefix` and reaches it at that address, and nftables in the namespace drops what its
/// `rules` name on the way out. This side has a second address, `secondHostAddress`, for a server
/// that needs the same port as the daemon (TURN over TLS on 443 beside the site's HTTPS on 443, as
/// docs/turn.md deploys them). `capDownlink` shapes what reaches the client with the kernel's token
/// bucket, a real queue with a real tail drop. Nothing outside the namespace is filtered; `remove()`
/// ends whatever still runs inside, then deletes the namespace, which takes the veth pair and its
/// qdisc with it.
final class IsolatedNetwork: Sendable {
    /// What the client's network lets through.
    enum Block: Sendable {
        /// Nothing: the namespace is only there to shape the client's link.
        case nothing
        /// Every UDP datagram is dropped: only TCP reaches the daemon.
        case udp
        /// Everything but TCP to `port` is dropped (a network that passes only HTTPS).
        case allButTCP(port: UInt16)

        var rules: String? {
            switch self {
            case .nothing: nil
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
            if let rules = block.rules {
                try inside("/usr/sbin/nft", ["add table inet blocked; add chain inet blocked out { type filter hook output priority 0; policy accept; \(rules); }"])
            }
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

    /// Shapes everything this side sends into the namespace — the client's downlink — to
    /// `bitsPerSecond` with a token bucket (`tc ... tbf`) on the host side of the veth pair; called
    /// again, it changes the rate. What exceeds the rate waits in the queue, and what finds the queue
    /// full is dropped at its tail, as at a real access link's bottleneck. The bucket holds two
    /// full-size packets (3,200 bytes), so a frame's packets beyond those queue rather than pass at the
    /// veth's speed. The queue holds `queue` worth of the rate, given in bytes (`limit`): tbf's own
    /// `latency` would add the bucket to it, another 100 ms at 250 kbps.
    func capDownlink(bitsPerSecond: Int, queue: Duration) throws {
        let queueBytes = Int(Double(bitsPerSecond) / 8 * (queue / .seconds(1)))
        try ChildProcess.run(
            "/usr/sbin/tc",
            ["qdisc", "replace", "dev", hostInterface, "root", "tbf", "rate", "\(bitsPerSecond)bit", "burst", "3200", "limit", "\(max(queueBytes, 1500))"])
    }

    /// Takes the cap away: the veth sends at its own speed again, and what was queued goes out.
    func liftDownlinkCap() throws {
        try ChildProcess.run("/usr/sbin/tc", ["qdisc", "del", "dev", hostInterface, "root"])
    }

    /// What the cap's queue has done since it was set (`tc -s qdisc show`).
    struct QueueCounters: Sendable, CustomStringConvertible {
        var sentBytes = 0
        var sentPackets = 0
        var droppedPackets = 0
        var backlogBytes = 0

        var description: String { "sent \(sentBytes) B in \(sentPackets) packets, dropped \(droppedPackets), backlog \(backlogBytes) B" }
    }

    /// The cap's counters; zeros when no cap is set.
    func downlinkQueueCounters() throws -> QueueCounters {
        let words = try ChildProcess.run("/usr/sbin/tc", ["-s", "qdisc", "show", "dev", hostInterface])
            .split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "(" || $0 == ")" })
        func number(after word: String, offset: Int = 1) -> Int {
            guard let index = words.firstIndex(where: { $0 == word }), index + offset < words.count else { return 0 }
            return Int(words[index + offset].trimmingCharacters(in: .letters)) ?? 0
        }
        guard words.contains("tbf") else { return QueueCounters() }
        return QueueCounters(
            sentBytes: number(after: "Sent"), sentPackets: number(after: "Sent", offset: 3), droppedPackets: number(after: "dropped"),
            backlogBytes: number(after: "backlog"))
    }

    /// Ends every process still inside the namespace (a browser whose driver was ended leaves its
    /// children there), by the PIDs the kernel lists for it, then deletes the namespace and the veth pair.
    func remove() {
        let inside = (try? ChildProcess.run("/usr/sbin/ip", ["netns", "pids", name])) ?? ""
        for pid in inside.split(whereSeparator: \.isWhitespace).compactMap({ pid_t($0) }) { kill(pid, SIGKILL) }
        try? ChildProcess.run("/usr/sbin/ip", ["netns", "del", name])
        try? ChildProcess.run("/usr/sbin/ip", ["link", "del", hostInterface])
    }
}
