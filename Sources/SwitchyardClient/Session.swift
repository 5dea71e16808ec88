import Foundation
import SRTP
import SignalingProtocol
import Synchronization

/// A connection to one session on a Switchyard daemon: the reference platform's session object.
/// Connect with a token, watch `events`, publish and subscribe; each publisher and subscriber has its
/// own media endpoint on the options' `MediaLoop`.
public final class Session: Sendable {
    private struct State {
        var channel: SignalingChannel?
        var connection: ConnectionInfo?
        var capabilities: Capabilities?
        var connections: [String: ConnectionInfo] = [:]
        var streams: [String: StreamInfo] = [:]
        var publishers: [String: Publisher] = [:]
        var subscribers: [String: Subscriber] = [:]
        var serverDisconnectReason: SessionDisconnectedReason?
        var isLeaving = false
    }

    public let url: String
    public let sessionId: String
    public let options: SessionOptions
    public let events: AsyncStream<SessionClientEvent>
    private let eventSink: AsyncStream<SessionClientEvent>.Continuation
    private let token: String
    private let state = Mutex(State())

    private init(url: String, sessionId: String, token: String, options: SessionOptions) {
        self.url = url
        self.sessionId = sessionId
        self.token = token
        self.options = options
        (events, eventSink) = AsyncStream.makeStream(of: SessionClientEvent.self, bufferingPolicy: .bufferingNewest(4096))
    }

    /// Opens a WebSocket to `url` (`ws://host:port/v1/ws`) and connects to `sessionId` with `token`.
    public static func connect(url: String, sessionId: String, token: String, options: SessionOptions) async throws(SessionError) -> Session {
        let session = Session(url: url, sessionId: sessionId, token: token, options: options)
        try await session.open()
        return session
    }

    public var connection: ConnectionInfo? { state.withLock { $0.connection } }
    public var capabilities: Capabilities? { state.withLock { $0.capabilities } }
    public var streams: [StreamInfo] { state.withLock { Array($0.streams.values) } }
    public var connections: [ConnectionInfo] { state.withLock { Array($0.connections.values) } }

    private func open() async throws(SessionError) {
        let channel = try await SignalingChannel(url: url, logger: options.logger) { [weak self] event in
            self?.handle(event)
        }
        let result: RequestResult
        do {
            result = try await channel.call(.connect(ConnectParameters(sessionId: sessionId, token: token)), timeout: options.requestTimeout)
        } catch {
            await channel.close()
            throw error
        }
        guard case .connect(let connected) = result else {
            await channel.close()
            throw .unexpectedReply(method: "connect")
        }
        state.withLock { state in
            state.channel = channel
            state.connection = connected.connection
            state.capabilities = connected.capabilities
            state.connections = Dictionary(connected.session.connections.map { ($0.connectionId, $0) }) { first, _ in first }
            state.streams = Dictionary(connected.session.streams.map { ($0.streamId, $0) }) { first, _ in first }
        }
        Task { [weak self] in
            _ = await channel.closed.value
            await self?.channelClosed(channel)
        }
    }

    func call(_ request: ClientRequest) async throws(SessionError) -> RequestResult {
        guard let channel = state.withLock({ $0.channel }) else { throw .connectionClosed }
        return try await channel.call(request, timeout: options.requestTimeout)
    }

    // MARK: Requests

    /// Publishes a stream whose media comes from `settings.media`.
    public func publish(_ settings: PublisherSettings) async throws(SessionError) -> Publisher {
        let endpoint = try makeEndpoint()
        let audio = settings.media.audioFrames.isEmpty ? nil : OutgoingTrack(ssrc: UInt32.random(in: 1...UInt32.max), payloadType: 111)
        let video = settings.media.videoFrames.isEmpty ? nil : OutgoingTrack(ssrc: UInt32.random(in: 1...UInt32.max), payloadType: 96)
        let handler = PublisherMedia(media: settings.media, audio: audio, video: video, reporterSSRC: UInt32.random(in: 1...UInt32.max))
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
            videoDimensions: video == nil ? nil : VideoDimensions(width: settings.media.settings.width, height: settings.media.settings.height),
            audio: audio.map { TrackDescription(codec: .opus, payloadType: $0.payloadType, ssrc: $0.ssrc) },
            video: video.map { TrackDescription(codec: .vp8, payloadType: $0.payloadType, ssrc: $0.ssrc) },
            publishAudio: settings.publishAudio, publishVideo: settings.publishVideo, audioFallback: fallback,
            transport: offer(for: endpoint))
        guard case .publish(let result) = try await call(.publish(parameters)) else { throw .unexpectedReply(method: "publish") }
        try accept(result.transport, on: endpoint)
        let publisher = Publisher(session: self, stream: result.stream, endpoint: LoopBound(value: endpoint), media: LoopBound(value: handler))
        state.withLock { $0.publishers[result.stream.streamId] = publisher }
        start(endpoint, downlink: settings.downlinkImpairment, uplink: settings.uplinkImpairment)
        return publisher
    }

    /// Subscribes to a stream of this session.
    public func subscribe(to streamId: String, settings: SubscriberSettings = SubscriberSettings()) async throws(SessionError) -> Subscriber {
        let endpoint = try makeEndpoint()
        let parameters = SubscribeParameters(
            streamId: streamId, subscribeToAudio: settings.subscribeToAudio, subscribeToVideo: settings.subscribeToVideo,
            transport: offer(for: endpoint))
        guard case .subscribe(let result) = try await call(.subscribe(parameters)) else { throw .unexpectedReply(method: "subscribe") }
        let handler: SubscriberMedia
        do {
            handler = try SubscriberMedia(
                audioSSRC: result.audio?.ssrc, videoSSRC: result.video?.ssrc, reporterSSRC: UInt32.random(in: 1...UInt32.max),
                decodes: settings.decodes)
        } catch {
            throw .media("\(error)")
        }
        handler.isVideoExpected = result.videoEnabled && settings.subscribeToVideo
        endpoint.handler = handler
        try accept(result.transport, on: endpoint)
        let subscriber = Subscriber(
            session: self, result: result, subscribesToVideo: settings.subscribeToVideo, endpoint: LoopBound(value: endpoint),
            media: LoopBound(value: handler))
        state.withLock { $0.subscribers[result.subscriberId] = subscriber }
        start(endpoint, downlink: settings.downlinkImpairment, uplink: settings.uplinkImpairment)
        return subscriber
    }

    /// Sends a signal to one connection, or to every connection when `to` is nil.
    public func signal(type: String, data: String, to connectionId: String? = nil) async throws(SessionError) {
        _ = try await call(.signal(SignalParameters(to: connectionId, type: type, data: data)))
    }

    /// Moderators only: disconnects another connection.
    public func forceDisconnect(connectionId: String) async throws(SessionError) {
        _ = try await call(.forceDisconnect(ConnectionReference(connectionId: connectionId)))
    }

    /// Moderators only: stops another connection's stream.
    public func forceUnpublish(streamId: String) async throws(SessionError) {
        _ = try await call(.forceUnpublish(StreamReference(streamId: streamId)))
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

    // MARK: Media endpoints

    private func makeEndpoint() throws(SessionError) -> MediaEndpoint {
        do {
            return try MediaEndpoint(profile: options.srtpProfile, bindAddress: options.mediaAddress, seed: UInt64.random(in: 0...UInt64.max))
        } catch {
            throw .media(error.description)
        }
    }

    private func offer(for endpoint: MediaEndpoint) -> TransportOffer {
        TransportOffer(
            remote: EndpointAddress(host: options.mediaAddress, port: endpoint.port),
            srtp: SRTPKeying(profile: endpoint.keys.profile.rawValue, key: endpoint.keys.sdesKeyParameter))
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

    private func start(_ endpoint: MediaEndpoint, downlink: ImpairmentSchedule, uplink: ImpairmentSchedule) {
        let loop = options.mediaLoop
        let bound = LoopBound(value: endpoint)
        loop.perform {
            bound.value.impair(downlink: downlink, uplink: uplink, now: MonotonicClock.now())
            loop.add(bound.value)
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

    // MARK: Events

    private func handle(_ event: SessionEvent) {
        switch event {
        case .connectionCreated(let created):
            state.withLock { $0.connections[created.connection.connectionId] = created.connection }
            eventSink.yield(.connectionCreated(created.connection))
        case .connectionDestroyed(let destroyed):
            state.withLock { _ = $0.connections.removeValue(forKey: destroyed.connection.connectionId) }
            eventSink.yield(.connectionDestroyed(destroyed.connection, reason: destroyed.reason))
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
            state.withLock { $0.streams[change.stream.streamId] = change.stream }
            eventSink.yield(.streamPropertyChanged(change))
        case .videoDisabled(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoDisabled(reason: change.reason))
        case .videoEnabled(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoEnabled(reason: change.reason))
        case .videoDisableWarning(let change):
            subscriber(change.subscriberId)?.deliver(.subscriberVideoDisableWarning)
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
            if let subscriber = state.withLock({ $0.subscribers.removeValue(forKey: ended.subscriberId) }) { subscriber.ended() }
        case .sessionDisconnected(let goodbye):
            state.withLock { $0.serverDisconnectReason = goodbye.reason }
        }
    }

    private func subscriber(_ id: String) -> Subscriber? { state.withLock { $0.subscribers[id] } }
    private func publisher(_ id: String) -> Publisher? { state.withLock { $0.publishers[id] } }

    /// The WebSocket ended: the session is over, or, when the network dropped it, reconnect until the
    /// server answers (or refuses) or `reconnectTimeout` passes.
    private func channelClosed(_ channel: SignalingChannel) async {
        let (publishers, subscribers, reason, isLeaving) = state.withLock { state in
            defer {
                state.publishers.removeAll()
                state.subscribers.removeAll()
                state.channel = nil
            }
            return (Array(state.publishers.values), Array(state.subscribers.values), state.serverDisconnectReason, state.isLeaving)
        }
        for publisher in publishers { publisher.ended(reason: nil) }
        for subscriber in subscribers { subscriber.ended() }
        if reason == nil, !isLeaving, options.reconnects {
            eventSink.yield(.sessionDidBeginReconnecting)
            if let connection = await reconnect() {
                eventSink.yield(.sessionDidReconnect(connection))
                return
            }
        }
        eventSink.yield(.sessionDidDisconnect(reason: reason))
        eventSink.finish()
    }

    private func reconnect() async -> ConnectionInfo? {
        let deadline = ContinuousClock.now + options.reconnectTimeout
        var pause = Duration.milliseconds(250)
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.isLeaving }) { return nil }
            do {
                try await open()
                return connection
            } catch {
                // The server answered and said no (an expired token, a session at its limit): asking
                // again will not change its mind.
                if case .refused = error { return nil }
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(4))
        }
        return nil
    }
}
