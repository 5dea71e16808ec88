/// A sender report, SR (RFC 3550 section 6.4.1): a sender's clock mapping and counters, plus
/// reception reports on the sources it receives.
///
///             0                   1                   2                   3
///             0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     header |V=2|P|    RC   |   PT=SR=200   |             length            |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |                         SSRC of sender                        |
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     sender |              NTP timestamp, most significant word             |
///     info   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |             NTP timestamp, least significant word             |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |                         RTP timestamp                         |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |                     sender's packet count                     |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |                      sender's octet count                     |
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     report |                 report block 1 (24 bytes)                     |
///     blocks :                              ...                              :
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///            |                  profile-specific extensions                  |
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Profile-specific extensions after the report blocks are tolerated and ignored.
public struct RTCPSenderReport: RTCPReportBlockCarrier {
    /// Bytes of the header, sender SSRC and sender info: where report blocks start.
    public static let fixedByteCount = 28

    /// The packet this report was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is an SR whose report blocks fit.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validateReportBlocks(as: .senderReport, fixedByteCount: Self.fixedByteCount)
        self.packet = packet
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }
    /// The 64-bit NTP timestamp: seconds since 1900 in the high word, fraction in the low word.
    public var ntpTimestamp: UInt64 { packet.bytes.uint64(at: 8) }
    /// The middle 32 bits of the NTP timestamp, which receivers echo back as LSR.
    public var compactNTPTimestamp: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }
    /// The RTP timestamp that corresponds to `ntpTimestamp`.
    public var rtpTimestamp: UInt32 { packet.bytes.uint32(at: 16) }
    /// RTP data packets sent since the sender started, wrapping.
    public var senderPacketCount: UInt32 { packet.bytes.uint32(at: 20) }
    /// RTP payload octets sent since the sender started, wrapping.
    public var senderOctetCount: UInt32 { packet.bytes.uint32(at: 24) }

    /// Appends an SR with up to 31 report blocks.
    public static func write(
        senderSSRC: UInt32,
        ntpTimestamp: UInt64,
        rtpTimestamp: UInt32,
        senderPacketCount: UInt32,
        senderOctetCount: UInt32,
        reportBlocks: some Collection<RTCPReportBlock>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let count = reportBlocks.count
        guard count <= 31 else { throw .tooManyItems(kind: .senderReport, count: count, maximum: 31) }
        let byteCount = fixedByteCount + count * RTCPReportBlock.wireByteCount
        let start = try writer.beginPacket(.senderReport, count: UInt8(count), byteCount: byteCount)
        let buffer = writer.buffer
        buffer.setUInt32(senderSSRC, at: start + 4)
        buffer.setUInt64(ntpTimestamp, at: start + 8)
        buffer.setUInt32(rtpTimestamp, at: start + 16)
        buffer.setUInt32(senderPacketCount, at: start + 20)
        buffer.setUInt32(senderOctetCount, at: start + 24)
        RTCPReportBlock.writeList(reportBlocks, into: buffer, at: start + fixedByteCount)
        writer.commit(byteCount: byteCount)
    }
}
