import Foundation
import Logging
import MediaControl
import SignalingProtocol

/// Every session on this server: connections, streams and subscribers, kept consistent with the
/// media plane through `MediaControl`. An actor, so each request sees and leaves the bookkeeping
/// whole; after every `await` on the media plane it checks again that what it acts on still exists.
public actor SessionDirectory {
    let media: any MediaControl
    let limits: SignalingLimits
    let reconnection: ReconnectionSettings
    let faultInjection: Bool
    /// The cluster's placements, told when a session ends here; nil on a single node.
    let placement: (any SessionPlacement)?
    /// Mints each connection's TURN credentials; nil when the server has no `turn` configuration.
    let turn: TURNCredentialMinter?
    /// Hears what the app's backend is told through webhooks; nil when nobody listens.
    let activity: (any SessionActivitySink)?
    /// Records sessions; nil when the configuration turns archives off.
    let archiving: (any SessionArchiving)?
    let logger: Logger
    private let wallClock: @Sendable () -> Date
    var sessions: [String: SessionState] = [:]
    /// Which session each created router serves, for the media plane's events about routers.
    var sessionIdsByRouter: [RouterID: String] = [:]
    /// Audio-fallback events sent to clients since the server started, by event name.
    var audioFallbackEventCounts: [String: UInt64] = [:]
    /// WebRTC transports whose publish or subscribe request is still under way: the media plane may
    /// give up on one before the request has recorded the stream or subscriber it carries.
    var transportsBeingSetUp: Set<TransportID> = []
    /// Why the media plane gave up on a transport of `transportsBeingSetUp`, for its request to refuse.
    var failuresBeforeRecorded: [TransportID: String] = [:]
    /// Set by `closeAll` (a shutdown or a drain), with what its clients were told: from then on no
    /// session is made or joined here. A `connect` that found its session here just before the
    /// drain closed it would otherwise make it again, on a node that is going away, and hold the
    /// clients that follow it there until the node exits.
    private(set) var closedBecause: String?

    public init(
        media: any MediaControl, limits: SignalingLimits, reconnection: ReconnectionSettings = ReconnectionSettings(),
        faultInjection: Bool = false, placement: (any SessionPlacement)? = nil, turn: TURNConfiguration? = nil,
        activity: (any SessionActivitySink)? = nil, archiving: (any SessionArchiving)? = nil, logger: Logger, wallClock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.media = media
        self.limits = limits
        self.reconnection = reconnection
        self.faultInjection = faultInjection
        self.placement = placement
        self.turn = turn.map(TURNCredentialMinter.init)
        self.activity = activity
        self.archiving = archiving
        self.logger = logger
        self.wallClock = wallClock
    }

    var nowMilliseconds: Int64 { Int64(wallClock().timeIntervalSince1970 * 1000) }

    /// Tells the webhooks what happened in `sessionId`, addressed to `connectionId` when it
    /// concerns one connection's own media.
    func report(_ event: SessionActivity.Event, in sessionId: String?, to connectionId: String? = nil) {
        activity?.record(SessionActivity(sessionId: sessionId, connectionId: connectionId, event: event, time: nowMilliseconds))
    }

    /// The STUN and TURN servers `connectionId` is given, with credentials minted now; nil without
    /// a `turn` configuration, so the reply leaves the key out.
    func iceServers(for connectionId: String) -> [ICEServer]? {
        turn?.iceServers(for: connectionId, now: wallClock())
    }

    /// The memory of one sender's signal ids: a connection's, or the app backend's in one session.
    private func recentSignalIds() -> RecentSignalIds {
        RecentSignalIds(capacity: reconnection.rememberedSignalIds, window: reconnection.grace)
    }

    // MARK: - Sessions

    /// Creates an empty session, with the id asked for or a new one, its audio routing when given
    /// (for a session that exists, the routing given replaces its own), and whether it is end-to-end
    /// encrypted and suppresses connection events (neither can change for a session that exists).
    public func createSession(
        id requested: String?, audio: SessionAudioSettings? = nil, e2ee: Bool? = nil, connectionEventsSuppressed: Bool? = nil,
        archiveMode: ArchiveMode? = nil
    ) async throws(SignalingError) -> String {
        let id = requested ?? SessionIdentifier.make(prefix: "s_")
        guard SessionIdentifier.isValid(id) else { throw .invalidParams("body.sessionId", SessionIdentifier.rule) }
        try requireOpen()
        if let count = audio?.forwardLoudest, !SessionAudioSettings.forwardLoudestRange.contains(count) {
            throw .invalidParams("body.audio.forwardLoudest", "must be 1-100, not \(count)")
        }
        if archiveMode == .always {
            guard archiving != nil else {
                throw SignalingError(.forbidden, "body.archiveMode always: this server does not record sessions (its configuration turns archives off)")
            }
            guard e2ee != true, sessions[id]?.isEndToEndEncrypted != true else {
                throw .invalidParams("body.archiveMode", "an end-to-end encrypted session cannot be recorded: the router cannot read its media")
            }
        }
        if let existing = sessions[id], let e2ee, e2ee != existing.isEndToEndEncrypted {
            throw .invalidParams(
                "body.e2ee",
                "session \(id) exists already \(existing.isEndToEndEncrypted ? "with" : "without") end-to-end encryption, "
                    + "which is chosen when a session is created")
        }
        if let existing = sessions[id], let connectionEventsSuppressed, connectionEventsSuppressed != existing.connectionEventsSuppressed {
            throw .invalidParams(
                "body.connectionEventsSuppressed",
                "session \(id) exists already \(existing.connectionEventsSuppressed ? "with" : "without") connection events suppressed, "
                    + "which is chosen when a session is created")
        }
        if sessions[id] == nil {
            var session = SessionState(id: id, createdThroughREST: true, applicationSignalIds: recentSignalIds())
            session.isEndToEndEncrypted = e2ee == true
            session.connectionEventsSuppressed = connectionEventsSuppressed == true
            try add(session, origin: .rest)
        }
        if let archiveMode { sessions[id]?.archivesAutomatically = archiveMode == .always }
        if let audio {
            sessions[id]?.audio = audio.forwardLoudest == nil ? nil : audio
            if let routerID = sessions[id]?.routerID { await applyAudioSettings(to: routerID, of: id) }
        }
        if let placement, let settings = sessions[id]?.settings {
            try await placement.keep(settings, ofSession: id)
        }
        return id
    }

    /// Where `sessionId` lives in a cluster, placing it first when `placing`; nil on a single node
    /// and for a session this node holds (no database needed). A session placed here that this node
    /// does not hold yet is made with the settings the cluster kept for it, before any client or
    /// request makes it with defaults.
    public func location(of sessionId: String, placing: Bool) async throws(SignalingError) -> SessionLocation? {
        guard let placement, sessions[sessionId] == nil else { return nil }
        let location = placing ? try await placement.place(sessionId: sessionId) : try await placement.locate(sessionId: sessionId)
        if placing, location == .here, let kept = try await placement.keptSettings(ofSession: sessionId) {
            try restore(sessionId, kept)
        }
        return location
    }

    /// Makes `sessionId` with settings it had on another node, unless a request racing this one
    /// made it meanwhile (with the same kept settings).
    private func restore(_ sessionId: String, _ kept: SessionSettings) throws(SignalingError) {
        guard sessions[sessionId] == nil else { return }
        try requireOpen()
        var session = SessionState(id: sessionId, createdThroughREST: kept.createdThroughREST, applicationSignalIds: recentSignalIds())
        session.audio = kept.audio
        session.isEndToEndEncrypted = kept.e2ee
        session.connectionEventsSuppressed = kept.connectionEventsSuppressed
        session.archivesAutomatically = kept.archiveMode == .always
        try add(session, origin: .connect)
        logger.info("session made again with its kept settings", metadata: ["session": "\(sessionId)"])
    }

    /// Adds a session this server does not hold yet, within its limit, and tells the webhooks.
    private func add(_ session: SessionState, origin: SessionCreation.Origin) throws(SignalingError) {
        guard sessions.count < limits.sessions else {
            throw SignalingError(.limitReached, "this server already holds \(limits.sessions) sessions")
        }
        sessions[session.id] = session
        report(.sessionCreated(SessionCreation(origin: origin)), in: session.id)
    }

    /// Whether this server holds `sessionId` now.
    public func hosts(_ sessionId: String) -> Bool {
        sessions[sessionId] != nil
    }

    /// The sessions this server holds now.
    public func sessionIds() -> [String] {
        Array(sessions.keys)
    }

    public func snapshot(of sessionId: String) -> SessionSnapshot? {
        sessions[sessionId]?.snapshot
    }

    public func counts() -> DirectoryCounts {
        var counts = DirectoryCounts()
        counts.sessions = sessions.count
        for session in sessions.values {
            counts.connections += session.connections.count
            counts.streams += session.streams.count
            counts.subscribers += session.subscribers.count
        }
        counts.audioFallbackEvents = audioFallbackEventCounts
        return counts
    }

    // MARK: - Connections

    /// Adds a connection to the session its token names, creating the session if needed, and tells
    /// everyone already there who hears connection events (all but those that asked not to, and in
    /// a session that suppresses them, the moderators only); the others hear the count.
    public func connect(
        grant: ClientGrant, outbox: ClientOutbox, speakerEvents: Bool = false, connectionEventsSuppressed: Bool = false
    ) throws(SignalingError) -> ConnectResult {
        try requireOpen()
        if sessions[grant.sessionId] == nil {
            try add(SessionState(id: grant.sessionId, createdThroughREST: false, applicationSignalIds: recentSignalIds()), origin: .connect)
        }
        guard sessions[grant.sessionId]!.connections.count < limits.connectionsPerSession else {
            throw SignalingError(.limitReached, "session \(grant.sessionId) already has \(limits.connectionsPerSession) connections")
        }
        let info = ConnectionInfo(
            connectionId: SessionIdentifier.make(prefix: "c_"), creationTime: nowMilliseconds, data: grant.connectionData)
        sessions[grant.sessionId]!.announce(.connectionCreated(ConnectionEvent(connection: info)))
        report(.connectionCreated(ConnectionEvent(connection: info)), in: grant.sessionId)
        let secret = Self.makeReconnectSecret()
        let hearsConnectionEvents =
            !connectionEventsSuppressed && (grant.role == .moderator || !sessions[grant.sessionId]!.connectionEventsSuppressed)
        let connection = ConnectionState(
            info: info, role: grant.role, events: ConnectionEvents(limits: reconnection, outbox: outbox), reconnectSecret: secret,
            recentSignalIds: recentSignalIds(), receivesSpeakerEvents: speakerEvents, receivesConnectionEvents: hearsConnectionEvents)
        sessions[grant.sessionId]!.connections[info.connectionId] = connection
        if hearsConnectionEvents { sessions[grant.sessionId]!.connectionEventListeners.insert(info.connectionId) }
        scheduleConnectionCount(in: grant.sessionId)
        logger.info("connection created", metadata: ["session": "\(grant.sessionId)", "connection": "\(info.connectionId)", "role": "\(grant.role.rawValue)"])
        return ConnectResult(
            connection: info, role: grant.role, session: sessions[grant.sessionId]!.snapshot(for: connection),
            reconnection: reconnectionGrant(secret: secret), nodeId: placement?.nodeId, iceServers: iceServers(for: info.connectionId))
    }

    /// Removes a connection and everything it published or subscribed to, and tells the others.
    /// The connection's own outbox is closed with `closing` when given, else just finished.
    public func disconnect(
        sessionId: String, connectionId: String, reason: ConnectionDestroyedReason,
        closing: (SessionDisconnectedReason, String)? = nil
    ) async {
        guard let connection = sessions[sessionId]?.connections.removeValue(forKey: connectionId) else { return }
        connection.graceTimer?.cancel()
        var transports: [TransportID] = []
        let streamReason: StreamDestroyedReason =
            switch reason {
            case .clientDisconnected: .clientDisconnected
            case .forceDisconnected: .forceDisconnected
            case .networkDisconnected: .networkDisconnected
            }
        for streamId in connection.streamIds {
            transports += removeStream(sessionId: sessionId, streamId: streamId, reason: streamReason, notifyPublisher: false)
        }
        for subscriberId in connection.subscriberIds {
            if let subscriber = removeSubscriber(sessionId: sessionId, subscriberId: subscriberId) {
                transports.append(subscriber.transportID)
            }
        }
        sessions[sessionId]?.connectionEventListeners.remove(connectionId)
        sessions[sessionId]?.announce(.connectionDestroyed(ConnectionEvent(connection: connection.info, reason: reason)))
        report(.connectionDestroyed(ConnectionEvent(connection: connection.info, reason: reason)), in: sessionId)
        scheduleConnectionCount(in: sessionId)
        if let (closeReason, message) = closing {
            connection.events.close(closeReason, message: message)
        } else {
            connection.events.finish()
        }
        logger.info("connection destroyed", metadata: ["session": "\(sessionId)", "connection": "\(connectionId)", "reason": "\(reason.rawValue)"])
        var emptiedRouter: Task<RouterID, any Error>?
        var endedArchive: SessionArchive?
        var sessionEnded = false
        if sessions[sessionId]?.connections.isEmpty == true {
            endedArchive = sessions[sessionId]?.archive
            sessions[sessionId]?.archive = nil
            emptiedRouter = sessions[sessionId]?.router
            sessions[sessionId]?.router = nil
            if let routerID = sessions[sessionId]?.routerID { sessionIdsByRouter[routerID] = nil }
            sessions[sessionId]?.routerID = nil
            sessions[sessionId]?.activeSpeakerStreamId = nil
            if sessions[sessionId]?.createdThroughREST == false {
                sessions[sessionId] = nil
                // The app's backend hears the end of the session's archive before the session's.
                sessionEnded = true
                if endedArchive == nil { report(.sessionDestroyed(SessionDestruction(reason: .lastConnectionLeft)), in: sessionId) }
                // Unless a client brought it back here meanwhile (its placement stayed this node's).
                if let placement {
                    Task { [weak self] in
                        guard let self, await !self.hosts(sessionId) else { return }
                        await placement.sessionEnded(sessionId: sessionId)
                    }
                }
            }
        }
        await closeTransports(transports)
        if let endedArchive {
            await endArchive(endedArchive, of: sessionId)
            if sessionEnded { report(.sessionDestroyed(SessionDestruction(reason: .lastConnectionLeft)), in: sessionId) }
        }
        if let emptiedRouter, let router = try? await emptiedRouter.value {
            try? await media.closeRouter(router)
        }
    }

    /// Refuses what would make or join a session once `closeAll` ran.
    private func requireOpen() throws(SignalingError) {
        if let closedBecause { throw SignalingError(.unavailable, closedBecause) }
    }

    /// Tells every client why and closes every connection and router (graceful shutdown); no
    /// session is made or joined afterwards.
    public func closeAll(reason: SessionDisconnectedReason, message: String) async {
        closedBecause = message
        var routers: [Task<RouterID, any Error>] = []
        let archives = sessions.compactMap { id, session in session.archive.map { (id, $0) } }
        for (sessionId, archive) in archives { await endArchive(archive, of: sessionId) }
        for session in sessions.values {
            for connection in session.connections.values {
                connection.graceTimer?.cancel()
                connection.events.close(reason, message: message)
            }
            if let router = session.router { routers.append(router) }
        }
        let destruction = SessionDestruction(reason: reason == .nodeDraining ? .nodeDraining : .serverShutdown)
        for sessionId in sessions.keys.sorted() { report(.sessionDestroyed(destruction), in: sessionId) }
        sessions.removeAll()
        sessionIdsByRouter.removeAll()
        for router in routers {
            if let id = try? await router.value { try? await media.closeRouter(id) }
        }
    }

    // MARK: - Shared helpers

    func connection(_ connectionId: String, in sessionId: String) throws(SignalingError) -> ConnectionState {
        guard let connection = sessions[sessionId]?.connections[connectionId] else {
            throw SignalingError(.notConnected, "this connection has left the session")
        }
        return connection
    }

    func router(of sessionId: String) async throws(SignalingError) -> RouterID {
        guard sessions[sessionId] != nil else { throw SignalingError(.notFound, "session \(sessionId) does not exist") }
        let task: Task<RouterID, any Error>
        if let existing = sessions[sessionId]!.router {
            task = existing
        } else {
            let media = self.media
            task = Task { try await media.createRouter() }
            sessions[sessionId]!.router = task
        }
        let routerID: RouterID
        do {
            routerID = try await task.value
        } catch {
            throw SignalingError(.mediaError, "the media plane could not create a router: \(error)")
        }
        if sessions[sessionId]?.routerID == nil, sessions[sessionId]?.router != nil {
            sessions[sessionId]?.routerID = routerID
            sessionIdsByRouter[routerID] = sessionId
            if sessions[sessionId]?.audio != nil { await applyAudioSettings(to: routerID, of: sessionId) }
        }
        return routerID
    }

    /// Removes a stream and its subscribers from the bookkeeping, tells the session, and returns the
    /// transports to close.
    func removeStream(sessionId: String, streamId: String, reason: StreamDestroyedReason, notifyPublisher: Bool) -> [TransportID] {
        guard let stream = sessions[sessionId]?.streams.removeValue(forKey: streamId) else { return [] }
        sessions[sessionId]?.connections[stream.publisherConnectionId]?.streamIds.remove(streamId)
        if sessions[sessionId]?.connections[stream.publisherConnectionId]?.isHTTPResource == true {
            endHTTPResource(sessionId: sessionId, connectionId: stream.publisherConnectionId, after: reason)
        }
        endArchivedStream(streamId, in: sessionId)
        var transports = [stream.transportID]
        for subscriberId in stream.subscriberIds {
            if let subscriber = removeSubscriber(sessionId: sessionId, subscriberId: subscriberId) {
                transports.append(subscriber.transportID)
            }
        }
        sessions[sessionId]?.broadcast(
            .streamDestroyed(StreamEvent(stream: stream.info, reason: reason)),
            excluding: notifyPublisher ? nil : stream.publisherConnectionId)
        report(.streamDestroyed(StreamEvent(stream: stream.info, reason: reason)), in: sessionId)
        logger.info("stream destroyed", metadata: ["session": "\(sessionId)", "stream": "\(streamId)", "reason": "\(reason.rawValue)"])
        return transports
    }

    func removeSubscriber(sessionId: String, subscriberId: String) -> SubscriberState? {
        guard let subscriber = sessions[sessionId]?.subscribers.removeValue(forKey: subscriberId) else { return nil }
        sessions[sessionId]?.connections[subscriber.connectionId]?.subscriberIds.remove(subscriberId)
        if sessions[sessionId]?.connections[subscriber.connectionId]?.isHTTPResource == true {
            endHTTPResource(sessionId: sessionId, connectionId: subscriber.connectionId, after: .clientDisconnected)
        }
        sessions[sessionId]?.streams[subscriber.streamId]?.subscriberIds.remove(subscriberId)
        return subscriber
    }

    /// A plain transport for one publish or subscribe, in the session's router (one made to receive
    /// `stream` may be placed on another worker when the stream's audience is large).
    func createTransport(
        in sessionId: String, offer: TransportOffer, toReceive stream: StreamState? = nil
    ) async throws(SignalingError) -> PlainTransportParameters {
        let routerID = try await router(of: sessionId)
        let options = PlainTransportOptions(
            remoteAddress: offer.remote.map { TransportAddress(host: $0.host, port: $0.port) },
            clientSRTP: SRTPParameters(profile: offer.srtp.profile, keyParameter: offer.srtp.key),
            transportWideSequenceID: offer.transportWideSequenceExtensionId, redundantAudio: offer.redPayloadType.map { .redundant(payloadType: $0) } ?? .primaryOnly)
        do {
            return try await media.createPlainTransport(router: routerID, options: options, toConsume: stream?.producerIDs ?? [])
        } catch {
            throw Self.mediaError(error)
        }
    }

    /// A consumer to pause or resume for one reason.
    struct ConsumerChange {
        var consumer: ConsumerID
        var pause: Bool
    }

    /// Pauses or resumes consumers; one already closed (its transport went away) is skipped.
    func apply(_ changes: [ConsumerChange], reason: ConsumerPauseReason) async {
        for change in changes {
            do {
                if change.pause {
                    try await media.pauseConsumer(change.consumer, reason: reason)
                } else {
                    try await media.resumeConsumer(change.consumer, reason: reason)
                }
            } catch {
                logger.debug("consumer gone before its update", metadata: ["consumer": "\(change.consumer)", "error": "\(error)"])
            }
        }
    }

    func closeTransports(_ transports: [TransportID]) async {
        for transport in transports {
            transportsBeingSetUp.remove(transport)
            failuresBeforeRecorded.removeValue(forKey: transport)
            do {
                try await media.closeTransport(transport)
            } catch {
                logger.debug("transport already closed", metadata: ["transport": "\(transport)", "error": "\(error)"])
            }
        }
    }

    /// What a media-plane refusal means for the client. `root` is where the request's fields are
    /// (`params`, or a REST `body`); `sdpField` the SDP the remote description came from.
    static func mediaError(_ error: MediaControlError, at root: String = "params", sdpField: String = "sdpOffer") -> SignalingError {
        switch error {
        case .invalidParameter(let parameter, let problem):
            let field =
                switch parameter {
                case .srtpProfile: "transport.srtp.profile"
                case .srtpKey: "transport.srtp.key"
                case .remoteAddress: "transport.remote.host"
                case .dtlsFingerprint: sdpField
                case .dropShare: "dropShare"
                case .rateCapBitrate: "rateCapBitrate"
                case .transportWideSequenceID: "transport.transportWideSequenceExtensionId"
                case .redundantAudioPayloadType: "transport.redPayloadType"
                }
            return .invalidParams("\(root).\(field)", problem)
        case .invalidParameters(let reason): return .invalidParams(root, reason)
        case .ssrcInUse(let ssrc): return .invalidParams(root, "SSRC \(ssrc) is already in use on this transport")
        case .noFreePort(let lowest, let highest): return SignalingError(.limitReached, "no free media port in \(lowest)-\(highest)")
        case .overloaded(let worker, let reason):
            return SignalingError(.limitReached, "the router's media worker \(worker) is at its capacity: \(reason); try again later or on another node")
        default: return SignalingError(.mediaError, "\(error)")
        }
    }
}
