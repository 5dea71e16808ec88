/// A track a client publishes on its transport.
public struct ProducerOptions: Equatable, Sendable, Codable {
    public var codec: CodecParameters
    /// The SSRC the client sends the track with.
    public var ssrc: UInt32
    /// The SSRC of its RFC 4588 retransmission stream, when it has one.
    public var rtxSSRC: UInt32?
    /// The one-byte header extension id the publisher negotiated for abs-send-time, when it did. The
    /// router stamps its padding probes with it, so a subscriber's bandwidth estimator (which reads
    /// only packets that carry it) counts the probes.
    public var absoluteSendTimeID: UInt8?
    /// A simulcast video track's encodings, lowest first; empty for one encoding. When given, the
    /// first layer's SSRCs are `ssrc` and `rtxSSRC` (0 and nil while it is known only by its rid).
    public var layers: [VideoLayer]
    /// The one-byte header extension ids of the RTP stream id and the repaired RTP stream id, for
    /// layers named by `rid`.
    public var rtpStreamIDExtensionID: UInt8?
    public var repairedRTPStreamIDExtensionID: UInt8?
    /// The one-byte header extension id of the RFC 6464 audio level, for an audio track that carries
    /// it: the router reads each packet's level for the session's speakers.
    public var audioLevelID: UInt8?

    public init(codec: CodecParameters, ssrc: UInt32, rtxSSRC: UInt32? = nil, absoluteSendTimeID: UInt8? = nil) {
        self.codec = codec
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.absoluteSendTimeID = absoluteSendTimeID
        layers = []
    }

    /// A simulcast track of `layers` (lowest first, at least one).
    public init(codec: CodecParameters, layers: [VideoLayer], absoluteSendTimeID: UInt8? = nil) {
        precondition(!layers.isEmpty, "a simulcast track needs at least one layer")
        self.init(codec: codec, ssrc: layers[0].ssrc ?? 0, rtxSSRC: layers[0].rtxSSRC, absoluteSendTimeID: absoluteSendTimeID)
        self.layers = layers
    }

    /// Every SSRC the track is announced to arrive with: each encoding's and its retransmission
    /// stream's (not those the router learns from rids).
    public var allSSRCs: [UInt32] {
        layers.isEmpty ? [ssrc] + (rtxSSRC.map { [$0] } ?? []) : layers.flatMap { [$0.ssrc, $0.rtxSSRC].compactMap { $0 } }
    }

    public var kind: MediaKind { codec.kind }
}

/// What a subscriber needs to receive a consumer: the SSRC and payload type the router sends with.
public struct ConsumerParameters: Equatable, Sendable, Codable {
    public var consumerID: ConsumerID
    public var producerID: ProducerID
    public var codec: CodecParameters
    public var ssrc: UInt32
    /// The SSRC of the RFC 4588 stream retransmissions come on (with `codec.rtxPayloadType`); nil when
    /// they come on `ssrc` itself. WebRTC video consumers have one, so a receiver's reports about
    /// `ssrc` count what the network lost, not what retransmission repaired.
    public var rtxSSRC: UInt32?

    public init(consumerID: ConsumerID, producerID: ProducerID, codec: CodecParameters, ssrc: UInt32, rtxSSRC: UInt32? = nil) {
        self.consumerID = consumerID
        self.producerID = producerID
        self.codec = codec
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }

    public var kind: MediaKind { codec.kind }
}

/// Why a consumer is not forwarding. A consumer forwards only while it has no reason at all, so a
/// quality resume never overrides a person's choice.
public enum ConsumerPauseReason: String, Hashable, Sendable, CaseIterable, Codable {
    /// The subscriber chose not to receive this track (`subscribeToVideo` false).
    case subscriberChoice
    /// The publisher stopped sending this track.
    case publisherChoice
    /// The audio-fallback policy turned the track off for this subscriber.
    case quality
    /// The worker was offered more than it can forward on time and turned this subscriber's video
    /// off (overload shedding, docs/capacity.md#overload).
    case overload
}
