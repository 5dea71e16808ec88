/// What the media plane tells signaling, through `MediaControl.events`.
public enum MediaEvent: Equatable, Sendable, Codable {
    /// The transport's remote address is known and a packet from it authenticated.
    case transportConnected(TransportID, remote: TransportAddress)
    /// The transport can no longer carry media (DTLS failed, the peer's certificate did not match its
    /// fingerprint, ICE consent expired, no connection in time); whoever uses it should close it.
    case transportFailed(TransportID, reason: String)
    /// The transport closed; `reason` says why.
    case transportClosed(TransportID, reason: String)
    /// The producer sent nothing for the configured idle time.
    case producerIdle(ProducerID)
    /// An idle producer sends again.
    case producerActive(ProducerID)
    /// The router asked the publisher for a key frame (a subscriber started, resumed or lost one).
    case keyFrameNeeded(ProducerID)
    /// The audio-fallback policy of a transport moved; for `.publisher`, the media plane has already
    /// stopped (or restarted) the video for every subscriber of the transport's video producers.
    case audioFallback(TransportID, side: AudioFallbackSide, AudioFallbackTransition)
    /// Overload shedding turned the transport's video off (`videoOff` true) to keep its worker's
    /// media on time, or back on.
    case overloadShedding(TransportID, videoOff: Bool)
    /// What the router knows of a simulcast producer's layers changed: a layer's first key frame (or
    /// a new one) gave its picture size, or its measured frame rate moved by more than a quarter.
    /// Lowest first, with the size 0 × 0 and the frame rate 0 where still unknown.
    case producerLayersChanged(ProducerID, [VideoLayer])
    /// A simulcast consumer started forwarding another layer (spatial or temporal), or its target moved.
    case consumerLayerChanged(ConsumerID, VideoLayerState)
    /// The router's dominant speaker changed (nil: the one it had was muted or closed, and nobody
    /// else speaks). Only for audio producers that carry RFC 6464 levels.
    case dominantSpeakerChanged(RouterID, ProducerID?)
    /// The smoothed levels of the router's loudest audio producers, loudest first, at most
    /// `AudioLevelReport.maximumStreams` of them, at most every `AudioLevelReport.interval`, and only
    /// when they changed.
    case audioLevels(RouterID, [ProducerAudioLevel])
}

/// One audio producer's smoothed level, as `MediaEvent.audioLevels` reports it.
public struct ProducerAudioLevel: Equatable, Sendable, Codable {
    public var producerID: ProducerID
    /// Linear amplitude 0 (silence) ... 1 (0 dBov), the unit of WebRTC's `audioLevel` statistic,
    /// rounded to three decimals.
    public var level: Double
    /// Whether the producer counts as speaking now.
    public var speaking: Bool

    public init(producerID: ProducerID, level: Double, speaking: Bool) {
        self.producerID = producerID
        self.level = level
        self.speaking = speaking
    }
}
