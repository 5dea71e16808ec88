/// Whether a track carries audio or video.
public enum MediaKind: String, Sendable, Codable {
    case audio
    case video
}

/// The codecs the router forwards. It never decodes them; it reads their payload descriptors to find
/// key frames and frame boundaries.
public enum CodecName: String, Sendable, Codable {
    case opus
    case vp8

    public var kind: MediaKind {
        switch self {
        case .opus: .audio
        case .vp8: .video
        }
    }

    /// The RTP clock rate every Opus and VP8 stream uses.
    public var clockRate: UInt32 {
        switch self {
        case .opus: 48_000
        case .vp8: 90_000
        }
    }
}

/// One codec as negotiated for one stream: which payload type carries it, and its retransmission.
public struct CodecParameters: Equatable, Sendable, Codable {
    public var name: CodecName
    public var payloadType: UInt8
    /// The payload type of RFC 4588 retransmissions, when the stream uses a separate RTX stream.
    public var rtxPayloadType: UInt8?

    public init(name: CodecName, payloadType: UInt8, rtxPayloadType: UInt8? = nil) {
        self.name = name
        self.payloadType = payloadType
        self.rtxPayloadType = rtxPayloadType
    }

    public var kind: MediaKind { name.kind }
    public var clockRate: UInt32 { name.clockRate }
}
