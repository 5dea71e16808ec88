/// Parameters of `connect`: the first request on every WebSocket.
public struct ConnectParameters: Codable, Equatable, Sendable {
    /// The session to join; the token must be for this session.
    public var sessionId: String
    public var token: String
    /// Whether to receive `activeSpeakerChanged` and `audioLevels` (docs/speakers.md); off when left out.
    public var subscribeToSpeakerEvents: Bool?
    /// Whether to go without `connectionCreated` and `connectionDestroyed` for the others (and get
    /// `connectionCountChanged` instead); off when left out, unless the session suppresses them.
    public var connectionEventsSuppressed: Bool?

    public init(sessionId: String, token: String, subscribeToSpeakerEvents: Bool? = nil, connectionEventsSuppressed: Bool? = nil) {
        self.sessionId = sessionId
        self.token = token
        self.subscribeToSpeakerEvents = subscribeToSpeakerEvents
        self.connectionEventsSuppressed = connectionEventsSuppressed
    }
}

/// Parameters of `reconnect`: instead of `connect`, the first request on a new WebSocket of a
/// connection whose socket dropped, within the server's grace period.
public struct ReconnectParameters: Codable, Equatable, Sendable {
    public var sessionId: String
    public var connectionId: String
    /// The secret of the last `connect` or `reconnect` reply; each reply carries a new one.
    public var reconnectSecret: String
    /// The `seq` of the last event the client received, 0 when none: the server sends the later ones.
    public var lastEventSeq: UInt64

    public init(sessionId: String, connectionId: String, reconnectSecret: String, lastEventSeq: UInt64) {
        self.sessionId = sessionId
        self.connectionId = connectionId
        self.reconnectSecret = reconnectSecret
        self.lastEventSeq = lastEventSeq
    }

    private enum CodingKeys: String, CodingKey {
        case sessionId, connectionId, reconnectSecret, lastEventSeq
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sessionId = try container.decode(String.self, forKey: .sessionId)
        connectionId = try container.decode(String.self, forKey: .connectionId)
        reconnectSecret = try container.decode(String.self, forKey: .reconnectSecret)
        lastEventSeq = try container.decodeInteger(UInt64.self, forKey: .lastEventSeq)
    }
}

/// Per-stream audio-fallback settings, named as in the reference platform.
public struct AudioFallbackSettings: Codable, Equatable, Sendable {
    /// Subscribers whose network cannot carry the video fall back to audio. Default: on for camera
    /// streams, off for screen share.
    public var subscriberAudioFallbackEnabled: Bool?
    /// The publisher falls back to audio when its uplink cannot carry the video. Default: off.
    public var publisherAudioFallbackEnabled: Bool?

    public init(subscriberAudioFallbackEnabled: Bool? = nil, publisherAudioFallbackEnabled: Bool? = nil) {
        self.subscriberAudioFallbackEnabled = subscriberAudioFallbackEnabled
        self.publisherAudioFallbackEnabled = publisherAudioFallbackEnabled
    }
}

/// Parameters of `publish`.
public struct PublishParameters: Codable, Equatable, Sendable {
    public var name: String?
    public var videoType: VideoType?
    public var videoDimensions: VideoDimensions?
    /// The audio track, if the stream has one.
    public var audio: TrackDescription?
    /// The video track, if the stream has one.
    public var video: TrackDescription?
    /// Whether audio starts enabled (default true when there is an audio track).
    public var publishAudio: Bool?
    /// Whether video starts enabled (default true when there is a video track).
    public var publishVideo: Bool?
    public var audioFallback: AudioFallbackSettings?
    /// A plain SRTP transport; exactly one of `transport` and `sdpOffer`.
    public var transport: TransportOffer?
    /// A WebRTC offer (unified plan, BUNDLE); the tracks come from it, so `audio` and `video` stay out.
    public var sdpOffer: String?

    public init(
        name: String? = nil, videoType: VideoType? = nil, videoDimensions: VideoDimensions? = nil,
        audio: TrackDescription? = nil, video: TrackDescription? = nil, publishAudio: Bool? = nil,
        publishVideo: Bool? = nil, audioFallback: AudioFallbackSettings? = nil, transport: TransportOffer? = nil,
        sdpOffer: String? = nil
    ) {
        self.name = name
        self.videoType = videoType
        self.videoDimensions = videoDimensions
        self.audio = audio
        self.video = video
        self.publishAudio = publishAudio
        self.publishVideo = publishVideo
        self.audioFallback = audioFallback
        self.transport = transport
        self.sdpOffer = sdpOffer
    }
}

/// Parameters of `unpublish` and `forceUnpublish`.
public struct StreamReference: Codable, Equatable, Sendable {
    public var streamId: String

    public init(streamId: String) { self.streamId = streamId }
}

/// Parameters of `updateStream`: the publisher turns its audio or video on or off, or reports new
/// video dimensions. Omitted fields stay as they are.
public struct StreamUpdate: Codable, Equatable, Sendable {
    public var streamId: String
    public var publishAudio: Bool?
    public var publishVideo: Bool?
    public var videoDimensions: VideoDimensions?

    public init(streamId: String, publishAudio: Bool? = nil, publishVideo: Bool? = nil, videoDimensions: VideoDimensions? = nil) {
        self.streamId = streamId
        self.publishAudio = publishAudio
        self.publishVideo = publishVideo
        self.videoDimensions = videoDimensions
    }
}

/// Parameters of `subscribe`.
public struct SubscribeParameters: Codable, Equatable, Sendable {
    public var streamId: String
    /// Default true.
    public var subscribeToAudio: Bool?
    /// Default true.
    public var subscribeToVideo: Bool?
    /// A plain SRTP transport; exactly one of `transport` and `webrtc`.
    public var transport: TransportOffer?
    /// A WebRTC transport: the reply carries the router's SDP offer, and `answerSubscriber` the answer.
    public var webrtc: Bool?
    /// Of a scalable-video stream, the largest picture wanted: the router sends the highest layer not
    /// above it (the lowest when all are). Absent: the best the network allows.
    public var preferredResolution: VideoDimensions?
    /// Of a scalable-video stream, the highest frame rate wanted. Absent: the full rate.
    public var preferredFrameRate: Double?

    public init(
        streamId: String, subscribeToAudio: Bool? = nil, subscribeToVideo: Bool? = nil, transport: TransportOffer? = nil,
        webrtc: Bool? = nil, preferredResolution: VideoDimensions? = nil, preferredFrameRate: Double? = nil
    ) {
        self.preferredResolution = preferredResolution
        self.preferredFrameRate = preferredFrameRate
        self.streamId = streamId
        self.subscribeToAudio = subscribeToAudio
        self.subscribeToVideo = subscribeToVideo
        self.transport = transport
        self.webrtc = webrtc
    }
}

/// Parameters of `unsubscribe` and `getStats`.
public struct SubscriberReference: Codable, Equatable, Sendable {
    public var subscriberId: String

    public init(subscriberId: String) { self.subscriberId = subscriberId }
}

/// Parameters of `updateSubscriber`. Omitted fields stay as they are; `null` drops a preference.
public struct SubscriberUpdate: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var subscribeToAudio: Bool?
    public var subscribeToVideo: Bool?
    public var preferredResolution: PreferenceUpdate<VideoDimensions>?
    public var preferredFrameRate: PreferenceUpdate<Double>?

    public init(
        subscriberId: String, subscribeToAudio: Bool? = nil, subscribeToVideo: Bool? = nil,
        preferredResolution: PreferenceUpdate<VideoDimensions>? = nil, preferredFrameRate: PreferenceUpdate<Double>? = nil
    ) {
        self.subscriberId = subscriberId
        self.subscribeToAudio = subscribeToAudio
        self.subscribeToVideo = subscribeToVideo
        self.preferredResolution = preferredResolution
        self.preferredFrameRate = preferredFrameRate
    }

    private enum CodingKeys: String, CodingKey {
        case subscriberId, subscribeToAudio, subscribeToVideo, preferredResolution, preferredFrameRate
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        subscriberId = try container.decode(String.self, forKey: .subscriberId)
        subscribeToAudio = try container.decodeIfPresent(Bool.self, forKey: .subscribeToAudio)
        subscribeToVideo = try container.decodeIfPresent(Bool.self, forKey: .subscribeToVideo)
        preferredResolution = try Self.decodeUpdate(VideoDimensions.self, forKey: .preferredResolution, in: container)
        preferredFrameRate = try Self.decodeUpdate(Double.self, forKey: .preferredFrameRate, in: container)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subscriberId, forKey: .subscriberId)
        try container.encodeIfPresent(subscribeToAudio, forKey: .subscribeToAudio)
        try container.encodeIfPresent(subscribeToVideo, forKey: .subscribeToVideo)
        try Self.encodeUpdate(preferredResolution, forKey: .preferredResolution, in: &container)
        try Self.encodeUpdate(preferredFrameRate, forKey: .preferredFrameRate, in: &container)
    }

    /// Absent: nil; `null`: `.clear`; a value: `.set`.
    private static func decodeUpdate<Value: Codable>(
        _: Value.Type, forKey key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>
    ) throws -> PreferenceUpdate<Value>? {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) { return .clear }
        return .set(try container.decode(Value.self, forKey: key))
    }

    private static func encodeUpdate<Value: Codable>(
        _ update: PreferenceUpdate<Value>?, forKey key: CodingKeys, in container: inout KeyedEncodingContainer<CodingKeys>
    ) throws {
        switch update {
        case nil: return
        case .clear: try container.encodeNil(forKey: key)
        case .set(let value): try container.encode(value, forKey: key)
        }
    }
}



/// Parameters of `signal`, and of the REST signal call.
public struct SignalParameters: Codable, Equatable, Sendable {
    /// The connection to deliver to; omitted for every connection in the session.
    public var to: String?
    /// At most 128 characters of A–Z a–z 0–9 - _ ~; may be empty.
    public var type: String
    /// At most 8 KB (UTF-8).
    public var data: String
    /// Whether the client may send this signal again after a reconnection; the server treats it
    /// like any other, the client uses it to queue the signal while it is away.
    public var retryAfterReconnect: Bool?
    /// A sender-chosen id (at most 64 characters of A-Z a-z 0-9 - _ ~): the server delivers a signal
    /// with an id it has seen from the same sender (this connection, or the app's backend through
    /// REST for this session) within the grace period after its first send only once, so a sender
    /// that resends one whose reply was lost does not deliver it twice.
    public var signalId: String?

    public init(to: String? = nil, type: String, data: String, retryAfterReconnect: Bool? = nil, signalId: String? = nil) {
        self.to = to
        self.type = type
        self.data = data
        self.retryAfterReconnect = retryAfterReconnect
        self.signalId = signalId
    }
}

/// Parameters of `forceDisconnect`.
public struct ConnectionReference: Codable, Equatable, Sendable {
    public var connectionId: String

    public init(connectionId: String) { self.connectionId = connectionId }
}

/// Parameters of `forceMuteAll` (`params` may be left out): every stream but the excluded ones is
/// muted, and so is every stream published until `disableForceMute`.
public struct ForceMuteAllParameters: Codable, Equatable, Sendable {
    /// Streams to leave alone, now and as they are published; at most 1000. Ids that name no stream
    /// are allowed.
    public var excludedStreamIds: [String]?

    public init(excludedStreamIds: [String]? = nil) {
        self.excludedStreamIds = excludedStreamIds
    }
}

/// Parameters of requests that take none (`disconnect`, `disableForceMute`).
public struct NoParameters: Codable, Equatable, Sendable {
    public init() {}
}

/// Parameters of `answerSubscriber`: the client's SDP answer to the offer `subscribe` returned.
public struct SubscriberAnswer: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var sdpAnswer: String

    public init(subscriberId: String, sdpAnswer: String) {
        self.subscriberId = subscriberId
        self.sdpAnswer = sdpAnswer
    }
}

/// Parameters of `restartIce`: a publisher sends its stream and a new offer made with `iceRestart`; a
/// subscriber sends its subscriber id and gets a new offer to answer with `answerSubscriber`.
public struct ICERestartParameters: Codable, Equatable, Sendable {
    public var streamId: String?
    public var subscriberId: String?
    public var sdpOffer: String?

    public init(streamId: String? = nil, subscriberId: String? = nil, sdpOffer: String? = nil) {
        self.streamId = streamId
        self.subscriberId = subscriberId
        self.sdpOffer = sdpOffer
    }
}
