/// One track the router sends to a subscriber, as it goes into the router's offer.
public struct OutgoingTrack: Sendable, Equatable {
    public var mid: String
    /// `audio` or `video`.
    public var kind: String
    /// The encoding name as it goes into `a=rtpmap`, such as `opus` or `VP8`.
    public var codecName: String
    public var payloadType: UInt8
    public var clockRate: UInt32
    /// The channel count for `a=rtpmap`; 2 for Opus, whatever it carries (RFC 7587 section 7).
    public var channels: Int?
    /// The SSRC the router rewrites the track's packets to.
    public var ssrc: UInt32
    public var cname: String
    public var streamID: String
    public var trackID: String
    /// The extensions the router writes, with the ids to announce.
    public var headerExtensions: [HeaderExtension]
    /// The feedback the router can act on, such as `nack`, `nack pli`, `ccm fir`.
    public var rtcpFeedback: [String]
    /// Format parameters for `a=fmtp`, such as `minptime=10;useinbandfec=1`.
    public var fmtp: String?
    /// The RFC 4588 retransmission stream, when retransmissions do not come on `ssrc`: its payload type
    /// and SSRC, announced with `a=fmtp:<rtx> apt=` and `a=ssrc-group:FID`.
    public var rtxPayloadType: UInt8?
    public var rtxSSRC: UInt32?
    /// RFC 2198 redundant audio the router can send on `ssrc` (`red/48000/2` with the track's Opus
    /// inside), offered after the codec: a subscriber that keeps it in its answer gets RED, one that
    /// drops it gets the primary frames alone.
    public var redPayloadType: UInt8?

    public init(
        mid: String, kind: String, codecName: String, payloadType: UInt8, clockRate: UInt32, channels: Int? = nil,
        ssrc: UInt32, cname: String, streamID: String, trackID: String, headerExtensions: [HeaderExtension] = [],
        rtcpFeedback: [String] = [], fmtp: String? = nil, rtxPayloadType: UInt8? = nil, rtxSSRC: UInt32? = nil,
        redPayloadType: UInt8? = nil
    ) {
        self.redPayloadType = redPayloadType
        self.mid = mid
        self.kind = kind
        self.codecName = codecName
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.channels = channels
        self.ssrc = ssrc
        self.cname = cname
        self.streamID = streamID
        self.trackID = trackID
        self.headerExtensions = headerExtensions
        self.rtcpFeedback = rtcpFeedback
        self.fmtp = fmtp
        self.rtxPayloadType = rtxPayloadType
        self.rtxSSRC = rtxSSRC
    }
}
