/// A burst of padding the router sends to find out whether the path carries more than it now sends:
/// `packetCount` packets of about `packetBytes`, their feedback tagged with `id`.
public struct ProbeCluster: Equatable, Sendable {
    public var id: Int
    /// The rate the probe tests, bits per second.
    public var targetBitrate: Double
    public var packetCount: Int

    /// A probe lasts this long at its target rate, and has `minimumPackets` to `maximumPackets` packets.
    public static let durationNanoseconds: UInt64 = 15_000_000
    public static let minimumPackets = 5
    public static let maximumPackets = 64

    public init(id: Int, targetBitrate: Double, packetBytes: Int) {
        self.id = id
        self.targetBitrate = targetBitrate
        let bytes = targetBitrate / 8 * Double(Self.durationNanoseconds) / 1e9
        packetCount = min(Self.maximumPackets, max(Self.minimumPackets, Int((bytes / Double(max(packetBytes, 1))).rounded(.up))))
    }
}
