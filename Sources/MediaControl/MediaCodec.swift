/// Whether a track carries audio or video.
public enum MediaKind: String, Sendable, Codable {
    case audio
    case video
}

/// The codecs the router forwards. It never decodes them; it reads their payload descriptors to find
/// key frames and frame boundaries. The one list of them: negotiation offers and accepts these and
/// no others, preferring them in the order they are declared here, and the SDP fuzz target, its seed
/// replay in `make test` and the randomized SDP test hold every track negotiation accepts to it.
public enum CodecName: String, Sendable, Codable, CaseIterable {
    case opus
    case vp8
    /// RFC 6184 packetization mode 1 (single NAL units, STAP-A, FU-A): what OBS, ffmpeg and
    /// hardware encoders send.
    case h264

    public var kind: MediaKind {
        switch self {
        case .opus: .audio
        case .vp8, .h264: .video
        }
    }

    /// Its name in an SDP `a=rtpmap` line (RFC 7587, RFC 7741, RFC 6184), which SDP compares
    /// without regard to case.
    public var encodingName: String {
        switch self {
        case .opus: "opus"
        case .vp8: "VP8"
        case .h264: "H264"
        }
    }

    /// The RTP clock rate every Opus, VP8 and H.264 stream uses.
    public var clockRate: UInt32 {
        switch self {
        case .opus: 48_000
        case .vp8, .h264: 90_000
        }
    }
}

/// One codec as negotiated for one stream: which payload type carries it, and its retransmission.
public struct CodecParameters: Equatable, Sendable, Codable {
    public var name: CodecName
    public var payloadType: UInt8
    /// The payload type of RFC 4588 retransmissions, when the stream uses a separate RTX stream.
    public var rtxPayloadType: UInt8?
    /// The payload type of RFC 2198 redundant audio (`red/48000/2`, Opus inside), when the publisher
    /// sends it: each packet then repeats earlier frames ahead of its own.
    public var redPayloadType: UInt8?

    public init(name: CodecName, payloadType: UInt8, rtxPayloadType: UInt8? = nil, redPayloadType: UInt8? = nil) {
        self.name = name
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
        self.redPayloadType = redPayloadType
    }

    public var kind: MediaKind { name.kind }
    public var clockRate: UInt32 { name.clockRate }
}
