import MediaControl

/// One m-section of a publisher's offer that the router accepted: what it will receive and how to
/// recognise it.
public struct NegotiatedTrack: Sendable, Equatable {
    public var mid: String
    /// `audio` or `video`.
    public var kind: String
    public var codec: CodecName
    public var payloadType: UInt8
    /// The codec's `a=fmtp` parameters as offered (H.264's profile and packetization mode), if any.
    public var formatParameters: String?
    public var clockRate: UInt32
    /// The RTX payload type that repairs `payloadType`, when the publisher offered one.
    public var rtxPayloadType: UInt8?
    /// The RFC 2198 payload type (`red/48000/2`) carrying this Opus track, when the publisher offered
    /// it; the answer lists it first, so a browser sends it.
    public var redPayloadType: UInt8?
    /// The media source: the first announced SSRC that is not an RTX repair source; for simulcast, the
    /// first layer's (nil when the layers are named by rid, whose SSRCs come with the packets).
    public var ssrc: UInt32?
    /// The RTX repair source paired with `ssrc` by `a=ssrc-group:FID`.
    public var rtxSSRC: UInt32?
    public var cname: String?
    /// From `a=msid`, or the legacy `a=ssrc:<ssrc> msid:`; `-` means the track is in no stream.
    public var streamID: String?
    public var trackID: String?
    /// The accepted header extensions, with the ids the publisher chose.
    public var headerExtensions: [HeaderExtension]
    /// The accepted feedback, such as `nack`, `nack pli`, `ccm fir`, `goog-remb`.
    public var rtcpFeedback: [String]
    /// The simulcast layers, lowest first; empty for one encoding.
    public var layers: [NegotiatedLayer]

    public init(
        mid: String, kind: String, codec: CodecName, payloadType: UInt8, clockRate: UInt32, rtxPayloadType: UInt8?,
        redPayloadType: UInt8? = nil, ssrc: UInt32?, rtxSSRC: UInt32?, cname: String?, streamID: String?, trackID: String?,
        headerExtensions: [HeaderExtension], rtcpFeedback: [String], layers: [NegotiatedLayer] = [], formatParameters: String? = nil
    ) {
        self.formatParameters = formatParameters
        self.mid = mid
        self.kind = kind
        self.codec = codec
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.rtxPayloadType = rtxPayloadType
        self.redPayloadType = redPayloadType
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.cname = cname
        self.streamID = streamID
        self.trackID = trackID
        self.headerExtensions = headerExtensions
        self.rtcpFeedback = rtcpFeedback
        self.layers = layers
    }
}
