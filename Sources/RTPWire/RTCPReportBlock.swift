/// A reception report block of an SR or RR (RFC 3550 section 6.4.1): what one receiver saw of one
/// source since the previous report.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 SSRC_1 (SSRC of first source)                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | fraction lost |       cumulative number of packets lost       |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           extended highest sequence number received           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      interarrival jitter                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         last SR (LSR)                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                   delay since last SR (DLSR)                  |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
public struct RTCPReportBlock: Hashable, Sendable, RTCPFixedSizeItem {
    /// Bytes of a report block on the wire.
    public static let wireByteCount = 24
    /// The range a 24-bit two's complement cumulative loss can carry.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF

    /// The source this block reports on.
    public var ssrc: UInt32
    /// Packets lost since the previous report, as a fixed-point fraction of 256.
    public var fractionLost: UInt8
    /// Packets expected minus packets received since the start; negative when duplicates outnumber
    /// losses. 24 bits signed on the wire; writing clamps to `cumulativeLostRange` as RFC 3550
    /// appendix A.3 does.
    public var cumulativeLost: Int32
    /// Cycle count in the high 16 bits, highest sequence number received in the low 16.
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the source's last SR, 0 if none.
    public var lastSenderReport: UInt32
    /// Delay between receiving that SR and sending this block, in 1/65536 seconds; 0 if none.
    public var delaySinceLastSenderReport: UInt32

    /// A block with the given fields; see each property for its unit.
    public init(
        ssrc: UInt32,
        fractionLost: UInt8,
        cumulativeLost: Int32,
        extendedHighestSequenceNumber: UInt32,
        jitter: UInt32,
        lastSenderReport: UInt32,
        delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Reads one from `offset`; the caller guarantees `wireByteCount` bytes are there.
    public init(rtcpBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
        ssrc = bytes.uint32(at: offset)
        fractionLost = bytes[offset + 4]
        // Shifting the 24 bits to the top and back arithmetically sign-extends them.
        cumulativeLost = Int32(bitPattern: bytes.uint24(at: offset + 5) << 8) >> 8
        extendedHighestSequenceNumber = bytes.uint32(at: offset + 8)
        jitter = bytes.uint32(at: offset + 12)
        lastSenderReport = bytes.uint32(at: offset + 16)
        delaySinceLastSenderReport = bytes.uint32(at: offset + 20)
    }

    /// Writes the block at `offset`, which the caller has checked has room for 24 bytes.
    func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        let clamped = Self.clampCumulativeLost(Int64(cumulativeLost))
        bytes.setUInt32(ssrc, at: offset)
        bytes[offset + 4] = fractionLost
        bytes.setUInt24(UInt32(bitPattern: clamped) & 0xFF_FFFF, at: offset + 5)
        bytes.setUInt32(extendedHighestSequenceNumber, at: offset + 8)
        bytes.setUInt32(jitter, at: offset + 12)
        bytes.setUInt32(lastSenderReport, at: offset + 16)
        bytes.setUInt32(delaySinceLastSenderReport, at: offset + 20)
    }

    /// Writes `blocks` back to back from `start`, for SR and RR; the caller checked the room.
    static func writeList(
        _ blocks: some Collection<RTCPReportBlock>,
        into bytes: UnsafeMutableRawBufferPointer,
        at start: Int
    ) {
        var offset = start
        for block in blocks {
            block.write(into: bytes, at: offset)
            offset += wireByteCount
        }
    }
}
