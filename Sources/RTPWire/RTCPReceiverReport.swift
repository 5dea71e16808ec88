/// A receiver report, RR (RFC 3550 section 6.4.2): reception reports from a participant that is not
/// sending.
///
///             0                   1                   2                   3
///             0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     header |V=2|P|    RC   |   PT=RR=201   |             length            |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |                     SSRC of packet sender                     |
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     report |                 report block 1 (24 bytes)                     |
///     blocks :                              ...                              :
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///            |                  profile-specific extensions                  |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// An RR with RC = 0 is legal and common: it is how a receiver with nothing to report still opens a
/// compound packet. Profile-specific extensions are tolerated and ignored.
public struct RTCPReceiverReport: RTCPReportBlockCarrier {
    /// Bytes of the header and sender SSRC: where report blocks start.
    public static let fixedByteCount = 8

    /// The packet this report was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is an RR whose report blocks fit.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validateReportBlocks(as: .receiverReport, fixedByteCount: Self.fixedByteCount)
        self.packet = packet
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }

    /// Appends an RR with up to 31 report blocks.
    public static func write(
        senderSSRC: UInt32,
        reportBlocks: some Collection<RTCPReportBlock>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let count = reportBlocks.count
        guard count <= 31 else { throw .tooManyItems(kind: .receiverReport, count: count, maximum: 31) }
        let byteCount = fixedByteCount + count * RTCPReportBlock.wireByteCount
        let start = try writer.beginPacket(.receiverReport, count: UInt8(count), byteCount: byteCount)
        writer.buffer.setUInt32(senderSSRC, at: start + 4)
        RTCPReportBlock.writeList(reportBlocks, into: writer.buffer, at: start + fixedByteCount)
        writer.commit(byteCount: byteCount)
    }
}
