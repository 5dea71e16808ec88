/// A receiver estimated maximum bitrate, REMB (draft-alvestrand-rmcat-remb-03): application-layer
/// feedback (PT 206, FMT 15) carrying the receiver's bandwidth estimate for the listed streams.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P| FMT=15  |   PT=206      |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of packet sender                        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of media source (0)                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  Unique identifier 'R' 'E' 'M' 'B'                            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  Num SSRC     | BR Exp    |  BR Mantissa                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |   SSRC feedback                                               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ...                                                          |
///
/// The bitrate in bits per second is mantissa (18 bits) << exponent (6 bits).
public struct RTCPReceiverEstimatedMaximumBitrate {
    /// "REMB" in ASCII, the identifier that tells REMB from other FMT 15 feedback.
    public static let identifier: UInt32 = 0x5245_4D42
    /// Bytes before the SSRC list.
    static let fixedByteCount = 20
    static let mantissaLimit: UInt64 = 1 << 18

    /// The packet this REMB was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is a REMB whose SSRC list fits and whose bitrate fits 64 bits.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .receiverEstimatedMaximumBitrate)
        let bytes = packet.bytes
        let found = bytes.uint32(at: 12)
        guard found == Self.identifier else { throw .rembIdentifierMismatch(found: found) }
        let count = Int(bytes[16])
        let available = packet.byteCountWithoutPadding - Self.fixedByteCount
        guard count * 4 <= available else { throw .rembSSRCCountPastEnd(count: count, available: available) }
        let exponent = bytes[17] >> 2
        let mantissa = bytes.uint24(at: 17) & 0x3_FFFF
        // libwebrtc rejects the same overflow rather than saturating: an estimate past 2^64 bit/s
        // can only be a corrupt packet.
        guard (UInt64(mantissa) << exponent) >> exponent == UInt64(mantissa) else {
            throw .rembBitrateOverflow(exponent: exponent, mantissa: mantissa)
        }
        self.packet = packet
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }
    /// 0 from conforming senders: the streams are in `ssrcs`.
    public var mediaSSRC: UInt32 { packet.bytes.uint32(at: 8) }

    /// BR Exp: the 6-bit left shift applied to the mantissa.
    public var bitrateExponent: UInt8 { packet.bytes[17] >> 2 }
    /// BR Mantissa: the 18 significant bits of the estimate.
    public var bitrateMantissa: UInt32 { packet.bytes.uint24(at: 17) & 0x3_FFFF }
    /// The estimate in bits per second.
    public var bitrate: UInt64 { UInt64(bitrateMantissa) << bitrateExponent }

    /// Num SSRC: how many streams the estimate applies to.
    public var ssrcCount: Int { Int(packet.bytes[16]) }

    /// The streams the estimate applies to.
    public var ssrcs: RTCPSSRCList { RTCPSSRCList(bytes: packet.bytes, start: Self.fixedByteCount, count: ssrcCount) }

    /// The exponent and mantissa that carry `bitrate`, rounding down to the 18 significant bits
    /// the field holds: a receiver's cap is better undershot than overshot.
    public static func encode(bitrate: UInt64) -> (exponent: UInt8, mantissa: UInt32) {
        var exponent: UInt8 = 0
        while bitrate >> exponent >= mantissaLimit { exponent += 1 }
        return (exponent, UInt32(truncatingIfNeeded: bitrate >> exponent))
    }

    /// Appends a REMB estimating `bitrate` bits per second for up to 255 streams.
    public static func write(
        senderSSRC: UInt32,
        bitrate: UInt64,
        ssrcs: some Collection<UInt32>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let count = ssrcs.count
        guard count <= 255 else {
            throw .tooManyItems(kind: .receiverEstimatedMaximumBitrate, count: count, maximum: 255)
        }
        let byteCount = fixedByteCount + count * 4
        let start = try writer.beginPacket(.receiverEstimatedMaximumBitrate, count: 15, byteCount: byteCount)
        let buffer = writer.buffer
        let (exponent, mantissa) = encode(bitrate: bitrate)
        buffer.setUInt32(senderSSRC, at: start + 4)
        buffer.setUInt32(0, at: start + 8)
        buffer.setUInt32(identifier, at: start + 12)
        buffer[start + 16] = UInt8(count)
        buffer.setUInt24(UInt32(exponent) << 18 | mantissa, at: start + 17)
        var offset = start + fixedByteCount
        for ssrc in ssrcs {
            buffer.setUInt32(ssrc, at: offset)
            offset += 4
        }
        writer.commit(byteCount: byteCount)
    }
}
