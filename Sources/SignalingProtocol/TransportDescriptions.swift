/// A UDP endpoint.
public struct EndpointAddress: Codable, Equatable, Sendable {
    /// A dotted-quad IPv4 address.
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    private enum CodingKeys: String, CodingKey {
        case host, port
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        host = try container.decode(String.self, forKey: .host)
        port = try container.decodeInteger(UInt16.self, forKey: .port)
    }
}

/// SRTP keying of one direction: a profile name (`AEAD_AES_128_GCM`, `AEAD_AES_256_GCM`,
/// `AES_CM_128_HMAC_SHA1_80`, `AES_CM_128_HMAC_SHA1_32`) and an RFC 4568 key parameter (`inline:<base64>`).
public struct SRTPKeying: Codable, Equatable, Sendable {
    public var profile: String
    public var key: String

    public init(profile: String, key: String) {
        self.profile = profile
        self.key = key
    }
}

/// What a client offers for the plain SRTP transport of one publish or subscribe.
public struct TransportOffer: Codable, Equatable, Sendable {
    /// Where the client receives; omitted to let the router learn it from the first packet that
    /// authenticates.
    public var remote: EndpointAddress?
    /// How the client protects what it sends to the router.
    public var srtp: SRTPKeying
    /// The one-byte header extension id (1-14) with which the client takes part in transport-wide
    /// congestion control; omitted when it does not.
    public var transportWideSequenceExtensionId: UInt8?
    /// For a subscriber: the payload type at which the client takes RFC 2198 redundant audio
    /// (docs/red.md); omitted when it takes plain Opus only, and the router then passes it each
    /// redundant packet's primary frame alone.
    public var redPayloadType: UInt8?

    public init(
        remote: EndpointAddress? = nil, srtp: SRTPKeying, transportWideSequenceExtensionId: UInt8? = nil, redPayloadType: UInt8? = nil
    ) {
        self.remote = remote
        self.srtp = srtp
        self.transportWideSequenceExtensionId = transportWideSequenceExtensionId
        self.redPayloadType = redPayloadType
    }

    private enum CodingKeys: String, CodingKey {
        case remote, srtp, transportWideSequenceExtensionId, redPayloadType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        remote = try container.decodeIfPresent(EndpointAddress.self, forKey: .remote)
        srtp = try container.decode(SRTPKeying.self, forKey: .srtp)
        transportWideSequenceExtensionId = try container.decodeIntegerIfPresent(UInt8.self, forKey: .transportWideSequenceExtensionId)
        redPayloadType = try container.decodeIntegerIfPresent(UInt8.self, forKey: .redPayloadType)
    }
}

/// The router's side of a plain SRTP transport: where to send, and how the router protects what it sends.
public struct TransportAnswer: Codable, Equatable, Sendable {
    public var local: EndpointAddress
    public var srtp: SRTPKeying

    public init(local: EndpointAddress, srtp: SRTPKeying) {
        self.local = local
        self.srtp = srtp
    }
}

/// The codecs a track can carry.
public enum TrackCodec: String, Codable, Equatable, Sendable {
    case opus
    case vp8
    /// RFC 6184, packetization mode 1.
    case h264
}

/// One RTP stream: its codec, payload type, SSRC and optional RFC 4588 retransmission stream; or,
/// for simulcast video, its `layers`, lowest first, each with its SSRCs (`ssrc` and `rtxSsrc` may
/// then be left out; they are the first layer's).
public struct TrackDescription: Codable, Equatable, Sendable {
    public var codec: TrackCodec
    public var payloadType: UInt8
    public var ssrc: UInt32
    public var rtxPayloadType: UInt8?
    public var rtxSsrc: UInt32?
    public var layers: [LayerDescription]?
    /// For an Opus track of a plain publisher: the one-byte header extension id (1-14) its packets
    /// carry the RFC 6464 audio level in, so the router can tell who speaks (docs/speakers.md).
    public var audioLevelId: UInt8?
    /// For an Opus track: the payload type of its RFC 2198 redundant packets (`red/48000/2` with this
    /// track's Opus inside), when it sends them (docs/red.md).
    public var redPayloadType: UInt8?

    public init(
        codec: TrackCodec, payloadType: UInt8, ssrc: UInt32, rtxPayloadType: UInt8? = nil, rtxSsrc: UInt32? = nil,
        layers: [LayerDescription]? = nil, audioLevelId: UInt8? = nil, redPayloadType: UInt8? = nil
    ) {
        self.audioLevelId = audioLevelId
        self.redPayloadType = redPayloadType
        self.codec = codec
        self.payloadType = payloadType
        self.ssrc = ssrc
        self.rtxPayloadType = rtxPayloadType
        self.rtxSsrc = rtxSsrc
        self.layers = layers
    }

    private enum CodingKeys: String, CodingKey {
        case codec, payloadType, ssrc, rtxPayloadType, rtxSsrc, layers, audioLevelId, redPayloadType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        codec = try container.decode(TrackCodec.self, forKey: .codec)
        payloadType = try container.decodeInteger(UInt8.self, forKey: .payloadType)
        rtxPayloadType = try container.decodeIntegerIfPresent(UInt8.self, forKey: .rtxPayloadType)
        layers = try container.decodeIfPresent([LayerDescription].self, forKey: .layers)
        audioLevelId = try container.decodeIntegerIfPresent(UInt8.self, forKey: .audioLevelId)
        redPayloadType = try container.decodeIntegerIfPresent(UInt8.self, forKey: .redPayloadType)
        if let first = layers?.first, !container.contains(.ssrc) {
            ssrc = first.ssrc
            rtxSsrc = first.rtxSsrc
        } else {
            ssrc = try container.decodeInteger(UInt32.self, forKey: .ssrc)
            rtxSsrc = try container.decodeIntegerIfPresent(UInt32.self, forKey: .rtxSsrc)
        }
    }
}
