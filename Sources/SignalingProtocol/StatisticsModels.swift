/// The measured quality of one direction of a client's media path (docs/audio-fallback.md).
public struct LinkQualityReport: Codable, Equatable, Sendable {
    /// 0 (unusable) to 100 (clean).
    public var score: Double
    /// Smoothed fraction of packets lost, 0–1.
    public var lossFraction: Double
    public var jitterSeconds: Double
    public var roundTripTimeSeconds: Double?
    /// Bits per second that reached the receiver (smoothed).
    public var deliveredBitrate: Double?
    /// The bandwidth available toward the receiver (docs/bandwidth.md).
    public var availableBitrate: Double?
    /// Where `availableBitrate` comes from: `transportFeedback` (the router's send-side estimate),
    /// `receiverEstimate` (the receiver's REMB), or `delivered` (what demonstrably arrived).
    public var availableBitrateSource: String?
    /// `videoOn`, `warned`, `videoOff` or `suspended`; absent when audio fallback is off for this side.
    public var audioFallbackState: String?
    /// Measurements behind these values; 0 means none yet.
    public var samples: Int

    public init(
        score: Double, lossFraction: Double, jitterSeconds: Double, roundTripTimeSeconds: Double?, deliveredBitrate: Double?,
        availableBitrate: Double?, availableBitrateSource: String? = nil, audioFallbackState: String?, samples: Int
    ) {
        self.score = score
        self.lossFraction = lossFraction
        self.jitterSeconds = jitterSeconds
        self.roundTripTimeSeconds = roundTripTimeSeconds
        self.deliveredBitrate = deliveredBitrate
        self.availableBitrate = availableBitrate
        self.availableBitrateSource = availableBitrateSource
        self.audioFallbackState = audioFallbackState
        self.samples = samples
    }
}

/// One track of a published stream, as the router receives it.
public struct PublishedTrackStatistics: Codable, Equatable, Sendable {
    public var packetsReceived: UInt64
    public var bytesReceived: UInt64
    /// Packets that never arrived (RFC 3550 cumulative loss).
    public var packetsLost: Int64
    public var jitterSeconds: Double
    public var nacksSent: UInt64
    public var keyFrameRequestsSent: UInt64
    /// For audio with RFC 6464 levels (docs/speakers.md): the smoothed level, a linear amplitude
    /// 0...1, and whether the router counts the stream as speaking; left out otherwise.
    public var audioLevel: Double?
    public var speaking: Bool?
    /// Packets kept from every subscriber while the track was muted or, in a `forwardLoudest`
    /// session, held back as quieter than the loudest; and whether it is held back now.
    public var packetsHeldBack: UInt64?
    public var heldBackAsQuieter: Bool?
    /// For audio: packets of the publisher's RED payload type (docs/red.md), well formed around its
    /// Opus; and those that were malformed or whose primary frame was not its Opus, which reached no
    /// subscriber.
    public var redundantPacketsReceived: UInt64?
    public var unforwardableRedundantPackets: UInt64?

    public init(packetsReceived: UInt64, bytesReceived: UInt64, packetsLost: Int64, jitterSeconds: Double, nacksSent: UInt64, keyFrameRequestsSent: UInt64) {
        self.packetsReceived = packetsReceived
        self.bytesReceived = bytesReceived
        self.packetsLost = packetsLost
        self.jitterSeconds = jitterSeconds
        self.nacksSent = nacksSent
        self.keyFrameRequestsSent = keyFrameRequestsSent
    }
}

/// The reply to `getPublisherStats`: what the router receives of one stream.
public struct PublisherStatistics: Codable, Equatable, Sendable {
    public var streamId: String
    /// Milliseconds since the Unix epoch.
    public var timestamp: Int64
    public var audio: PublishedTrackStatistics?
    public var video: PublishedTrackStatistics?
    /// The publisher's uplink.
    public var quality: LinkQualityReport?
    /// The same, shaped like a W3C `RTCStatsReport` as the publisher's own browser would show it:
    /// `outbound-rtp` seen from the router is `inbound-rtp` here, plus `transport` and `codec`.
    public var rtcStatsReport: [RTCStatsEntry]

    public init(
        streamId: String, timestamp: Int64, audio: PublishedTrackStatistics?, video: PublishedTrackStatistics?,
        quality: LinkQualityReport?, rtcStatsReport: [RTCStatsEntry]
    ) {
        self.streamId = streamId
        self.timestamp = timestamp
        self.audio = audio
        self.video = video
        self.quality = quality
        self.rtcStatsReport = rtcStatsReport
    }
}

/// One entry of an RTC stats report, with the member names of the W3C WebRTC statistics
/// (`RTCOutboundRtpStreamStats`, `RTCRemoteInboundRtpStreamStats`, `RTCInboundRtpStreamStats`,
/// `RTCTransportStats`, `RTCCodecStats`); members that do not apply to a type are absent.
public struct RTCStatsEntry: Codable, Equatable, Sendable {
    public var id: String
    /// `outbound-rtp`, `remote-inbound-rtp`, `inbound-rtp`, `transport` or `codec`.
    public var type: String
    /// Milliseconds since the Unix epoch, as a DOMHighResTimeStamp.
    public var timestamp: Double
    public var ssrc: UInt32?
    public var kind: String?
    public var transportId: String?
    public var codecId: String?
    public var localId: String?
    public var remoteId: String?
    public var packetsSent: UInt64?
    public var bytesSent: UInt64?
    public var retransmittedPacketsSent: UInt64?
    public var nackCount: UInt64?
    public var pliCount: UInt64?
    public var packetsReceived: UInt64?
    public var bytesReceived: UInt64?
    public var packetsLost: Int64?
    public var fractionLost: Double?
    public var jitter: Double?
    public var roundTripTime: Double?
    public var currentRoundTripTime: Double?
    public var availableOutgoingBitrate: Double?
    /// Of an `outbound-rtp` video entry of a scalable-video stream: the layer sent.
    public var frameWidth: Int?
    public var frameHeight: Int?
    public var framesPerSecond: Double?
    public var mimeType: String?
    public var payloadType: UInt8?
    public var clockRate: UInt32?

    public init(id: String, type: String, timestamp: Double) {
        self.id = id
        self.type = type
        self.timestamp = timestamp
    }
}
