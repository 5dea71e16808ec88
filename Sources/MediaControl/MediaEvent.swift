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
    /// What the router knows of a simulcast producer's layers changed: a layer's first key frame (or
    /// a new one) gave its picture size, or its measured frame rate moved by more than a quarter.
    /// Lowest first, with the size 0 × 0 and the frame rate 0 where still unknown.
    case producerLayersChanged(ProducerID, [VideoLayer])
    /// A simulcast consumer started forwarding another layer (spatial or temporal), or its target moved.
    case consumerLayerChanged(ConsumerID, VideoLayerState)
}
