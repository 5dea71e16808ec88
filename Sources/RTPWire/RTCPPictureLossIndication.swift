/// A picture loss indication, PLI (RFC 4585 section 6.3.1): payload-specific feedback (PT 206,
/// FMT 1) asking the media sender for a key frame. It has no feedback control information.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=1  |    PT=206     |          length = 2           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of packet sender                        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of media source                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Bytes after the two SSRCs are tolerated and ignored, as libwebrtc does.
public struct RTCPPictureLossIndication {
    static let byteCount = 12

    /// The packet this PLI was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is a PLI.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .pictureLossIndication)
        self.packet = packet
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }
    /// The SSRC of the stream that needs a key frame.
    public var mediaSSRC: UInt32 { packet.bytes.uint32(at: 8) }

    /// Appends a PLI asking the sender of `mediaSSRC` for a key frame.
    public static func write(senderSSRC: UInt32, mediaSSRC: UInt32, into writer: inout RTCPWriter) throws(RTCPError) {
        let start = try writer.beginPacket(.pictureLossIndication, count: 1, byteCount: byteCount)
        writer.buffer.setUInt32(senderSSRC, at: start + 4)
        writer.buffer.setUInt32(mediaSSRC, at: start + 8)
        writer.commit(byteCount: byteCount)
    }
}
