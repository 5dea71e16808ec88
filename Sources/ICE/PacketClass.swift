/// What a datagram on a shared WebRTC port carries, told by its first byte (RFC 7983 section 7):
///
///                      +----------------+
///                      |        [0..3] -+--> forward to STUN
///                      |                |
///                      |      [16..19] -+--> forward to ZRTP
///                      |                |
///          packet -->  |      [20..63] -+--> forward to DTLS
///                      |                |
///                      |      [64..79] -+--> forward to TURN Channel
///                      |                |
///                      |    [128..191] -+--> forward to RTP/RTCP
///                      +----------------+
public enum PacketClass: Hashable, Sendable, CaseIterable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtpOrRTCP
    /// Any other first byte: drop the datagram.
    case unknown

    /// The class of a datagram whose first byte is `firstByte`.
    public static func demultiplex(firstByte: UInt8) -> PacketClass {
        switch firstByte {
        case 0...3: .stun
        case 16...19: .zrtp
        case 20...63: .dtls
        case 64...79: .turnChannel
        case 128...191: .rtpOrRTCP
        default: .unknown
        }
    }
}
