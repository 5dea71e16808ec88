import Foundation
import SRTP
import SignalingProtocol
import Synchronization

/// A connection to one session on a Switchyard daemon: the reference platform's session object.
/// Connect with a token, watch `events`, publish and subscribe; each publisher and subscriber has its
/// own media endpoint on the options' `MediaLoop`.
public final class Session: Sendable {
    fileprivate struct State {
        var channel: SignalingChannel?
        /// Goes up each time a WebSocket is connected, so a request that failed with the old one
        /// knows when to try again.
        var channelGeneration = 0
        var status = SessionConnectionStatus.connecting
        /// Requests waiting for the session to be back.
        var reconnectionWaiters: [CheckedContinuation<Bool, Never>] = []
        /// What the server needs to take this connection back after a drop; nil when it keeps none.
        var reconnection: ReconnectionGrant?
        /// The `seq` of the last event received.
        var lastEventSeq: UInt64 = 0
        /// Events the server numbered that never arrived: each `seq` skipped over.
        var eventSequenceGaps = 0
        /// Until when a simulated outage keeps the server out of reach.
        var networkDownUntil: ContinuousClock.Instant?
        var connection: ConnectionInfo?
        var capabilities: Capabilities?
        var connections: [String: ConnectionInfo] = [:]
        var streams: [String: StreamInfo] = [:]
        var publishers: [String: Publisher] = [:]
        var subscribers: [String: Subscriber] = [:]
        var serverDisconnectReason: SessionDisconnectedReason?
        var isLeaving = false
        /// In a cluster, the node that serves the session, when the server at `url` (or the
        /// entry in use) sent us there.
        var nodeURL: String?
        /// Which way into the cluster the session came in by: `url`, or one of `options.alternativeURLs`.
        var entryURL: String?
        /// Events that came while a `connect` reply's picture of the session was not taken yet; they
        /// are newer than it, so they apply after it.
        var heldEvents: [(SessionEvent, UInt64?)]?
        /// In a cluster, the id of the node that serves the session; nil on a single server.
        var nodeId: String?
        /// The STUN and TURN servers of the last connect or reconnect reply.
        var iceServers: [ICEServer] = []
        var forceMute = ForceMuteState.inactive
        var archive: ArchiveEvent?
        /// With speaker events: the dominant speaker's stream, from the connect reply and then
        /// `activeSpeakerChanged`.
        var activeSpeakerStreamId: String?
        /// From sending the last `connect` or `reconnect` to its reply.
        var connectReplyTime: Duration?
        /// The session's connections, this one included: from each reply, then from connection
        /// events or, without them, `connectionCountChanged`.
        var connectionCount = 0
    }

    /// Redirects to another node `connect` follows before giving up: one is the rule (the node
    /// that placed the session names it); more means placement moved while the client followed.
    static let maximumRedirects = 3

    public let url: String
    public let sessionId: String
    public let options: SessionOptions
    /// Whether this connection hears who speaks: `activeSpeakerChanged` and `audioLevels` events, and
    /// `activeSpeakerStreamId` (docs/speakers.md).
    public let subscribesToSpeakerEvents: Bool
    /// Whether this connection asked to go without the others' `connectionCreated` and
    /// `connectionDestroyed` (docs/protocol.md, "Connection event suppression"); a session can also
    /// suppress them for everyone but moderators. Without them, `connections` holds this connection
    /// and the publishers', and `connectionCount` follows `connectionCountChanged`.
    public let suppressesConnectionEvents: Bool
    public let events: AsyncStream<SessionClientEvent>
    private let eventSink: AsyncStream<SessionClientEvent>.Continuation
    private let token: String
    private let state = Mutex(State())

    private init(
        url: String, sessionId: String, token: String, options: SessionOptions, subscribesToSpeakerEvents: Bool, suppressesConnectionEvents: Bool
    ) {
        self.url = url
        self.sessionId = sessionId
        self.token = token
        self.options = options
        self.subscribesToSpeakerEvents = subscribesToSpeakerEvents
        self.suppressesConnectionEvents = suppressesConnectionEvents
        (events, eventSink) = AsyncStream.makeStream(of: SessionClientEvent.self, bufferingPolicy: .bufferingNewest(4096))
    }

    /// Opens a WebSocket to `url` (`ws://host:port/v1/ws`) and connects to `sessionId` with `token`.
    /// With `subscribeToSpeakerEvents`, the session hears who speaks (`activeSpeakerChanged`,
    /// `audioLevels`, `activeSpeakerStreamId`); a connection that did not ask hears none of it.
    /// With `suppressConnectionEvents`, it hears the count of connections instead of each join and
    /// leave (for an audience member of a broadcast).
    public static func connect(
        url: String, sessionId: String, token: String, options: SessionOptions, subscribeToSpeakerEvents: Bool = false,
        suppressConnectionEvents: Bool = false
    ) async throws(SessionError) -> Session {
        let session = Session(
            url: url, sessionId: sessionId, token: token, options: options, subscribesToSpeakerEvents: subscribeToSpeakerEvents,
            suppressesConnectionEvents: suppressConnectionEvents)
        try await session.open()
        return session
    }

    public var connection: ConnectionInfo? { state.withLock { $0.connection } }
    /// The WebSocket URL of the server the session is connected through: `url`, or in a cluster the
    /// node that serves the session.
    public var serverURL: String { state.withLock { $0.nodeURL ?? $0.entryURL } ?? url }
    /// Where the session's connection to the server stands, as the reference platform's
    /// `sessionConnectionStatus`.
    public var connectionStatus: SessionConnectionStatus { state.withLock { $0.status } }
    /// How long the server keeps this connection after a drop; nil when it keeps none.
    public var reconnectionGrace: Duration? { state.withLock { $0.reconnection.map { .seconds($0.graceSeconds) } } }
    public var capabilities: Capabilities? { state.withLock { $0.capabilities } }
    /// The STUN and TURN servers the server gave this connection (`iceServers` of the last connect
    /// or reconnect reply, TURN ones with credentials minted for it); empty when it has no `turn`
    /// configuration. This client sends plain RTP to the router's plain transports, which have no
    /// ICE, so it cannot use them itself; they are here for an application that hands them to a
    /// WebRTC stack of its own, as the browser client does.
    public var iceServers: [ICEServer] { state.withLock { $0.iceServers } }
    public var streams: [StreamInfo] { state.withLock { Array($0.streams.values) } }
    public var connections: [ConnectionInfo] { state.withLock { Array($0.connections.values) } }
    /// How many connections the session has, this one included.
    public var connectionCount: Int { state.withLock { $0.connectionCount } }
    /// Whether streams published now start muted (a moderator's `forceMuteAll`, until `disableForceMute`).
    public var forceMute: ForceMuteState { state.withLock { $0.forceMute } }
    /// The archive recording the session now, for a recording indicator (from the connect reply and
    /// `archiveStarted` / `archiveStopped`); nil when none records.
    public var archive: ArchiveEvent? { state.withLock { $0.archive } }
    /// The stream the router hears as the dominant speaker (nil while nobody has spoken, or once the
    /// speaker was muted or left and nobody else speaks): from the connect reply, then every
    /// `activeSpeakerChanged`. Always nil unless the session subscribed to speaker events.
    public var activeSpeakerStreamId: String? { state.withLock { $0.activeSpeakerStreamId } }
    /// How long the server took to answer the last `connect` or `reconnect`, from sending it on the
    /// open WebSocket to its reply (the WebSocket's own opening left out): what a join costs the
    /// server's signaling, as a bench measures it.
    public var connectReplyTime: Duration? { state.withLock { $0.connectReplyTime } }
    /// Events the server numbered for this client that never reached it: how many `seq` numbers
    /// were skipped, over every connection the session has had (a reconnection replays what was
    /// missed, so anything above 0 is a lost event). A chaos run holds it at 0.
    public var eventSequenceGaps: Int { state.withLock { $0.eventSequenceGaps } }

    private func open() async throws(SessionError) {
        let (channel, connected) = try await connectHoldingEvents()
        take(connected)
        attach(channel)
    }

    /// `connect` on a new WebSocket; the events that come with the reply are held until `take`.
    private func connectHoldingEvents() async throws(SessionError) -> (SignalingChannel, ConnectResult) {
        // Where the events of the connection in use stand is kept until this one is made: a move
        // that fails (the network still down) must leave a later `reconnect` asking for the right ones.
        state.withLock { $0.heldEvents = [] }
        do {
            let parameters = ConnectParameters(
                sessionId: sessionId, token: token, subscribeToSpeakerEvents: subscribesToSpeakerEvents ? true : nil,
                connectionEventsSuppressed: suppressesConnectionEvents ? true : nil)
            return try await openChannel(with: .connect(parameters))
        } catch {
            state.withLock { $0.heldEvents = nil }
            throw error
        }
    }

    /// Takes the picture of a `connect` reply, then the events that came after it.
    private func take(_ connected: ConnectResult) {
        let held = state.withLock { state in
            defer { state.heldEvents = nil }
            state.take(connected)
            if subscribesToSpeakerEvents { state.activeSpeakerStreamId = connected.session.activeSpeakerStreamId }
            return state.heldEvents ?? []
        }
        for (event, sequence) in held { handle(event, sequence: sequence) }
    }

    /// Takes the connection back on a new WebSocket after a drop: the server sends what was missed
    /// after the reply, so the session's picture of the others stays the one events built.
    private func resume(with grant: ReconnectionGrant) async throws(SessionError) {
        let (connectionId, lastEventSeq) = state.withLock { ($0.connection?.connectionId ?? "", $0.lastEventSeq) }
        let parameters = ReconnectParameters(
            sessionId: sessionId, connectionId: connectionId, reconnectSecret: grant.secret, lastEventSeq: lastEventSeq)
        let (channel, reconnected) = try await openChannel(with: .reconnect(parameters))
        state.withLock { state in
            state.connection = reconnected.connection
            state.reconnection = reconnected.reconnection
            if let iceServers = reconnected.iceServers { state.iceServers = iceServers }
            // A connection that hears joins and leaves gets those it missed replayed after this
            // reply, whose count has them already.
            let hearsConnectionEvents =
                !suppressesConnectionEvents && (reconnected.session.connectionEventsSuppressed != true || reconnected.role == .moderator)
            if !hearsConnectionEvents { state.connectionCount = reconnected.session.connectionCount }
        }
        attach(channel)
    }

    /// A new WebSocket whose first request, `connect` or `reconnect`, succeeded; closed again if not.
    /// A node of a cluster that does not serve the session names the one that does, and the
    /// request goes there.
    private func openChannel(with request: ClientRequest) async throws(SessionError) -> (SignalingChannel, ConnectResult) {
        var redirects = 0
        while true {
            do {
                return try await openChannelOnce(with: request)
            } catch .sessionOnOtherNode(let next) where redirects < Self.maximumRedirects {
                redirects += 1
                state.withLock { $0.nodeURL = next }
            }
        }
    }

    private func openChannelOnce(with request: ClientRequest) async throws(SessionError) -> (SignalingChannel, ConnectResult) {
        let channel = try await makeChannel()
        let result: RequestResult
        let sent = ContinuousClock.now
        do {
            result = try await channel.call(request, timeout: options.requestTimeout)
        } catch {
            await channel.close()
            throw error
        }
        let replyTime = ContinuousClock.now - sent
        switch result {
        case .connect(let connected), .reconnect(let connected):
            state.withLock { $0.connectReplyTime = replyTime }
            return (channel, connected)
        default:
            await channel.close()
            throw .unexpectedReply(method: request.method.rawValue)
        }
    }

    private func makeChannel() async throws(SessionError) -> SignalingChannel {
        if let downUntil = state.withLock({ $0.networkDownUntil }), ContinuousClock.now < downUntil {
            throw .unreachable(url: url, reason: "the network is down (simulated outage)")
        }
        return try await SignalingChannel(url: serverURL, pingInterval: options.pingInterval, logger: options.logger) { [weak self] event, sequence in
            self?.handle(event, sequence: sequence)
        }
    }

    /// Makes `channel` the session's WebSocket and wakes the requests waiting for one.
    private func attach(_ channel: SignalingChannel) {
        let waiters = state.withLock { state in
            state.channel = channel
            state.channelGeneration += 1
            state.status = .connected
            defer { state.reconnectionWaiters.removeAll() }
            return state.reconnectionWaiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
        Task { [weak self] in
            _ = await channel.closed.value
            await self?.channelClosed(channel)
        }
    }

    func call(_ request: ClientRequest) async throws(SessionError) -> RequestResult {
        let (channel, status) = state.withLock { ($0.channel, $0.status) }
        guard let channel else { throw status == .reconnecting ? .reconnecting : .connectionClosed }
        return try await channel.call(request, timeout: options.requestTimeout)
    }

    /// Waits until the session has a WebSocket newer than generation `seen`: true once it does,
    /// false when the session ended instead.
    private func waitForReconnection(after seen: Int) async -> Bool {
        await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.channelGeneration > seen, state.status == .connected { return true }
                if state.status == .disconnected || state.status == .failed { return false }
                state.reconnectionWaiters.append(continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    // MARK: Requests

    /// Publishes a stream whose media comes from `settings.media`.
    public func publish(_ settings: PublisherSettings) async throws(SessionError) -> Publisher {
        let (binding, handler) = try await startPublishing(settings)
        let publisher = Publisher(session: self, settings: settings, binding: binding)
        handler.onPathChange = { [weak publisher] isUp in publisher?.mediaPath(isUp: isUp) }
        state.withLock { $0.publishers[binding.stream.streamId] = publisher }
        start(binding.endpoint.value, downlink: settings.downlinkImpairment, uplink: settings.uplinkImpairment)
        return publisher
    }

    /// Asks the server for a stream and keys its endpoint; the endpoint starts sending once started.
    private func startPublishing(_ settings: PublisherSettings) async throws(SessionError) -> (Publisher.Binding, PublisherMedia) {
        let endpoint = try makeEndpoint()
        let audio = settings.media.audio == nil ? nil : OutgoingTrack(ssrc: UInt32.random(in: 1...UInt32.max), payloadType: 111)
        let video = settings.media.videoLayers.map { _ in OutgoingTrack(ssrc: UInt32.random(in: 1...UInt32.max), payloadType: 96) }
        let audioLevelID = settings.sendsAudioLevels ? PublisherMedia.audioLevelID : nil
        let handler = PublisherMedia(
            media: settings.media, audio: audio, video: video, reporterSSRC: UInt32.random(in: 1...UInt32.max), audioLevelID: audioLevelID,
            redundantAudioFrames: min(max(settings.redundantAudioFrames, 0), 2))
        handler.sendsAudio = settings.publishAudio
        handler.sendsVideo = settings.publishVideo
        endpoint.handler = handler
        let fallback: AudioFallbackSettings? =
            settings.subscriberAudioFallbackEnabled == nil && settings.publisherAudioFallbackEnabled == nil
            ? nil
            : AudioFallbackSettings(
                subscriberAudioFallbackEnabled: settings.subscriberAudioFallbackEnabled,
                publisherAudioFallbackEnabled: settings.publisherAudioFallbackEnabled)
        let parameters = PublishParameters(
            name: settings.name, videoType: settings.videoType,
            videoDimensions: video.isEmpty ? nil : VideoDimensions(width: settings.media.settings.width, height: settings.media.settings.height),
            audio: audio.map {
                TrackDescription(
                    codec: .opus, payloadType: $0.payloadType, ssrc: $0.ssrc, audioLevelId: audioLevelID,
                    redPayloadType: settings.redundantAudioFrames > 0 ? PublisherMedia.redPayloadType : nil)
            },
            video: video.first.map { TrackDescription(codec: .vp8, payloadType: $0.payloadType, ssrc: $0.ssrc, layers: Self.layers(video, settings.media)) },
            publishAudio: settings.publishAudio, publishVideo: settings.publishVideo, audioFallback: fallback,
            transport: offer(for: endpoint))
        guard case .publish(let result) = try await call(.publish(parameters)) else { throw .unexpectedReply(method: "publish") }
        // Published while force mute is active: the stream starts muted, and the server forwards no audio.
        if !result.stream.hasAudio { handler.sendsAudio = false }
        try accept(result.transport, on: endpoint)
        return (
            Publisher.Binding(stream: result.stream, endpoint: LoopBound(value: endpoint), media: LoopBound(value: handler), mediaPort: endpoint.port),
            handler
        )
    }

    /// The simulcast layers of `tracks` as `publish` declares them; nil for one encoding.
    private static func layers(_ tracks: [OutgoingTrack], _ media: EncodedMedia) -> [LayerDescription]? {
        guard tracks.count > 1 else { return nil }
        return zip(tracks, media.settings.videoLayers).map { track, layer in
            LayerDescription(
                ssrc: track.ssrc, width: layer.width, height: layer.height, frameRate: Double(media.settings.frameRate), bitrate: layer.bitrate)
        }
    }

    /// Subscribes to a stream of this session.
    public func subscribe(to streamId: String, settings: SubscriberSettings = SubscriberSettings()) async throws(SessionError) -> Subscriber {
        let (binding, result, expectsAudio) = try await startSubscribing(to: streamId, settings: settings, pathBroken: false)
        let subscriber = Subscriber(
            session: self, streamId: streamId, settings: settings, binding: binding, result: result, expectsAudio: expectsAudio)
        binding.media.value.onPathChange = { [weak subscriber] isUp in subscriber?.mediaPath(isUp: isUp) }
        state.withLock { $0.subscribers[result.subscriberId] = subscriber }
        start(binding.endpoint.value, downlink: settings.downlinkImpairment, uplink: settings.uplinkImpairment, reads: settings.readsMedia)
        return subscriber
    }

    /// Asks the server for a subscription and readies its media endpoint (not started yet).
    private func startSubscribing(
        to streamId: String, settings: SubscriberSettings, pathBroken: Bool
    ) async throws(SessionError) -> (Subscriber.Binding, SubscribeResult, expectsAudio: Bool) {
        let endpoint = try makeEndpoint()
        let parameters = SubscribeParameters(
            streamId: streamId, subscribeToAudio: settings.subscribeToAudio, subscribeToVideo: settings.subscribeToVideo,
            transport: offer(for: endpoint, feedback: settings.feedback, redundantAudio: settings.receivesRedundantAudio),
            preferredResolution: settings.preferredResolution,
            preferredFrameRate: settings.preferredFrameRate)
        guard case .subscribe(let result) = try await call(.subscribe(parameters)) else { throw .unexpectedReply(method: "subscribe") }
        let handler: SubscriberMedia
        do {
            handler = try SubscriberMedia(
                audioSSRC: result.audio?.ssrc, videoSSRC: result.video?.ssrc, reporterSSRC: UInt32.random(in: 1...UInt32.max),
                // libvpx only: an H.264 stream (from a WHIP encoder) is received and counted, not decoded.
                decodes: settings.decodes && result.video?.codec != .h264, feedback: settings.feedback, pathBroken: pathBroken,
                audioRedPayloadType: result.audio?.redPayloadType)
        } catch {
            throw .media("\(error)")
        }
        let expectsAudio = settings.subscribeToAudio && state.withLock { $0.streams[streamId]?.hasAudio ?? true }
        handler.isVideoExpected = result.videoEnabled && settings.subscribeToVideo
        handler.isMediaExpected = handler.isVideoExpected || (expectsAudio && result.audio != nil)
        endpoint.handler = handler
        try accept(result.transport, on: endpoint)
        let binding = Subscriber.Binding(
            subscriberId: result.subscriberId, endpoint: LoopBound(value: endpoint), media: LoopBound(value: handler), mediaPort: endpoint.port,
            mediaServer: result.transport.map { "\($0.local.host):\($0.local.port)" } ?? "")
        return (binding, result, expectsAudio)
    }

    /// The server ended `subscriber`'s subscription because its media connection failed, and its
    /// stream goes on: subscribes again with the subscriber's current settings (with back-off, while
    /// the session is connected, within `reconnectTimeout`), and the subscriber follows. It ends when
    /// the stream or the session does, when the server refuses, or when the time is up.
    private func resubscribe(_ subscriber: Subscriber) async {
        subscriber.mediaConnectionLost()
        let deadline = ContinuousClock.now + options.reconnectTimeout
        var pause = Duration.milliseconds(250)
        while ContinuousClock.now < deadline, !subscriber.hasEndedAlready {
            let (status, streamGoesOn, isLeaving) = state.withLock {
                ($0.status, $0.streams[subscriber.streamId] != nil, $0.isLeaving)
            }
            if isLeaving || !streamGoesOn || status == .disconnected || status == .failed { break }
            if status == .connected {
                let settings = subscriber.settings
                do {
                    let (binding, result, expectsAudio) = try await startSubscribing(
                        to: subscriber.streamId, settings: settings, pathBroken: true)
                    binding.media.value.onPathChange = { [weak subscriber] isUp in subscriber?.mediaPath(isUp: isUp) }
                    guard !subscriber.hasEndedAlready else {
                        // Unsubscribed while the request was out: the new subscription goes too.
                        _ = try? await call(.unsubscribe(SubscriberReference(subscriberId: result.subscriberId)))
                        return
                    }
                    state.withLock { $0.subscribers[result.subscriberId] = subscriber }
                    subscriber.resubscribed(to: binding, result: result, expectsAudio: expectsAudio)
                    start(binding.endpoint.value, downlink: settings.downlinkImpairment, uplink: settings.uplinkImpairment, reads: settings.readsMedia)
                    return
                } catch {
                    // The server said no (the stream ended, the role changed): asking again will not help.
                    if case .refused = error { break }
                }
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(500))
        }
        subscriber.ended()
    }

    /// Sends a signal to one connection, or to every connection when `to` is nil. While the session
    /// is reconnecting, a signal with `retryAfterReconnect` waits and is sent once it is back; one
    /// without fails at once with `SessionError.reconnecting`. A signal whose reply was lost with the
    /// WebSocket is sent again after the reconnection, under the same id, and the server delivers it
    /// once.
    public func signal(type: String, data: String, to connectionId: String? = nil, retryAfterReconnect: Bool = false) async throws(SessionError) {
        let parameters = SignalParameters(
            to: connectionId, type: type, data: data, retryAfterReconnect: retryAfterReconnect ? true : nil,
            signalId: String(UInt64.random(in: 0...UInt64.max), radix: 36) + String(UInt64.random(in: 0...UInt64.max), radix: 36))
        var wasSent = false
        while true {
            let (generation, status) = state.withLock { ($0.channelGeneration, $0.status) }
            if status == .reconnecting {
                guard retryAfterReconnect || wasSent else { throw .reconnecting }
                guard await waitForReconnection(after: generation - 1) else { throw .connectionClosed }
                continue
            }
            do {
                wasSent = true
                _ = try await call(.signal(parameters))
                return
            } catch let error where error == .connectionClosed || error == .reconnecting {
                // The socket went away with the signal in flight, or just before it left: send it
                // again once back (the server delivers an id it has seen once).
                guard state.withLock({ $0.reconnection != nil && !$0.isLeaving }), options.reconnects else { throw error }
                guard await waitForReconnection(after: generation) else { throw .connectionClosed }
            }
        }
    }

    /// Moderators only: disconnects another connection.
    public func forceDisconnect(connectionId: String) async throws(SessionError) {
        _ = try await call(.forceDisconnect(ConnectionReference(connectionId: connectionId)))
    }

    /// Moderators only: stops another connection's stream.
    public func forceUnpublish(streamId: String) async throws(SessionError) {
        _ = try await call(.forceUnpublish(StreamReference(streamId: streamId)))
    }

    /// Moderators only: mutes another connection's stream; its subscribers stop receiving its audio
    /// before this returns. The publisher may turn it on again.
    public func forceMuteStream(streamId: String) async throws(SessionError) {
        _ = try await call(.forceMuteStream(StreamReference(streamId: streamId)))
    }

    /// Moderators only: mutes every stream but `excluded`, and every stream published until
    /// `disableForceMute` that is not among them.
    public func forceMuteAll(excluding excluded: [String] = []) async throws(SessionError) {
        _ = try await call(.forceMuteAll(ForceMuteAllParameters(excludedStreamIds: excluded.isEmpty ? nil : excluded)))
    }

    /// Moderators only: streams published from now on keep their audio. Nobody is unmuted.
    public func disableForceMute() async throws(SessionError) {
        _ = try await call(.disableForceMute)
    }

    /// Moderators only: starts recording the session (docs/archiving.md); everyone hears `archiveStarted`.
    public func startArchive(_ parameters: RESTBody.StartArchive = RESTBody.StartArchive()) async throws(SessionError) -> ArchiveInfo {
        guard case .startArchive(let info) = try await call(.startArchive(parameters)) else { throw .unexpectedReply(method: "startArchive") }
        return info
    }

    /// Moderators only: stops the session's archive; its files are closed when this returns.
    public func stopArchive(archiveId: String) async throws(SessionError) -> ArchiveInfo {
        guard case .stopArchive(let info) = try await call(.stopArchive(ArchiveReference(archiveId: archiveId))) else {
            throw .unexpectedReply(method: "stopArchive")
        }
        return info
    }

    /// Leaves the session: the server closes the WebSocket, every endpoint stops.
    public func disconnect() async {
        let channel = state.withLock { state -> SignalingChannel? in
            state.isLeaving = true
            return state.channel
        }
        guard let channel else { return }
        _ = try? await channel.call(.disconnect, timeout: .seconds(2))
        await channel.close()
    }

    /// Drops the WebSocket without a goodbye, as a network failure would (for testing reconnection).
    public func simulateNetworkDrop() {
        state.withLock { $0.channel }?.drop()
    }

    /// Takes the network away for `duration`, as a tunnel would: the WebSocket drops and cannot be
    /// reopened, and every publisher's and subscriber's media is lost both ways; then the network
    /// returns and the session reconnects by itself (for the bench and tests of reconnection).
    public func simulateNetworkOutage(for duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let outage = ImpairmentSchedule(steps: [
            ImpairmentSchedule.Step(startSeconds: 0, impairment: NetworkImpairment(loss: 1)),
            ImpairmentSchedule.Step(startSeconds: seconds, impairment: .clean),
        ])
        let (channel, publishers, subscribers) = state.withLock { state in
            state.networkDownUntil = ContinuousClock.now + duration
            return (state.channel, Array(state.publishers.values), Array(state.subscribers.values))
        }
        for publisher in publishers { publisher.impair(uplink: outage, downlink: outage) }
        for subscriber in subscribers { subscriber.impair(downlink: outage, uplink: outage) }
        channel?.drop()
    }

    // MARK: Media endpoints

    private func makeEndpoint() throws(SessionError) -> MediaEndpoint {
        do {
            return try MediaEndpoint(profile: options.srtpProfile, bindAddress: options.mediaAddress, seed: UInt64.random(in: 0...UInt64.max))
        } catch {
            throw .media(error.description)
        }
    }

    private func offer(for endpoint: MediaEndpoint, feedback: BandwidthFeedback = .receiverEstimate, redundantAudio: Bool = false) -> TransportOffer {
        TransportOffer(
            remote: EndpointAddress(host: options.mediaAddress, port: endpoint.port),
            srtp: SRTPKeying(profile: endpoint.keys.profile.rawValue, key: endpoint.keys.sdesKeyParameter),
            transportWideSequenceExtensionId: feedback == .transportWide ? BandwidthFeedback.transportWideSequenceID : nil,
            redPayloadType: redundantAudio ? PublisherMedia.redPayloadType : nil)
    }

    private func accept(_ answer: TransportAnswer?, on endpoint: MediaEndpoint) throws(SessionError) {
        guard let answer else { throw .media("the server answered without a plain transport") }
        guard let profile = SRTPProfile(rawValue: answer.srtp.profile) else { throw .media("the router chose SRTP profile \(answer.srtp.profile)") }
        do {
            let keys = try SRTPKeyMaterial(profile: profile, sdesKeyParameter: answer.srtp.key)
            try endpoint.connect(routerHost: answer.local.host, routerPort: answer.local.port, routerKeys: keys)
        } catch let error as MediaClientError {
            throw .media(error.description)
        } catch {
            throw .media("the router's SRTP key: \(error)")
        }
    }

    private func start(_ endpoint: MediaEndpoint, downlink: ImpairmentSchedule, uplink: ImpairmentSchedule, reads: Bool = true) {
        let loop = options.mediaLoop
        let bound = LoopBound(value: endpoint)
        loop.perform {
            bound.value.impair(downlink: downlink, uplink: uplink, now: MonotonicClock.now())
            if !reads { bound.value.holdsNothing() }
            loop.add(bound.value, reads: reads)
        }
    }

    func stop(_ endpoint: LoopBound<MediaEndpoint>) {
        let loop = options.mediaLoop
        loop.perform { loop.remove(endpoint.value) }
    }

    func forget(publisher streamId: String) {
        state.withLock { _ = $0.publishers.removeValue(forKey: streamId) }
    }

    func forget(subscriber subscriberId: String) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: subscriberId) }
    }

    /// Whether the server holds the subscription `subscriberId` as far as this client knows.
    func knows(subscriber subscriberId: String) -> Bool {
        state.withLock { $0.subscribers[subscriberId] != nil }
    }

    // MARK: Events

    private func handle(_ event: SessionEvent, sequence: UInt64?) {
        let isHeld = state.withLock { state in
            guard state.heldEvents != nil else { return false }
            state.heldEvents!.append((event, sequence))
            return true
        }
        if isHeld { return }
        if let sequence {
            // An event replayed after a reconnection that already came on the old socket.
            guard state.withLock({ state in
                guard sequence > state.lastEventSeq else { return false }
                state.eventSequenceGaps += Int(sequence - state.lastEventSeq - 1)
                state.lastEventSeq = sequence
                return true
            }) else { return }
        }
        switch event {
        case .connectionCreated(let created):
            state.withLock {
                $0.connections[created.connection.connectionId] = created.connection
                $0.connectionCount += 1
            }
            eventSink.yield(.connectionCreated(created.connection))
        case .connectionDestroyed(let destroyed):
            state.withLock {
                _ = $0.connections.removeValue(forKey: destroyed.connection.connectionId)
                $0.connectionCount -= 1
            }
            eventSink.yield(.connectionDestroyed(destroyed.connection, reason: destroyed.reason))
        case .connectionCountChanged(let change):
            state.withLock { $0.connectionCount = change.connectionCount }
            eventSink.yield(.connectionCountChanged(change.connectionCount))
        case .streamCreated(let created):
            state.withLock { $0.streams[created.stream.streamId] = created.stream }
            eventSink.yield(.streamCreated(created.stream))
        case .streamDestroyed(let destroyed):
            let (publisher, subscribers) = state.withLock { state in
                state.streams.removeValue(forKey: destroyed.stream.streamId)
                return (
                    state.publishers.removeValue(forKey: destroyed.stream.streamId),
                    state.subscribers.values.filter { $0.streamId == destroyed.stream.streamId }
                )
            }
            publisher?.ended(reason: destroyed.reason)
            for subscriber in subscribers { subscriber.ended() }
            eventSink.yield(.streamDestroyed(destroyed.stream, reason: destroyed.reason))
        case .streamPropertyChanged(let change):
            let watching = state.withLock { state in
                state.streams[change.stream.streamId] = change.stream
                return state.subscribers.values.filter { $0.streamId == change.stream.streamId }
            }
            if change.changedProperty == .hasAudio {
                for subscriber in watching { subscriber.streamAudio(isExpected: change.stream.hasAudio) }
            }
            eventSink.yield(.streamPropertyChanged(change))
        case .videoDisabled(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoDisabled(reason: change.reason))
        case .videoEnabled(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoEnabled(reason: change.reason))
        case .videoDisableWarning(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoDisableWarning)
        case .videoLayerChanged(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoLayerChanged(change))
        case .videoDisableWarningLifted(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoDisableWarningLifted)
        case .publisherVideoDisableWarning(let change):
            publisher(change.streamId)?.deliver(.publisherVideoDisableWarning)
        case .publisherVideoDisableWarningLifted(let change):
            publisher(change.streamId)?.deliver(.publisherVideoDisableWarningLifted)
        case .publisherVideoDisabled(let change):
            publisher(change.streamId)?.deliver(.publisherVideoDisabled(reason: change.reason))
        case .publisherVideoEnabled(let change):
            publisher(change.streamId)?.deliver(.publisherVideoEnabled(reason: change.reason))
        case .signal(let delivery):
            eventSink.yield(.signalReceived(type: delivery.type, data: delivery.data, from: delivery.from))
        case .subscriberDestroyed(let ended):
            let (subscriber, streamGoesOn) = state.withLock {
                ($0.subscribers.removeValue(forKey: ended.subscriberId), $0.streams[ended.streamId] != nil)
            }
            guard let subscriber else { break }
            if ended.reason == .mediaFailed, streamGoesOn, options.reconnects {
                Task { await self.resubscribe(subscriber) }
            } else {
                subscriber.ended()
            }
        case .sessionDisconnected(let goodbye):
            state.withLock { $0.serverDisconnectReason = goodbye.reason }
        case .muteForced(let muted):
            publisher(muted.streamId)?.muteForced()
            eventSink.yield(.muteForced(streamId: muted.streamId))
        case .forceMuteChanged(let forceMute):
            state.withLock { $0.forceMute = forceMute }
            eventSink.yield(.forceMuteChanged(forceMute))
        case .activeSpeakerChanged(let change):
            state.withLock { $0.activeSpeakerStreamId = change.streamId }
            eventSink.yield(.activeSpeakerChanged(streamId: change.streamId))
        case .audioLevels(let report):
            eventSink.yield(.audioLevels(report.levels))
        case .archiveStarted(let archive):
            state.withLock { $0.archive = archive }
            eventSink.yield(.archiveStarted(archive))
        case .archiveStopped(let archive):
            state.withLock { if $0.archive?.id == archive.id { $0.archive = nil } }
            eventSink.yield(.archiveStopped(archive))
        }
    }

    private func subscriber(_ id: String) -> Subscriber? { state.withLock { $0.subscribers[id] } }
    private func publisher(_ id: String) -> Publisher? { state.withLock { $0.publishers[id] } }

    /// The WebSocket ended: the session is over, or, when the network dropped it and the server
    /// keeps the connection for a while, reconnect until the server takes it back (publishers and
    /// subscribers go on meanwhile), refuses, or `reconnectTimeout` passes.
    private func channelClosed(_ channel: SignalingChannel) async {
        let (reason, isLeaving, grant) = state.withLock { state in
            state.channel = nil
            return (state.serverDisconnectReason, state.isLeaving, state.reconnection)
        }
        let inCluster = state.withLock { $0.nodeId != nil }
        if !isLeaving, options.reconnects, reason == nil && (grant != nil || inCluster) || reason == .nodeDraining && inCluster {
            state.withLock { $0.status = .reconnecting }
            eventSink.yield(.sessionDidBeginReconnecting)
            switch await recover(resuming: reason == nil ? grant : nil, inCluster: inCluster) {
            case .resumed:
                eventSink.yield(.sessionDidReconnect(connection!))
                return
            case .moved:
                eventSink.yield(.sessionDidMove(connection!))
                return
            case nil:
                break
            }
        }
        let (publishers, subscribers, waiters) = state.withLock { state in
            state.status = reason == nil && !isLeaving ? .failed : .disconnected
            defer {
                state.publishers.removeAll()
                state.subscribers.removeAll()
                state.reconnectionWaiters.removeAll()
            }
            return (Array(state.publishers.values), Array(state.subscribers.values), state.reconnectionWaiters)
        }
        for waiter in waiters { waiter.resume(returning: false) }
        for publisher in publishers { publisher.ended(reason: nil) }
        for subscriber in subscribers { subscriber.ended() }
        eventSink.yield(.sessionDidDisconnect(reason: reason))
        eventSink.finish()
    }

    private enum Recovery {
        case resumed, moved
    }

    /// Tries `reconnect` with `grant` with back-off (250 ms, then every 500 ms, so a network that
    /// returns is noticed within half a second) until it succeeds or the server refuses. In a
    /// cluster, once the node refuses or cannot be reached (drained, lost), it also connects
    /// afresh through `url`, which places the session on a live node, until one of them succeeds.
    private func recover(resuming grant: ReconnectionGrant?, inCluster: Bool) async -> Recovery? {
        let deadline = ContinuousClock.now + options.reconnectTimeout
        var pause = Duration.milliseconds(250)
        var resuming = grant
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.isLeaving }) { return nil }
            var nodeUnreachable = false
            if let grant = resuming {
                do {
                    try await resume(with: grant)
                    return .resumed
                } catch {
                    // The server answered and said no (the grace period ended, the missed events are no
                    // longer kept): asking again will not change its mind.
                    if case .refused = error { resuming = nil }
                    if case .unreachable = error { nodeUnreachable = true }
                }
            }
            if inCluster, resuming == nil || nodeUnreachable {
                if (try? await move()) != nil { return .moved }
            } else if resuming == nil {
                return nil
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(500))
        }
        return nil
    }

    /// Connects afresh through `url`, or the first of `options.alternativeURLs` that answers (in a
    /// cluster: to a live node), as a new connection in the same session, and publishes every stream
    /// again there. Subscriptions end: the streams they received come again under new ids.
    private func move() async throws(SessionError) {
        var opened: (SignalingChannel, ConnectResult)?
        var lastError = SessionError.connectionClosed
        // A move that fails leaves the next `reconnect` aimed at the node the connection is on, not
        // at the last entry it tried: with that entry down, the resume would fail and the next move
        // succeed, making a second connection (and publishing every stream twice) while the first
        // is still held for this client.
        let (nodeURL, entryURL) = state.withLock { ($0.nodeURL, $0.entryURL) }
        defer {
            if opened == nil {
                state.withLock {
                    $0.nodeURL = nodeURL
                    $0.entryURL = entryURL
                }
            }
        }
        for entry in [url] + options.alternativeURLs where opened == nil {
            state.withLock {
                $0.nodeURL = nil
                $0.entryURL = entry
            }
            do {
                opened = try await connectHoldingEvents()
            } catch {
                lastError = error
                guard case .unreachable = error else { throw error }
            }
        }
        guard let (channel, connected) = opened else { throw lastError }
        let (oldConnections, oldStreams, subscribers, publishers) = state.withLock { state in
            defer {
                state.serverDisconnectReason = nil
                state.subscribers.removeAll()
            }
            return (state.connections, state.streams, Array(state.subscribers.values), Array(state.publishers.values))
        }
        for subscriber in subscribers { subscriber.ended() }
        // What changed between the old node's picture and the new node's reply; the events held
        // since the reply follow it in `take`.
        let newConnections = Dictionary(connected.session.connections.map { ($0.connectionId, $0) }) { first, _ in first }
        let newStreams = Dictionary(connected.session.streams.map { ($0.streamId, $0) }) { first, _ in first }
        for (id, stream) in oldStreams where newStreams[id] == nil && !publishers.contains(where: { $0.streamId == id }) {
            eventSink.yield(.streamDestroyed(stream, reason: nil))
        }
        for (id, connection) in oldConnections where newConnections[id] == nil { eventSink.yield(.connectionDestroyed(connection, reason: nil)) }
        for (id, connection) in newConnections where oldConnections[id] == nil && id != connected.connection.connectionId {
            eventSink.yield(.connectionCreated(connection))
        }
        for (id, stream) in newStreams where oldStreams[id] == nil { eventSink.yield(.streamCreated(stream)) }
        take(connected)
        attach(channel)
        for publisher in publishers {
            let sending = await publisher.currentSending()
            var settings = publisher.settings
            settings.publishAudio = sending.audio
            settings.publishVideo = sending.video
            state.withLock { _ = $0.publishers.removeValue(forKey: publisher.streamId) }
            do {
                let (binding, handler) = try await startPublishing(settings)
                handler.onPathChange = { [weak publisher] isUp in publisher?.mediaPath(isUp: isUp) }
                state.withLock { $0.publishers[binding.stream.streamId] = publisher }
                publisher.moved(to: binding)
                start(binding.endpoint.value, downlink: settings.downlinkImpairment, uplink: settings.uplinkImpairment)
            } catch {
                publisher.ended(reason: nil)
            }
        }
    }
}

extension Session.State {
    /// Takes the picture of a `connect` reply: this connection, the others, their streams.
    fileprivate mutating func take(_ connected: ConnectResult) {
        // A new connection numbers its events from the start.
        lastEventSeq = 0
        connection = connected.connection
        capabilities = connected.capabilities
        reconnection = connected.reconnection
        nodeId = connected.nodeId
        iceServers = connected.iceServers ?? []
        forceMute = connected.session.forceMute
        archive = connected.session.archive
        connectionCount = connected.session.connectionCount
        connections = Dictionary(connected.session.connections.map { ($0.connectionId, $0) }) { first, _ in first }
        streams = Dictionary(connected.session.streams.map { ($0.streamId, $0) }) { first, _ in first }
    }
}
