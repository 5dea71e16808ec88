import SignalingProtocol

/// Something that happened that the app's backend hears of through webhooks (docs/webhooks.md):
/// a session's life, who joined and left, which streams started and stopped, and the audio-fallback
/// policy's moves, in the shapes the protocol's events carry.
public struct SessionActivity: Equatable, Sendable {
    /// The session it happened in; nil for what concerns the node (`nodeDraining`).
    public var sessionId: String?
    /// The connection an event was addressed to, for events that concern one subscriber or
    /// publisher (`videoDisabled`, `publisherVideoEnabled`, ...); nil for the session's events.
    public var connectionId: String?
    public var event: Event
    /// Milliseconds since the Unix epoch.
    public var time: Int64

    public init(sessionId: String?, connectionId: String? = nil, event: Event, time: Int64) {
        self.sessionId = sessionId
        self.connectionId = connectionId
        self.event = event
        self.time = time
    }

    public enum Event: Equatable, Sendable, Encodable {
        case sessionCreated(SessionCreation)
        case sessionDestroyed(SessionDestruction)
        case connectionCreated(ConnectionEvent)
        case connectionDestroyed(ConnectionEvent)
        /// The connection's WebSocket dropped; it has the grace period to come back.
        case connectionReconnecting(ConnectionEvent)
        case connectionReconnected(ConnectionEvent)
        case streamCreated(StreamEvent)
        case streamDestroyed(StreamEvent)
        /// One subscriber's video went off, for any reason (`quality` is the audio-fallback policy).
        case videoDisabled(SubscriberVideoChange)
        case videoEnabled(SubscriberVideoChange)
        /// A publisher's video went off for everyone because of its uplink.
        case publisherVideoDisabled(PublisherVideoChange)
        case publisherVideoEnabled(PublisherVideoChange)
        /// In a cluster: this node began draining; its sessions continue on other nodes.
        case nodeDraining(NodeDraining)
        /// An archive started recording the session.
        case archiveStarted(ArchiveInfo)
        /// An archive ended: `available` with its files, or `failed` with the reason.
        case archiveStopped(ArchiveInfo)

        public var kind: Kind {
            switch self {
            case .sessionCreated: .sessionCreated
            case .sessionDestroyed: .sessionDestroyed
            case .connectionCreated: .connectionCreated
            case .connectionDestroyed: .connectionDestroyed
            case .connectionReconnecting: .connectionReconnecting
            case .connectionReconnected: .connectionReconnected
            case .streamCreated: .streamCreated
            case .streamDestroyed: .streamDestroyed
            case .videoDisabled: .videoDisabled
            case .videoEnabled: .videoEnabled
            case .publisherVideoDisabled: .publisherVideoDisabled
            case .publisherVideoEnabled: .publisherVideoEnabled
            case .nodeDraining: .nodeDraining
            case .archiveStarted: .archiveStarted
            case .archiveStopped: .archiveStopped
            }
        }

        /// The event's data alone, as the protocol's event of the same name carries it.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .sessionCreated(let value): try container.encode(value)
            case .sessionDestroyed(let value): try container.encode(value)
            case .connectionCreated(let value), .connectionDestroyed(let value), .connectionReconnecting(let value),
                .connectionReconnected(let value):
                try container.encode(value)
            case .streamCreated(let value), .streamDestroyed(let value): try container.encode(value)
            case .videoDisabled(let value), .videoEnabled(let value): try container.encode(value)
            case .publisherVideoDisabled(let value), .publisherVideoEnabled(let value): try container.encode(value)
            case .nodeDraining(let value): try container.encode(value)
            case .archiveStarted(let value), .archiveStopped(let value): try container.encode(value)
            }
        }
    }

    /// The event names a webhook endpoint can choose from.
    public enum Kind: String, Codable, CaseIterable, Sendable {
        case sessionCreated, sessionDestroyed
        case connectionCreated, connectionDestroyed, connectionReconnecting, connectionReconnected
        case streamCreated, streamDestroyed
        case videoDisabled, videoEnabled, publisherVideoDisabled, publisherVideoEnabled
        case nodeDraining
        case archiveStarted, archiveStopped
    }
}

/// `sessionCreated`: how the session came to be on this server.
public struct SessionCreation: Codable, Equatable, Sendable {
    public enum Origin: String, Codable, Sendable {
        /// `POST /v1/sessions`.
        case rest
        /// The first client's `connect` (or a WHIP/WHEP request) with a token for a session that
        /// did not exist here.
        case connect
    }

    public var origin: Origin

    public init(origin: Origin) { self.origin = origin }
}

/// `sessionDestroyed`: why the session ended on this server.
public struct SessionDestruction: Codable, Equatable, Sendable {
    public enum Reason: String, Codable, Sendable {
        /// Its last connection left (sessions made through REST stay until the server stops).
        case lastConnectionLeft
        case serverShutdown
        /// In a cluster: this node drained; the session continues on another node if its clients
        /// come back.
        case nodeDraining
    }

    public var reason: Reason

    public init(reason: Reason) { self.reason = reason }
}

/// `nodeDraining`: which node, and how many sessions it held when it began.
public struct NodeDraining: Codable, Equatable, Sendable {
    public var nodeId: String
    public var sessions: Int

    public init(nodeId: String, sessions: Int) {
        self.nodeId = nodeId
        self.sessions = sessions
    }
}

/// Hears every `SessionActivity` as it happens. Called from inside the session directory, so it
/// must return at once: queue, never wait.
public protocol SessionActivitySink: Sendable {
    func record(_ activity: SessionActivity)
}
