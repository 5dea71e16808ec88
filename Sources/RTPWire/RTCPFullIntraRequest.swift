/// A full intra request, FIR (RFC 5104 section 4.3.1): payload-specific feedback (PT 206, FMT 4)
/// asking each listed media sender for a decoder refresh point.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=4  |    PT=206     |          length               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of packet sender                        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |             SSRC of media source (unused) = 0                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                              SSRC                             |  FCI entry,
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+  one or more
///     | Seq nr.       |    Reserved                                   |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// The target SSRC sits in each entry rather than the media source field, so one FIR can address
/// several senders; the sequence number lets a sender tell a repeated request from a new one.
public struct RTCPFullIntraRequest {
    /// Bytes of the header and the two SSRCs: where the entries start.
    static let fixedByteCount = 12

    /// One FCI entry.
    public struct Item: Hashable, Sendable, RTCPFixedSizeItem {
        /// Bytes of one entry on the wire.
        public static let wireByteCount = 8

        /// The media sender asked for a refresh.
        public var ssrc: UInt32
        /// Incremented by the requester for each new request to this sender, repeated on retries.
        public var sequenceNumber: UInt8

        /// An entry asking `ssrc` for a refresh, request number `sequenceNumber`.
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }

        /// Reads one from `offset`; the caller guarantees `wireByteCount` bytes are there.
        public init(rtcpBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
            ssrc = bytes.uint32(at: offset)
            sequenceNumber = bytes[offset + 4]
        }
    }

    /// The packet this FIR was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is a FIR with a whole number of entries.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .fullIntraRequest)
        let itemBytes = packet.byteCountWithoutPadding - Self.fixedByteCount
        guard itemBytes % Item.wireByteCount == 0 else { throw .firItemsNotMultipleOfEight(byteCount: itemBytes) }
        self.packet = packet
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }
    /// Unused by FIR and 0 from conforming senders; kept for diagnostics.
    public var mediaSSRC: UInt32 { packet.bytes.uint32(at: 8) }

    /// The FCI entries, decoded as they are accessed.
    public var items: RTCPItemList<Item> {
        RTCPItemList(
            bytes: packet.bytes,
            start: Self.fixedByteCount,
            count: (packet.byteCountWithoutPadding - Self.fixedByteCount) / Item.wireByteCount)
    }

    /// Appends a FIR with one entry per item (at least one).
    public static func write(
        senderSSRC: UInt32,
        items: some Collection<Item>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        guard !items.isEmpty else { throw .noItems(kind: .fullIntraRequest) }
        let byteCount = fixedByteCount + items.count * Item.wireByteCount
        let start = try writer.beginPacket(.fullIntraRequest, count: 4, byteCount: byteCount)
        let buffer = writer.buffer
        buffer.setUInt32(senderSSRC, at: start + 4)
        buffer.setUInt32(0, at: start + 8)
        var offset = start + fixedByteCount
        for item in items {
            buffer.setUInt32(item.ssrc, at: offset)
            buffer[offset + 4] = item.sequenceNumber
            buffer.setUInt24(0, at: offset + 5)
            offset += Item.wireByteCount
        }
        writer.commit(byteCount: byteCount)
    }
}
