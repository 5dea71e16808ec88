/// What a client may do, from its token's role.
public struct Capabilities: Codable, Equatable, Sendable {
    public var publish: Bool
    public var subscribe: Bool
    public var signal: Bool
    public var forceDisconnect: Bool
    public var forceUnpublish: Bool
    /// `forceMuteStream`, `forceMuteAll` and `disableForceMute`.
    public var forceMute: Bool

    public init(role: Role) {
        publish = role.canPublish
        subscribe = role.canSubscribe
        signal = role.canSignal
        forceDisconnect = role.canModerate
        forceUnpublish = role.canModerate
        forceMute = role.canModerate
    }
}

/// A session as a client sees it on connect and as `GET /v1/sessions/{id}` returns it.
public struct SessionSnapshot: Codable, Equatable, Sendable {
    public var sessionId: String
    public var connectionCount: Int
    public var connections: [ConnectionInfo]
    public var streams: [StreamInfo]
    /// Whether streams published now start muted (`forceMuteAll` until `disableForceMute`).
    public var forceMute: ForceMuteState
    /// The stream the router hears as the dominant speaker; left out while there is none.
    public var activeSpeakerStreamId: String?
    /// How the session's audio is routed; left out when every audio stream is forwarded.
    public var audio: SessionAudioSettings?
    /// True when the session is end-to-end encrypted (docs/e2ee.md): every client must encrypt and
    /// decrypt its media with the session's secret. Left out otherwise.
    public var e2ee: Bool?
    /// True when the session suppresses connection events (docs/protocol.md): then `connections`
    /// holds, for a client other than a moderator, only its own connection and those publishing a
    /// stream, and `connectionCount` counts them all. Left out otherwise.
    public var connectionEventsSuppressed: Bool?
    /// The archive recording the session now (as `archiveStarted` carries it); left out when none.
    public var archive: ArchiveEvent?

    /// `connectionCount` is the number of `connections` unless given.
    public init(
        sessionId: String, connections: [ConnectionInfo], streams: [StreamInfo], forceMute: ForceMuteState = .inactive,
        activeSpeakerStreamId: String? = nil, audio: SessionAudioSettings? = nil, e2ee: Bool = false,
        connectionCount: Int? = nil, connectionEventsSuppressed: Bool = false, archive: ArchiveEvent? = nil
    ) {
        self.sessionId = sessionId
        self.archive = archive
        self.connectionCount = connectionCount ?? connections.count
        self.connectionEventsSuppressed = connectionEventsSuppressed ? true : nil
        self.connections = connections
        self.streams = streams
        self.forceMute = forceMute
        self.activeSpeakerStreamId = activeSpeakerStreamId
        self.audio = audio
        self.e2ee = e2ee ? true : nil
    }

    /// Whether the session is end-to-end encrypted.
    public var isEndToEndEncrypted: Bool { e2ee == true }
}

/// The reply to `connect`.
public struct ConnectResult: Codable, Equatable, Sendable {
    /// This client's own connection.
    public var connection: ConnectionInfo
    public var role: Role
    public var capabilities: Capabilities
    /// Everyone already in the session, this connection included.
    public var session: SessionSnapshot
    /// How to come back after the WebSocket drops; left out when the server keeps no grace period.
    public var reconnection: ReconnectionGrant?
    /// In a cluster, the node that serves the session; left out on a single server. A client in a
    /// cluster that cannot get its connection back connects afresh, and may land on another node.
    public var nodeId: String?
    /// STUN and TURN servers for this connection's peer connections, TURN with credentials minted
    /// for it; left out when the server has no `turn` configuration.
    public var iceServers: [ICEServer]?

    public init(
        connection: ConnectionInfo, role: Role, session: SessionSnapshot, reconnection: ReconnectionGrant? = nil, nodeId: String? = nil,
        iceServers: [ICEServer]? = nil
    ) {
        self.connection = connection
        self.role = role
        self.capabilities = Capabilities(role: role)
        self.session = session
        self.reconnection = reconnection
        self.nodeId = nodeId
        self.iceServers = iceServers
    }
}

/// What a client presents in `reconnect` after its WebSocket dropped, and for how long it may.
public struct ReconnectionGrant: Codable, Equatable, Sendable {
    /// Random, for this connection only; replaced by the next `reconnect` reply.
    public var secret: String
    /// How long after the drop the server keeps the connection, its streams and subscriptions.
    public var graceSeconds: Int

    public init(secret: String, graceSeconds: Int) {
        self.secret = secret
        self.graceSeconds = graceSeconds
    }
}

/// The reply to `publish`.
public struct PublishResult: Codable, Equatable, Sendable {
    public var stream: StreamInfo
    /// Plain SRTP: where to send the stream's media, and how the router protects its RTCP to the publisher.
    public var transport: TransportAnswer?
    /// WebRTC: the router's answer to `sdpOffer`.
    public var sdpAnswer: String?

    public init(stream: StreamInfo, transport: TransportAnswer? = nil, sdpAnswer: String? = nil) {
        self.stream = stream
        self.transport = transport
        self.sdpAnswer = sdpAnswer
    }
}

/// The reply to `subscribe`.
public struct SubscribeResult: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var streamId: String
    /// Plain SRTP: where the router sends from, and how it protects what it sends.
    public var transport: TransportAnswer?
    /// WebRTC: the router's offer; answer it with `answerSubscriber`.
    public var sdpOffer: String?
    /// The tracks as the router sends them to this subscriber (its own SSRCs).
    public var audio: TrackDescription?
    public var video: TrackDescription?
    /// Whether video is forwarded now, and if not, why.
    public var videoEnabled: Bool
    public var videoDisableReason: VideoDisableReason?

    public init(
        subscriberId: String, streamId: String, transport: TransportAnswer? = nil, sdpOffer: String? = nil,
        audio: TrackDescription?, video: TrackDescription?, videoEnabled: Bool, videoDisableReason: VideoDisableReason?
    ) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.transport = transport
        self.sdpOffer = sdpOffer
        self.audio = audio
        self.video = video
        self.videoEnabled = videoEnabled
        self.videoDisableReason = videoDisableReason
    }
}

/// One track's counters for one subscriber, as the router measures them.
public struct TrackStatistics: Codable, Equatable, Sendable {
    /// Packets and bytes the router sent to the subscriber.
    public var packetsSent: UInt64
    public var bytesSent: UInt64
    /// `packetsSent` less the subscriber's reported cumulative loss.
    public var packetsReceived: UInt64
    /// Cumulative loss from the subscriber's latest receiver report.
    public var packetsLost: Int64
    /// Fraction lost in the latest report interval, 0–1.
    public var fractionLost: Double
    public var jitterSeconds: Double
    public var roundTripTimeSeconds: Double?
    public var retransmittedPackets: UInt64
    /// NACKed packets not resent because the resends would have passed the downlink's estimate.
    public var retransmissionsOverBudget: UInt64?
    /// Audio: RFC 2198 packets the subscriber got whole, because it takes RED (docs/red.md); 0 while
    /// it gets plain Opus.
    public var redundantPacketsSent: UInt64?
    /// Audio: of those, plain Opus packets the router made RED itself, the subscriber's downlink being
    /// lossy (`media.redundantAudio`).
    public var redundancyAddedPackets: UInt64?
    public var nacksReceived: UInt64
    public var keyFrameRequestsReceived: UInt64
    /// Bytes that reached the subscriber: `bytesSent` in the share of packets received.
    public var bytesReceived: UInt64
    /// Padding-only packets sent to probe the path while video was off for quality.
    public var probePacketsSent: UInt64
    /// Of a scalable-video stream: the layer sent now (absent while none is), the one the router
    /// moves to at its next key frame, and why (`preference`, `bandwidth`, `fallback`, `unavailable`).
    public var layer: VideoLayerInfo?
    public var targetLayer: VideoLayerInfo?
    public var layerReason: String?

    public init(
        packetsSent: UInt64, bytesSent: UInt64, packetsReceived: UInt64, packetsLost: Int64, fractionLost: Double,
        jitterSeconds: Double, roundTripTimeSeconds: Double?, retransmittedPackets: UInt64, nacksReceived: UInt64,
        keyFrameRequestsReceived: UInt64, bytesReceived: UInt64, probePacketsSent: UInt64
    ) {
        self.packetsSent = packetsSent
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.probePacketsSent = probePacketsSent
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.fractionLost = fractionLost
        self.jitterSeconds = jitterSeconds
        self.roundTripTimeSeconds = roundTripTimeSeconds
        self.retransmittedPackets = retransmittedPackets
        self.nacksReceived = nacksReceived
        self.keyFrameRequestsReceived = keyFrameRequestsReceived
    }
}

/// The reply to `getStats`.
public struct SubscriberStatistics: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var streamId: String
    /// Milliseconds since the Unix epoch.
    public var timestamp: Int64
    public var audio: TrackStatistics?
    public var video: TrackStatistics?
    /// The subscriber's downlink.
    public var quality: LinkQualityReport?
    /// The same, shaped like a W3C `RTCStatsReport` as the router's side of the path shows it:
    /// `outbound-rtp` and `remote-inbound-rtp` per track, `transport` and `codec`.
    public var rtcStatsReport: [RTCStatsEntry]

    public init(
        subscriberId: String, streamId: String, timestamp: Int64, audio: TrackStatistics?, video: TrackStatistics?,
        quality: LinkQualityReport?, rtcStatsReport: [RTCStatsEntry]
    ) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.timestamp = timestamp
        self.audio = audio
        self.video = video
        self.quality = quality
        self.rtcStatsReport = rtcStatsReport
    }
}

/// The reply of a request that returns nothing but success.
public struct EmptyResult: Codable, Equatable, Sendable {
    public init() {}
}

/// The reply to `restartIce`: the router's new answer (publisher) or offer (subscriber).
public struct ICERestartResult: Codable, Equatable, Sendable {
    public var sdpAnswer: String?
    public var sdpOffer: String?

    public init(sdpAnswer: String? = nil, sdpOffer: String? = nil) {
        self.sdpAnswer = sdpAnswer
        self.sdpOffer = sdpOffer
    }
}

/// One page of a session's connections (`GET /v1/sessions/{sessionId}/connections`), in the order
/// of their ids, so a page follows on from the last id of the one before even if that connection left.
public struct ConnectionPage: Codable, Equatable, Sendable {
    public var connections: [ConnectionInfo]
    /// Every connection in the session now.
    public var connectionCount: Int
    /// The `after` that asks for the next page; left out on the last one.
    public var next: String?

    public init(connections: [ConnectionInfo], connectionCount: Int, next: String?) {
        self.connections = connections
        self.connectionCount = connectionCount
        self.next = next
    }
}
