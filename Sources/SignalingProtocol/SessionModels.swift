/// A client's presence in a session, as every client of the session sees it.
public struct ConnectionInfo: Codable, Equatable, Sendable {
    public var connectionId: String
    /// Milliseconds since the Unix epoch.
    public var creationTime: Int64
    /// The connection data from the client's token (at most 1000 characters).
    public var data: String
    /// Whether its WebSocket is there, or dropped and the server waits for it to reconnect.
    public var status: ConnectionStatus

    public init(connectionId: String, creationTime: Int64, data: String, status: ConnectionStatus = .connected) {
        self.connectionId = connectionId
        self.creationTime = creationTime
        self.data = data
        self.status = status
    }
}

/// A connection's state as the server sees it.
public enum ConnectionStatus: String, Codable, Equatable, Sendable {
    case connected
    /// Its WebSocket dropped without `disconnect`; its streams and subscriptions stay for the grace period.
    case reconnecting
}

/// What a stream's video shows.
public enum VideoType: String, Codable, Equatable, Sendable {
    case camera
    case screen
    case custom
}

public struct VideoDimensions: Codable, Equatable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    private enum CodingKeys: String, CodingKey {
        case width, height
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        width = try container.decodeInteger(Int.self, forKey: .width)
        height = try container.decodeInteger(Int.self, forKey: .height)
    }
}

/// Media one connection publishes.
public struct StreamInfo: Codable, Equatable, Sendable {
    public var streamId: String
    public var connection: ConnectionInfo
    /// Milliseconds since the Unix epoch.
    public var creationTime: Int64
    public var name: String
    public var hasAudio: Bool
    public var hasVideo: Bool
    public var videoDimensions: VideoDimensions?
    public var videoType: VideoType
    /// For scalable (simulcast) video, the layers the publisher sends, lowest first; absent for one
    /// encoding. Subscribers pick among them with `preferredResolution` and `preferredFrameRate`.
    public var videoLayers: [VideoLayerInfo]?

    public init(
        streamId: String, connection: ConnectionInfo, creationTime: Int64, name: String, hasAudio: Bool,
        hasVideo: Bool, videoDimensions: VideoDimensions?, videoType: VideoType, videoLayers: [VideoLayerInfo]? = nil
    ) {
        self.videoLayers = videoLayers
        self.streamId = streamId
        self.connection = connection
        self.creationTime = creationTime
        self.name = name
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.videoDimensions = videoDimensions
        self.videoType = videoType
    }
}

/// What a token lets a connection do.
public enum Role: String, Codable, Equatable, Sendable, CaseIterable {
    /// Subscribe and signal.
    case subscriber
    /// Publish, subscribe and signal.
    case publisher
    /// Publish only: no subscribing, no signals.
    case publisheronly
    /// Everything a publisher may do, plus force disconnect, force unpublish and force mute.
    case moderator

    public var canPublish: Bool { self != .subscriber }
    public var canSubscribe: Bool { self != .publisheronly }
    public var canSignal: Bool { self != .publisheronly }
    public var canModerate: Bool { self == .moderator }
}

/// A session's force mute ("mute on entry"), as the reference platform's `forceMuteAll` leaves it:
/// while `active`, every stream published starts with its audio muted, unless its id is in
/// `excludedStreamIds`.
public struct ForceMuteState: Codable, Equatable, Sendable {
    public var active: Bool
    /// While active, the streams left alone (an empty list when none); left out when not active.
    public var excludedStreamIds: [String]?

    public init(active: Bool, excludedStreamIds: [String]? = nil) {
        self.active = active
        self.excludedStreamIds = active ? (excludedStreamIds ?? []) : nil
    }

    public static let inactive = ForceMuteState(active: false)

    /// Whether a stream published now starts muted.
    public func mutesOnEntry(_ streamId: String) -> Bool {
        active && !(excludedStreamIds ?? []).contains(streamId)
    }
}

/// How a session's audio is routed, set when the session is created (`POST /v1/sessions`).
public struct SessionAudioSettings: Codable, Equatable, Sendable {
    /// Forward to each subscriber only this many of the loudest audio streams, and the dominant
    /// speaker's (1-100); left out to forward every stream.
    public var forwardLoudest: Int?

    public static let forwardLoudestRange = 1...100

    public init(forwardLoudest: Int? = nil) {
        self.forwardLoudest = forwardLoudest
    }

    private enum CodingKeys: String, CodingKey { case forwardLoudest }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        forwardLoudest = try container.decodeIntegerIfPresent(Int.self, forKey: .forwardLoudest)
    }
}
