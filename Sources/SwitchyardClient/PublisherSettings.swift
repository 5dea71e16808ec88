import SignalingProtocol

/// How to publish: what to send and the stream's properties, as in the reference platform's
/// publisher settings.
public struct PublisherSettings: Sendable {
    public var name: String
    public var media: EncodedMedia
    public var videoType: VideoType
    public var publishAudio: Bool
    public var publishVideo: Bool
    /// nil leaves the server's default (on for camera, off for screen).
    public var subscriberAudioFallbackEnabled: Bool?
    /// nil leaves the server's default (off).
    public var publisherAudioFallbackEnabled: Bool?
    /// What the publisher's own network does to its packets.
    public var uplinkImpairment: ImpairmentSchedule
    public var downlinkImpairment: ImpairmentSchedule
    /// Whether the audio track declares the RFC 6464 audio-level header extension and every audio
    /// packet carries the level of the frame it holds, so the router can tell when this stream
    /// speaks (docs/speakers.md). Off, the router cannot: the stream is never the active speaker, and
    /// a session that forwards only its loudest audio forwards this stream's always.
    public var sendsAudioLevels: Bool
    /// How many earlier Opus frames each audio packet repeats as RFC 2198 redundant audio (RED,
    /// docs/red.md), 0-2: a subscriber that takes RED plays a lost packet's frame from the next one.
    /// 0 sends plain Opus.
    public var redundantAudioFrames: Int

    public init(
        name: String = "", media: EncodedMedia, videoType: VideoType = .camera, publishAudio: Bool = true, publishVideo: Bool = true,
        subscriberAudioFallbackEnabled: Bool? = nil, publisherAudioFallbackEnabled: Bool? = nil,
        uplinkImpairment: ImpairmentSchedule = .clean, downlinkImpairment: ImpairmentSchedule = .clean, sendsAudioLevels: Bool = true,
        redundantAudioFrames: Int = 0
    ) {
        self.sendsAudioLevels = sendsAudioLevels
        self.redundantAudioFrames = redundantAudioFrames
        self.name = name
        self.media = media
        self.videoType = videoType
        self.publishAudio = publishAudio
        self.publishVideo = publishVideo
        self.subscriberAudioFallbackEnabled = subscriberAudioFallbackEnabled
        self.publisherAudioFallbackEnabled = publisherAudioFallbackEnabled
        self.uplinkImpairment = uplinkImpairment
        self.downlinkImpairment = downlinkImpairment
    }
}

/// How to subscribe.
public struct SubscriberSettings: Sendable {
    public var subscribeToAudio: Bool
    public var subscribeToVideo: Bool
    /// Decode every frame with libvpx and libopus (costly; a load test decodes on a few subscribers).
    public var decodes: Bool
    /// What this subscriber's network does to the router's packets, and to its own RTCP.
    public var downlinkImpairment: ImpairmentSchedule
    public var uplinkImpairment: ImpairmentSchedule
    /// What the subscriber tells the router about its downlink.
    public var feedback: BandwidthFeedback
    /// Of a scalable-video stream: the largest picture and highest frame rate wanted (nil: the best
    /// the network allows).
    public var preferredResolution: VideoDimensions?
    public var preferredFrameRate: Double?
    /// Whether the subscriber takes RFC 2198 redundant audio (RED, docs/red.md) from a publisher that
    /// sends it, and plays lost frames from it; without, the router sends it the primary frames alone.
    public var receivesRedundantAudio: Bool
    /// false never reads the media socket, as a load test's silent audience: the router still sends
    /// (and pays for) every packet, the kernel drops what no longer fits the socket, and the client
    /// costs its machine nothing per packet. Its statistics then show nothing received.
    public var readsMedia: Bool

    public init(
        subscribeToAudio: Bool = true, subscribeToVideo: Bool = true, decodes: Bool = false,
        downlinkImpairment: ImpairmentSchedule = .clean, uplinkImpairment: ImpairmentSchedule = .clean,
        feedback: BandwidthFeedback = .receiverEstimate, preferredResolution: VideoDimensions? = nil, preferredFrameRate: Double? = nil,
        receivesRedundantAudio: Bool = false, readsMedia: Bool = true
    ) {
        self.readsMedia = readsMedia
        self.receivesRedundantAudio = receivesRedundantAudio
        self.preferredResolution = preferredResolution
        self.preferredFrameRate = preferredFrameRate
        self.subscribeToAudio = subscribeToAudio
        self.subscribeToVideo = subscribeToVideo
        self.decodes = decodes
        self.downlinkImpairment = downlinkImpairment
        self.uplinkImpairment = uplinkImpairment
        self.feedback = feedback
    }
}
