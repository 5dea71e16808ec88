/// The `archives` section of the daemon's configuration (docs/configuration.md).
public struct ArchivingConfiguration: Equatable, Sendable {
    /// Where archives are written, one directory per archive named by its id.
    public var directory: String
    /// An archive whose files together pass this stops as `failed` / `sizeLimit`.
    public var maximumBytesPerArchive: Int64
    /// An archive stops as `failed` / `diskFull` when its disk has less free than this, and none starts.
    public var minimumFreeBytes: Int64
    /// Archives recording at once on this node.
    public var maximumConcurrent: Int
    /// Packets the ring between a session's worker and its archive's writer holds (1.5 KB each):
    /// what a slow disk may fall behind before packets are dropped.
    public var ringPackets: Int

    public init(
        directory: String, maximumBytesPerArchive: Int64 = 2 << 30, minimumFreeBytes: Int64 = 1 << 30,
        maximumConcurrent: Int = 64,
        ringPackets: Int = 4096
    ) {
        self.directory = directory
        self.maximumBytesPerArchive = maximumBytesPerArchive
        self.minimumFreeBytes = minimumFreeBytes
        self.maximumConcurrent = maximumConcurrent
        self.ringPackets = ringPackets
    }
}
