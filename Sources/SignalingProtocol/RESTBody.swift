import Foundation

/// The JSON bodies the REST API reads (docs/rest.md), and the one way each is decoded: a refusal is
/// `invalidParams` naming the field's path from `body`.
public enum RESTBody {
    /// `POST /v1/sessions`: the id to give the session, or none for one the server makes.
    public struct CreateSession: Codable, Equatable, Sendable {
        public var sessionId: String?
        /// How the session's audio is routed (docs/speakers.md).
        public var audio: SessionAudioSettings?
        /// End-to-end encryption (docs/e2ee.md): the clients encrypt their media with a secret the
        /// router never has, and the router forwards what it cannot read. Chosen when the session is
        /// created, for its whole life.
        public var e2ee: Bool?
        /// Connection event suppression (docs/protocol.md): clients other than moderators get no
        /// `connectionCreated` / `connectionDestroyed` for the others, and a count instead. Chosen
        /// when the session is created, for its whole life.
        public var connectionEventsSuppressed: Bool?
        /// `always` records the session from its first stream (docs/archiving.md); `manual` when left out.
        public var archiveMode: ArchiveMode?

        public init(
            sessionId: String? = nil, audio: SessionAudioSettings? = nil, e2ee: Bool? = nil, connectionEventsSuppressed: Bool? = nil,
            archiveMode: ArchiveMode? = nil
        ) {
            self.sessionId = sessionId
            self.audio = audio
            self.e2ee = e2ee
            self.connectionEventsSuppressed = connectionEventsSuppressed
            self.archiveMode = archiveMode
        }
    }

    /// `POST /v1/sessions/{sessionId}/archives`: what to record. Every field may be left out.
    public struct StartArchive: Codable, Equatable, Sendable {
        public var name: String?
        public var outputMode: ArchiveOutputMode?
        public var hasAudio: Bool?
        public var hasVideo: Bool?
        /// Only these streams (of those published now or later); all when left out.
        public var streamIds: [String]?
        /// Composed archives: `grid`, the only layout so far.
        public var layout: String?
        /// Composed archives: `640x480` or `1280x720`.
        public var resolution: String?
        /// Composed archives: frames per second, 1-30.
        public var frameRate: Int?

        public init(
            name: String? = nil, outputMode: ArchiveOutputMode? = nil, hasAudio: Bool? = nil, hasVideo: Bool? = nil, streamIds: [String]? = nil,
            layout: String? = nil, resolution: String? = nil, frameRate: Int? = nil
        ) {
            self.frameRate = frameRate
            self.name = name
            self.outputMode = outputMode
            self.hasAudio = hasAudio
            self.hasVideo = hasVideo
            self.streamIds = streamIds
            self.layout = layout
            self.resolution = resolution
        }
    }

    /// `POST /v1/sessions/{sessionId}/signal` and its per-connection form; `signalId` makes a resent
    /// body (a retry after a timeout) be delivered once.
    public struct Signal: Codable, Equatable, Sendable {
        public var type: String
        public var data: String
        public var signalId: String?

        public init(type: String, data: String, signalId: String? = nil) {
            self.type = type
            self.data = data
            self.signalId = signalId
        }
    }

    /// `PUT .../subscribers/{subscriberId}/fault` and `PUT .../streams/{streamId}/fault`: the share of
    /// the RTP on that media path to drop, and a cap on its rate; each optional, one required.
    public struct Fault: Codable, Equatable, Sendable {
        public var dropShare: Double?
        public var rateCapBitrate: Int?

        public init(dropShare: Double? = nil, rateCapBitrate: Int? = nil) {
            self.dropShare = dropShare
            self.rateCapBitrate = rateCapBitrate
        }
    }

    /// `PUT .../connections/{connectionId}/fault`: with `dropWebSocket`, the connection's WebSocket is
    /// reset as a failing network would.
    public struct ConnectionFault: Codable, Equatable, Sendable {
        public var dropWebSocket: Bool

        public init(dropWebSocket: Bool) {
            self.dropWebSocket = dropWebSocket
        }
    }

    /// `POST /v1/sessions/{sessionId}/mute`: `active` true mutes every stream but the excluded ones
    /// and every stream published from now on; false stops muting new streams (and unmutes nobody).
    public struct ForceMute: Codable, Equatable, Sendable {
        public var active: Bool
        public var excludedStreamIds: [String]?

        public init(active: Bool, excludedStreamIds: [String]? = nil) {
            self.active = active
            self.excludedStreamIds = excludedStreamIds
        }
    }

    /// Decodes a request body, naming exactly what was wrong when it cannot.
    public static func decode<Body: Decodable>(_ type: Body.Type, from data: Data) throws(SignalingError) -> Body {
        guard JSONText.isValid(data) else { throw .invalidParams("body", "not valid JSON") }
        if let key = JSONText.inspect(data).duplicateKey { throw .invalidParams("body", "key \"\(key)\" appears twice in one object") }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw SignalingError(.invalidParams, describeDecodingError(error, under: "body"))
        }
    }
}
