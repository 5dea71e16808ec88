import MediaControl
import SessionDescription
import SignalingProtocol

/// One client's presence, as the directory keeps it.
struct ConnectionState {
    var info: ConnectionInfo
    var role: Role
    /// Its events, numbered and kept for replay, sent to whichever socket it has now.
    var events: ConnectionEvents
    /// What `reconnect` must present; a new one with every `connect` and `reconnect` reply.
    var reconnectSecret: String
    var recentSignalIds: RecentSignalIds
    var streamIds: Set<String> = []
    var subscriberIds: Set<String> = []
    /// A WHIP publisher or a WHEP player: no socket (its events go nowhere), one stream or one
    /// subscriber, and gone when that is.
    var isHTTPResource = false
    /// While its socket is away: ends the connection when the grace period runs out.
    var graceTimer: Task<Void, Never>?
    /// Tells the current grace timer from one cancelled by a return.
    var graceGeneration: UInt64 = 0
    /// Whether it asked for `activeSpeakerChanged` and `audioLevels` (`subscribeToSpeakerEvents`).
    var receivesSpeakerEvents = false
    /// Whether it hears `connectionCreated` and `connectionDestroyed` for the others; if not, it
    /// hears `connectionCountChanged`.
    var receivesConnectionEvents = true
}

/// One published stream: its transport, its producers and what the publisher has turned on.
struct StreamState {
    var info: StreamInfo
    var publisherConnectionId: String
    var transportID: TransportID
    var audio: PublishedTrack?
    var video: PublishedTrack?
    var audioFallback: AudioFallbackSettings
    var subscriberIds: Set<String> = []
    /// The SDP state of a WebRTC publisher; nil for a plain transport.
    var webRTC: PublisherWebRTCState?
    /// The latest pass that brings the subscribers' audio consumers in line with `info.hasAudio`;
    /// each pass waits for the one before, so the router sees changes in the order they were made.
    var audioAlignment: Task<Void, Never>?

    /// The producers of the tracks it carries.
    var producerIDs: [ProducerID] { [audio?.producerID, video?.producerID].compactMap { $0 } }
}

struct PublishedTrack {
    var description: TrackDescription
    var producerID: ProducerID
    /// The RTP header extensions a WebRTC publisher negotiated for the track, with its ids.
    var headerExtensions: [HeaderExtension] = []
    /// The codec's `a=fmtp` parameters a WebRTC publisher offered, passed on to WebRTC subscribers.
    var formatParameters: String?
}

/// One connection receiving one stream.
struct SubscriberState {
    var id: String
    var streamId: String
    var connectionId: String
    var transportID: TransportID
    var audio: ConsumerParameters?
    var video: ConsumerParameters?
    var subscribeToAudio: Bool
    var subscribeToVideo: Bool
    /// Which layers of a scalable-video stream the subscriber wants.
    var layerPreference = VideoLayerPreference.unconstrained
    /// The SDP state of a WebRTC subscriber; nil for a plain transport.
    var webRTC: SubscriberWebRTCState?
}

/// The router's side of a WebRTC publisher's transport, and the `o=` line its answers carry: one
/// session id, a version that goes up with each new answer (RFC 3264 section 8).
struct PublisherWebRTCState {
    var transport: WebRTCTransportParameters
    var sdpSessionID: UInt64
    var sdpVersion: UInt64
}

/// What the router offered a WebRTC subscriber, kept to check the answer and to offer again on an ICE
/// restart (same session id, next version).
struct SubscriberWebRTCState {
    var transport: WebRTCTransportParameters
    var offer: SessionDescription
    var tracks: [OutgoingTrack]
    var sdpSessionID: UInt64
    var sdpVersion: UInt64
}

/// One session: its connections, streams and subscribers, and the router that carries its media.
/// The archive recording a session: its recording transport, and that transport's consumers by stream.
struct SessionArchive {
    var id: String
    var name: String
    var hasAudio: Bool
    var hasVideo: Bool
    var isComposed: Bool
    /// Only these streams, when the request named some.
    var streamIds: Set<String>?
    /// Nil while the archive starts.
    var transportID: TransportID?
    var consumers: [String: [ConsumerParameters]] = [:]

    func records(_ streamId: String) -> Bool { streamIds?.contains(streamId) ?? true }
}

struct SessionState {
    var id: String
    var createdThroughREST: Bool
    /// The ids of the signals the app's backend sent this session through REST, so one it retries
    /// after a timeout is delivered once.
    var applicationSignalIds: RecentSignalIds
    var connections: [String: ConnectionState] = [:]
    var streams: [String: StreamState] = [:]
    var subscribers: [String: SubscriberState] = [:]
    /// Created on first use; a task so that two requests racing for it share one router.
    var router: Task<RouterID, any Error>?
    /// Whether streams published now start muted, and which are spared.
    var forceMute = ForceMuteState.inactive
    /// The router once created, to know the media plane's events about it.
    var routerID: RouterID?
    /// How its audio is routed: nil forwards every stream.
    var audio: SessionAudioSettings?
    var activeSpeakerStreamId: String?
    /// Whether its clients encrypt their media end to end (docs/e2ee.md): the router then forwards
    /// what it cannot read, and refuses what would need to read it.
    var isEndToEndEncrypted = false
    /// Whether only moderators hear of others joining and leaving (docs/protocol.md, "Connection
    /// event suppression"); chosen when the session is created.
    var connectionEventsSuppressed = false
    /// The connections that hear `connectionCreated` and `connectionDestroyed`, so that a join in a
    /// session of thousands costs as many sends as there are listeners, not connections.
    var connectionEventListeners: Set<String> = []
    /// The count last sent to the connections that hear no connection events, and whether a send
    /// of a newer one is scheduled.
    var announcedConnectionCount: Int?
    var connectionCountScheduled = false
    /// The archive recording the session now (docs/archiving.md).
    var archive: SessionArchive?
    /// Whether an archive starts by itself with the session's first stream (`archiveMode` `always`).
    var archivesAutomatically = false

    var settings: SessionSettings {
        SessionSettings(
            createdThroughREST: createdThroughREST, audio: audio, e2ee: isEndToEndEncrypted,
            connectionEventsSuppressed: connectionEventsSuppressed, archiveMode: archivesAutomatically ? .always : .manual)
    }

    /// Everything in the session, for the REST API and for a client that hears connection events.
    var snapshot: SessionSnapshot {
        snapshot(connections: connections.values.map(\.info))
    }

    /// What `connection` is told in its connect reply: without connection events, its own
    /// connection and the publishers' only (with the count), so the reply does not grow with the
    /// audience.
    func snapshot(for connection: ConnectionState) -> SessionSnapshot {
        guard !connection.receivesConnectionEvents else { return snapshot }
        let publishers = Set(streams.values.map(\.publisherConnectionId)).subtracting([connection.info.connectionId])
        let own = connections[connection.info.connectionId]?.info ?? connection.info
        return snapshot(connections: [own] + publishers.compactMap { connections[$0]?.info })
    }

    private func snapshot(connections shown: [ConnectionInfo]) -> SessionSnapshot {
        SessionSnapshot(
            sessionId: id,
            connections: shown.sorted { ($0.creationTime, $0.connectionId) < ($1.creationTime, $1.connectionId) },
            streams: streams.values.map(\.info).sorted { ($0.creationTime, $0.streamId) < ($1.creationTime, $1.streamId) },
            forceMute: forceMute, activeSpeakerStreamId: activeSpeakerStreamId, audio: audio, e2ee: isEndToEndEncrypted,
            connectionCount: connections.count, connectionEventsSuppressed: connectionEventsSuppressed,
            archive: archive.flatMap { $0.transportID == nil ? nil : ArchiveEvent(id: $0.id, name: $0.name) })
    }

    /// Sends an event, encoded once, to every connection but `excluded`.
    func broadcast(_ event: SessionEvent, excluding excluded: String? = nil) {
        let encoded = EncodedEvent(event)
        for (connectionId, connection) in connections where connectionId != excluded {
            connection.events.send(encoded)
        }
    }

    /// Sends `connectionCreated` or `connectionDestroyed`, encoded once, to the connections that hear them.
    func announce(_ event: SessionEvent) {
        guard !connectionEventListeners.isEmpty else { return }
        let encoded = EncodedEvent(event)
        for connectionId in connectionEventListeners {
            connections[connectionId]?.events.send(encoded)
        }
    }
}

/// Counts for metrics.
public struct DirectoryCounts: Equatable, Sendable {
    public var sessions = 0
    public var connections = 0
    public var streams = 0
    public var subscribers = 0
    /// Audio-fallback events sent to clients since the server started, by event name.
    public var audioFallbackEvents: [String: UInt64] = [:]
}
