/// The video codecs the router forwards, as negotiation chooses among them.
public enum VideoCodecChoice: Sendable, Equatable {
    case vp8
    /// `H264/90000` with `packetization-mode=1` (RFC 6184).
    case h264

    /// The name `a=rtpmap` gives it.
    public var encodingName: String {
        switch self {
        case .vp8: "VP8"
        case .h264: "H264"
        }
    }
}
