/// Why a connection left a session.
public enum ConnectionDestroyedReason: String, Codable, Equatable, Sendable {
    /// The client disconnected.
    case clientDisconnected
    /// A moderator or the app's backend disconnected it.
    case forceDisconnected
    /// Its WebSocket closed without a `disconnect`.
    case networkDisconnected
}

/// Why a stream ended.
public enum StreamDestroyedReason: String, Codable, Equatable, Sendable {
    /// The publisher unpublished or disconnected.
    case clientDisconnected
    /// The publisher's connection was force-disconnected.
    case forceDisconnected
    /// A moderator or the app's backend unpublished it.
    case forceUnpublished
    /// The publisher's WebSocket closed without a `disconnect`.
    case networkDisconnected
    /// The router lost the stream's media connection (WebRTC: DTLS failed, the certificate did not
    /// match the SDP fingerprint, ICE consent expired, or it never connected).
    case mediaFailed
}

/// Why the server is closing this client's own connection.
public enum SessionDisconnectedReason: String, Codable, Equatable, Sendable {
    /// The client asked to disconnect.
    case clientDisconnected
    /// A moderator or the app's backend disconnected it.
    case forceDisconnected
    /// The server is shutting down.
    case serverShutdown
    /// The client kept sending faster than the message rate limit.
    case rateLimitExceeded
    /// The client did not send `connect` in time.
    case connectTimeout
    /// Another WebSocket reconnected as this connection.
    case replaced
    /// In a cluster: this node is draining. Connect again (through the cluster's address, with the
    /// same token) and the session continues on another node.
    case nodeDraining
}

/// Why a subscriber's video is off.
public enum VideoDisableReason: String, Codable, Equatable, Sendable {
    /// The publisher turned its video off.
    case publisherPropertyChanged
    /// The subscriber set `subscribeToVideo` false.
    case subscriberPropertyChanged
    /// The audio-fallback policy turned it off for this subscriber's network.
    case quality
    /// The router was offered more media than it can forward on time and turned video off for some
    /// of its subscribers, the latest to join first (docs/capacity.md#overload).
    case overload
}

/// A stream property whose change every connection hears about.
public enum StreamProperty: String, Codable, Equatable, Sendable {
    case hasAudio
    case hasVideo
    case videoDimensions
    /// A simulcast stream's layers: the router learned a layer's picture size from its key frames or
    /// its frame rate from what arrives (a WebRTC publisher declares neither).
    case videoLayers
}

/// Why a stream property changed, when it was not the publisher's own doing.
public enum StreamPropertyChangeReason: String, Codable, Equatable, Sendable {
    /// A moderator or the app's backend muted the stream's audio (`forceMuteStream`, `forceMuteAll`).
    case forceMuted
}

/// A property value in `streamPropertyChanged`: a boolean, video dimensions or simulcast layers.
public enum StreamPropertyValue: Codable, Equatable, Sendable {
    case flag(Bool)
    case dimensions(VideoDimensions?)
    case layers([VideoLayerInfo])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if container.decodeNil() {
            self = .dimensions(nil)
        } else if let layers = try? container.decode([VideoLayerInfo].self) {
            self = .layers(layers)
        } else {
            self = .dimensions(try container.decode(VideoDimensions.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .flag(let flag): try container.encode(flag)
        case .dimensions(let dimensions): try container.encode(dimensions)
        case .layers(let layers): try container.encode(layers)
        }
    }
}

public struct ConnectionEvent: Codable, Equatable, Sendable {
    public var connection: ConnectionInfo
    public var reason: ConnectionDestroyedReason?

    public init(connection: ConnectionInfo, reason: ConnectionDestroyedReason? = nil) {
        self.connection = connection
        self.reason = reason
    }
}

public struct StreamEvent: Codable, Equatable, Sendable {
    public var stream: StreamInfo
    public var reason: StreamDestroyedReason?

    public init(stream: StreamInfo, reason: StreamDestroyedReason? = nil) {
        self.stream = stream
        self.reason = reason
    }
}

public struct StreamPropertyChange: Codable, Equatable, Sendable {
    public var stream: StreamInfo
    public var changedProperty: StreamProperty
    public var oldValue: StreamPropertyValue
    public var newValue: StreamPropertyValue
    /// Left out when the publisher changed it (or the router learned it); `forceMuted` when a
    /// moderator or the app's backend turned the audio off.
    public var reason: StreamPropertyChangeReason?

    public init(
        stream: StreamInfo, changedProperty: StreamProperty, oldValue: StreamPropertyValue, newValue: StreamPropertyValue,
        reason: StreamPropertyChangeReason? = nil
    ) {
        self.stream = stream
        self.changedProperty = changedProperty
        self.oldValue = oldValue
        self.newValue = newValue
        self.reason = reason
    }
}

/// To a publisher: a moderator or the app's backend muted its stream's audio, now or as it was
/// published while force mute was active. The publisher may turn it on again (`updateStream`).
public struct MuteForced: Codable, Equatable, Sendable {
    public var streamId: String

    public init(streamId: String) { self.streamId = streamId }
}

/// The stream whose publisher the router hears as the session's dominant speaker (docs/speakers.md);
/// nil when the one it had was muted or ended and nobody else speaks.
public struct ActiveSpeakerChange: Codable, Equatable, Sendable {
    public var streamId: String?

    public init(streamId: String?) { self.streamId = streamId }

    private enum CodingKeys: String, CodingKey { case streamId }

    /// `streamId` is written as null rather than left out, so a client sees the floor go free.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(streamId, forKey: .streamId)
    }
}

/// How many connections a session has, for a client that gets no connection events.
public struct ConnectionCount: Codable, Equatable, Sendable {
    public var connectionCount: Int

    public init(connectionCount: Int) { self.connectionCount = connectionCount }
}

/// The smoothed levels of the loudest streams, loudest first (at most 5).
public struct AudioLevels: Codable, Equatable, Sendable {
    public var levels: [StreamAudioLevel]

    public init(levels: [StreamAudioLevel]) { self.levels = levels }
}

/// One stream's audio level: a linear amplitude 0 (silence) ... 1 (0 dBov), the unit of WebRTC's
/// `audioLevel` statistic, and whether the router counts it as speaking.
public struct StreamAudioLevel: Codable, Equatable, Sendable {
    public var streamId: String
    public var level: Double
    public var speaking: Bool

    public init(streamId: String, level: Double, speaking: Bool) {
        self.streamId = streamId
        self.level = level
        self.speaking = speaking
    }
}

/// A subscription the server ended although its stream goes on.
public struct SubscriberEnded: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var streamId: String
    /// Always `mediaFailed` for now: the router lost this subscriber's media connection.
    public var reason: StreamDestroyedReason
    /// What failed, for logs.
    public var message: String

    public init(subscriberId: String, streamId: String, reason: StreamDestroyedReason, message: String) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.reason = reason
        self.message = message
    }
}

/// Video of one subscription turned off or on, or a warning about it.
public struct SubscriberVideoChange: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var streamId: String
    public var reason: VideoDisableReason

    public init(subscriberId: String, streamId: String, reason: VideoDisableReason) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.reason = reason
    }
}

/// The publisher's own video, as the audio-fallback policy judges its uplink: a warning, its lifting,
/// or video turned off or on for subscribers.
public struct PublisherVideoChange: Codable, Equatable, Sendable {
    public var streamId: String
    public var reason: VideoDisableReason

    public init(streamId: String, reason: VideoDisableReason) {
        self.streamId = streamId
        self.reason = reason
    }
}

/// A signal as delivered.
public struct SignalDelivery: Codable, Equatable, Sendable {
    /// The sending connection; omitted when the app's backend sent it through REST.
    public var from: String?
    public var type: String
    public var data: String

    public init(from: String?, type: String, data: String) {
        self.from = from
        self.type = type
        self.data = data
    }
}

public struct SessionDisconnection: Codable, Equatable, Sendable {
    public var reason: SessionDisconnectedReason
    public var message: String

    public init(reason: SessionDisconnectedReason, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// Everything the server tells a client without being asked.
public enum SessionEvent: Equatable, Sendable {
    case connectionCreated(ConnectionEvent)
    case connectionDestroyed(ConnectionEvent)
    case streamCreated(StreamEvent)
    case streamDestroyed(StreamEvent)
    case streamPropertyChanged(StreamPropertyChange)
    case videoDisabled(SubscriberVideoChange)
    case videoEnabled(SubscriberVideoChange)
    /// This subscriber's quality degraded; its video goes off if it degrades further (reason `quality`).
    case videoDisableWarning(SubscriberVideoChange)
    /// The warning passed without video going off.
    case videoDisableWarningLifted(SubscriberVideoChange)
    /// The layer of a scalable-video stream this subscriber receives changed, or its target did.
    case videoLayerChanged(SubscriberLayerChange)
    /// The publisher's uplink degraded; its video goes off for everyone if it degrades further.
    case publisherVideoDisableWarning(PublisherVideoChange)
    case publisherVideoDisableWarningLifted(PublisherVideoChange)
    /// The publisher's video is off for every subscriber; the publisher should keep sending at least
    /// the probe rate (docs/audio-fallback.md) so the router can see the uplink recover.
    case publisherVideoDisabled(PublisherVideoChange)
    case publisherVideoEnabled(PublisherVideoChange)
    case signal(SignalDelivery)
    /// One of this connection's subscribers ended because its media connection failed.
    case subscriberDestroyed(SubscriberEnded)
    /// The last message on a connection the server closes.
    case sessionDisconnected(SessionDisconnection)
    /// To the publishing connection only: one of its streams was force-muted.
    case muteForced(MuteForced)
    /// To every connection: force mute ("mute on entry") was turned on or off.
    case forceMuteChanged(ForceMuteState)
    /// To connections that asked for speaker events: the session's dominant speaker changed.
    case activeSpeakerChanged(ActiveSpeakerChange)
    /// To connections that asked for speaker events, at most 4 times a second and only when they
    /// changed: the loudest streams' levels. Sent without a `seq` and never replayed: a level is
    /// stale by the time a client reconnects.
    case audioLevels(AudioLevels)
    /// To connections that get no connection events (docs/protocol.md, "Connection event
    /// suppression"), at most once a second and only when it changed: the session's number of
    /// connections. Sent without a `seq` and never replayed: a reconnecting client reads the count
    /// in its reply.
    case connectionCountChanged(ConnectionCount)
    /// To every connection: the session is being recorded (docs/archiving.md).
    case archiveStarted(ArchiveEvent)
    /// To every connection: the recording ended.
    case archiveStopped(ArchiveEvent)

    public enum Name: String, Codable, CaseIterable, Sendable {
        case connectionCreated, connectionDestroyed, streamCreated, streamDestroyed, streamPropertyChanged
        case videoDisabled, videoEnabled, videoDisableWarning, videoDisableWarningLifted, videoLayerChanged
        case publisherVideoDisableWarning, publisherVideoDisableWarningLifted, publisherVideoDisabled, publisherVideoEnabled
        case signal, subscriberDestroyed, sessionDisconnected
        case muteForced, forceMuteChanged
        case activeSpeakerChanged, audioLevels, connectionCountChanged
        case archiveStarted, archiveStopped
    }

    public var name: Name {
        switch self {
        case .connectionCreated: .connectionCreated
        case .connectionDestroyed: .connectionDestroyed
        case .streamCreated: .streamCreated
        case .streamDestroyed: .streamDestroyed
        case .streamPropertyChanged: .streamPropertyChanged
        case .videoDisabled: .videoDisabled
        case .videoEnabled: .videoEnabled
        case .videoDisableWarning: .videoDisableWarning
        case .videoDisableWarningLifted: .videoDisableWarningLifted
        case .videoLayerChanged: .videoLayerChanged
        case .publisherVideoDisableWarning: .publisherVideoDisableWarning
        case .publisherVideoDisableWarningLifted: .publisherVideoDisableWarningLifted
        case .publisherVideoDisabled: .publisherVideoDisabled
        case .publisherVideoEnabled: .publisherVideoEnabled
        case .signal: .signal
        case .subscriberDestroyed: .subscriberDestroyed
        case .sessionDisconnected: .sessionDisconnected
        case .muteForced: .muteForced
        case .forceMuteChanged: .forceMuteChanged
        case .activeSpeakerChanged: .activeSpeakerChanged
        case .audioLevels: .audioLevels
        case .connectionCountChanged: .connectionCountChanged
        case .archiveStarted: .archiveStarted
        case .archiveStopped: .archiveStopped
        }
    }
}
