import SwitchyardClient

/// Applies a `NetworkImpairment` to one direction of one client's UDP traffic, told apart by the
/// client's port, with the kernel rather than the client: a real queue with a real tail drop, and
/// silent loss. Works on any interface (the veth of `KernelNetwork`, or a namespace's `lo` where
/// daemon and clients share one loopback); it only turns impairments into `tc` and `nft` commands,
/// which the caller runs (`KernelShapedLinks` does, at a schedule's times).
///
/// - The rate cap: the egress interface the packets leave by has an `htb` root (`prepareEgress`)
///   whose unclassified traffic, every port nobody shapes, goes out unqueued; a `u32` filter on the
///   client's port sends its packets to an `htb` class of their own (`1:<classMinor>`), whose leaf
///   is a token bucket (`tbf`) at the cap with one full-size packet of burst, so the link
///   serialises packets as a link of that rate does, and a byte limit of `queueMilliseconds` at the
///   cap (at least `smallestQueueBytes`): what finds it full is dropped at its tail. The bucket, not
///   the `htb` class, does the shaping because the daemon sends runs of equal packets as one
///   segmented (GSO) send, which reaches the qdisc as one large packet: `tbf` splits one larger than
///   its burst into the packets a router on the path would see and queues (or drops) each, where a
///   byte-limited fifo under `htb` would drop a whole run at once. A step without a cap leaves the
///   bucket at `unlimitedRate`, which nothing here reaches.
/// - Loss: an nftables chain of the client's own in the `input` hook of the namespace that receives
///   the packets, jumped to on the client's port and the arrival interface, dropping
///   `numgen random mod 1000 < loss × 1000` (independent loss, to 0.1 %), or everything at loss 1 (a
///   blackout of that direction; give both directions loss 1 for a blackout both ways). A drop at
///   input is silent, as a real network's loss is (one at `output` would return EPERM to the sender).
/// - Refused (`refusal(of:)`): delay and jitter, since this kernel has no `netem`, and bursty loss.
public struct KernelLinkShaper: Equatable, Sendable {
    public enum Direction: String, Sendable {
        /// What reaches the client (a subscriber's downlink): the client's port is the destination.
        case toClient
        /// What the client sends (a publisher's uplink): the client's port is the source.
        case fromClient
    }

    /// Where one direction's packets queue (the interface they leave by, in the namespace holding
    /// it) and are dropped (the input hook of the namespace receiving them, on the interface they
    /// arrive by). A nil namespace is this process's own.
    public struct Placement: Equatable, Sendable {
        public var egressNamespace: String?
        public var egressInterface: String
        public var ingressNamespace: String?
        public var ingressInterface: String

        public init(egressNamespace: String?, egressInterface: String, ingressNamespace: String?, ingressInterface: String) {
            self.egressNamespace = egressNamespace
            self.egressInterface = egressInterface
            self.ingressNamespace = ingressNamespace
            self.ingressInterface = ingressInterface
        }
    }

    /// The nftables table every shaper's loss chain lives in, one per namespace.
    public static let table = "switchyard_shaper"
    /// A step without a cap: a bucket faster than anything on this machine sends.
    public static let unlimitedRate = "1gbit"
    static let unlimitedBurstBytes = 65_536
    static let unlimitedQueueBytes = 1_000_000
    /// One full-size Ethernet frame (1,514 bytes) and a little: the bucket lets one packet through
    /// at once, and splits any segmented send larger than that.
    public static let burstBytes = 1_600
    /// Two full-size packets: a queue shorter than that drops packets a link would have sent.
    public static let smallestQueueBytes = 3_000

    public let port: UInt16
    public let direction: Direction
    public let placement: Placement
    /// The `htb` class `1:<classMinor>` and its leaf's handle `<classMinor>:`, in hex as `tc` reads
    /// them; unique on the egress interface, at least 2.
    public let classMinor: UInt16

    public init(port: UInt16, direction: Direction, placement: Placement, classMinor: UInt16) {
        self.port = port
        self.direction = direction
        self.placement = placement
        self.classMinor = classMinor
    }

    /// Why the kernel cannot apply `impairment` here, or nil when it can.
    public static func refusal(of impairment: NetworkImpairment) -> String? {
        if impairment.delayMilliseconds > 0 || impairment.jitterMilliseconds > 0 {
            return "\(impairment) adds delay or jitter, which needs the kernel's netem, and this kernel has none; "
                + "a kernel-shaped link only caps, queues and drops (use --network client for delay and jitter)"
        }
        if impairment.loss > 0, impairment.loss < 1, impairment.meanBurstPackets > 1 {
            return "\(impairment) asks for loss in bursts, and nftables' numgen drops each packet independently (use --network client for burst=)"
        }
        return nil
    }

    // MARK: Interfaces and namespaces

    /// Readies an egress interface for shapers, once, before the first `install`: an `htb` root
    /// whose unclassified packets go out directly (`default 0`), with room for 10,000 of them.
    public static func prepareEgress(namespace: String?, interface: String) -> [KernelCommand] {
        [KernelCommand(KernelCommand.tc, ["qdisc", "replace", "dev", interface, "root", "handle", "1:", "htb", "default", "0", "direct_qlen", "10000"], inNamespace: namespace)]
    }

    /// Removes every shaper's queue from an egress interface.
    public static func clearEgress(namespace: String?, interface: String) -> KernelCommand {
        KernelCommand(KernelCommand.tc, ["qdisc", "del", "dev", interface, "root"], inNamespace: namespace)
    }

    /// Readies a receiving namespace for loss rules (idempotent): the table and its input chain.
    public static func prepareIngress(namespace: String?) -> [KernelCommand] {
        [KernelCommand(KernelCommand.nft, ["add table inet \(table); add chain inet \(table) input { type filter hook input priority 0; policy accept; }"], inNamespace: namespace)]
    }

    /// Removes every shaper's loss rule from a namespace.
    public static func clearIngress(namespace: String?) -> KernelCommand {
        KernelCommand(KernelCommand.nft, ["delete table inet \(table)"], inNamespace: namespace)
    }

    // MARK: One client's direction

    /// The client's class, queue, filter and loss chain, in force with `impairment`; after the
    /// interfaces were prepared.
    public func install(_ impairment: NetworkImpairment) throws(KernelNetworkError) -> [KernelCommand] {
        if let refusal = Self.refusal(of: impairment) { throw .unsupportedImpairment(refusal) }
        let egress = placement.egressInterface
        return [
            tc(["class", "add", "dev", egress, "parent", "1:", "classid", classID, "htb", "rate", "10gbit", "ceil", "10gbit", "quantum", "1514"]),
            tc(["qdisc", "add", "dev", egress, "parent", classID, "handle", "\(minor):"] + bucket(impairment)),
            tc([
                "filter", "add", "dev", egress, "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip", "protocol", "17", "0xff",
                "match", "ip", portField, "\(port)", "0xffff", "flowid", classID,
            ]),
            nft(
                "add chain inet \(Self.table) \(chain); add rule inet \(Self.table) input iifname \"\(placement.ingressInterface)\" udp \(portField) \(port) jump \(chain)"
                    + lossRule(impairment)),
        ]
    }

    /// What turns `previous` into `next`: the bucket when the cap or its queue changed, the loss
    /// chain when the loss did; nothing when neither did.
    public func change(from previous: NetworkImpairment, to next: NetworkImpairment) throws(KernelNetworkError) -> [KernelCommand] {
        if let refusal = Self.refusal(of: next) { throw .unsupportedImpairment(refusal) }
        var commands: [KernelCommand] = []
        if bucket(previous) != bucket(next) {
            commands.append(tc(["qdisc", "change", "dev", placement.egressInterface, "parent", classID, "handle", "\(minor):"] + bucket(next)))
        }
        if perMille(previous.loss) != perMille(next.loss) {
            commands.append(nft("flush chain inet \(Self.table) \(chain)" + lossRule(next)))
        }
        return commands
    }

    /// The bucket's parameters for `impairment`: its cap with one packet of burst and the queue in
    /// bytes at that cap, or the unlimited bucket.
    func bucket(_ impairment: NetworkImpairment) -> [String] {
        guard impairment.bandwidth > 0 else {
            return ["tbf", "rate", Self.unlimitedRate, "burst", "\(Self.unlimitedBurstBytes)", "limit", "\(Self.unlimitedQueueBytes)"]
        }
        return ["tbf", "rate", "\(impairment.bandwidth)bit", "burst", "\(Self.burstBytes)", "limit", "\(queueBytes(impairment))"]
    }

    /// `queueMilliseconds` of the cap, in bytes, at least two full-size packets.
    func queueBytes(_ impairment: NetworkImpairment) -> Int {
        max(Self.smallestQueueBytes, Int(Double(impairment.bandwidth) / 8 * impairment.queueMilliseconds / 1000))
    }

    private func lossRule(_ impairment: NetworkImpairment) -> String {
        let share = perMille(impairment.loss)
        if share == 0 { return "" }
        if share >= 1000 { return "; add rule inet \(Self.table) \(chain) drop" }
        return "; add rule inet \(Self.table) \(chain) numgen random mod 1000 < \(share) drop"
    }

    /// Loss in thousandths; any loss at all is at least one.
    private func perMille(_ loss: Double) -> Int {
        loss > 0 ? max(1, Int((loss * 1000).rounded())) : 0
    }

    private var minor: String { String(classMinor, radix: 16) }
    private var classID: String { "1:\(minor)" }
    private var portField: String { direction == .toClient ? "dport" : "sport" }
    private var chain: String { "\(direction == .toClient ? "to" : "from")_\(port)" }

    private func tc(_ arguments: [String]) -> KernelCommand {
        KernelCommand(KernelCommand.tc, arguments, inNamespace: placement.egressNamespace)
    }

    private func nft(_ script: String) -> KernelCommand {
        KernelCommand(KernelCommand.nft, [script], inNamespace: placement.ingressNamespace)
    }
}
