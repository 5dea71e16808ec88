import SignalingProtocol
import Synchronization

/// One subscription: its media endpoint receives, reports and (optionally) decodes the stream;
/// `events` carries the video-disable events with their reasons.
public final class Subscriber: Sendable {
    public let subscriberId: String
    public let streamId: String
    public let events: AsyncStream<SubscriberEvent>
    private let eventSink: AsyncStream<SubscriberEvent>.Continuation
    private let session: Session
    private let endpoint: LoopBound<MediaEndpoint>
    private let media: LoopBound<SubscriberMedia>
    private let videoState: Mutex<(disabledFor: Set<VideoDisableReason>, subscribesToVideo: Bool, audioExpected: Bool)>
    private let hasEnded = Atomic<Bool>(false)
    /// The local UDP port this subscriber's media uses.
    public let mediaPort: UInt16
    /// Where this subscriber's media comes from (the router's `host:port`); in a cluster that
    /// cascades, possibly another node than the session's.
    public let mediaServer: String

    init(
        session: Session, result: SubscribeResult, subscribesToVideo: Bool, expectsAudio: Bool, endpoint: LoopBound<MediaEndpoint>,
        media: LoopBound<SubscriberMedia>
    ) {
        self.session = session
        subscriberId = result.subscriberId
        streamId = result.streamId
        self.endpoint = endpoint
        mediaPort = endpoint.value.port
        mediaServer = result.transport.map { "\($0.local.host):\($0.local.port)" } ?? ""
        self.media = media
        var disabled: Set<VideoDisableReason> = []
        if !result.videoEnabled, let reason = result.videoDisableReason { disabled.insert(reason) }
        videoState = Mutex((disabled, subscribesToVideo, expectsAudio && result.audio != nil))
        (events, eventSink) = AsyncStream.makeStream(of: SubscriberEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// Whether video should be arriving: no reason to disable it holds and this subscriber wants it.
    public var isVideoExpected: Bool {
        videoState.withLock { $0.disabledFor.isEmpty && $0.subscribesToVideo }
    }

    public func setSubscribeToVideo(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscriberId, subscribeToVideo: enabled)))
        videoState.withLock { $0.subscribesToVideo = enabled }
        updateExpectation()
    }

    public func setSubscribeToAudio(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscriberId, subscribeToAudio: enabled)))
        streamAudio(isExpected: enabled)
    }

    /// Of a scalable-video stream, the largest picture wanted (`preferredResolution`); nil for the best
    /// the network allows.
    public func setPreferredResolution(_ resolution: VideoDimensions?) async throws(SessionError) {
        let update = SubscriberUpdate(subscriberId: subscriberId, preferredResolution: resolution.map { .set($0) } ?? .clear)
        _ = try await session.call(.updateSubscriber(update))
    }

    /// Of a scalable-video stream, the highest frame rate wanted (`preferredFrameRate`); nil for all.
    public func setPreferredFrameRate(_ frameRate: Double?) async throws(SessionError) {
        let update = SubscriberUpdate(subscriberId: subscriberId, preferredFrameRate: frameRate.map { .set($0) } ?? .clear)
        _ = try await session.call(.updateSubscriber(update))
    }

    /// Whether audio should arrive: this subscriber wants it and the publisher sends it.
    func streamAudio(isExpected: Bool) {
        videoState.withLock { $0.audioExpected = isExpected }
        updateExpectation()
    }

    /// The media path broke (no media while some should arrive) or mended.
    func mediaPath(isUp: Bool) {
        eventSink.yield(isUp ? .subscriberDidReconnectToStream : .subscriberDidDisconnectFromStream)
    }

    /// The network as this client measured it: packets, loss, jitter, frames, freezes.
    public func statistics() async -> SubscriberMediaStatistics {
        let media = self.media
        return await session.options.mediaLoop.run { media.value.snapshot }
    }

    /// Latency of every media packet from the publisher's send to this client's receive, since the
    /// subscription started or the last call; the next call starts afresh.
    public func takeLatency() async -> LatencyHistogram {
        let media = self.media
        return await session.options.mediaLoop.run { media.value.takeLatency() }
    }

    /// The statistics, socket counters and (with `takingLatency`) latency of many subscribers, read in
    /// one hop onto each media loop, so that the figures of a loop's subscribers describe one instant.
    public static func snapshot(_ subscribers: [Subscriber], takingLatency: Bool) async -> [SubscriberSnapshot] {
        var results = [SubscriberSnapshot?](repeating: nil, count: subscribers.count)
        let byLoop = Dictionary(grouping: subscribers.indices) { ObjectIdentifier(subscribers[$0].session.options.mediaLoop) }
        for indices in byLoop.values {
            let loop = subscribers[indices[0]].session.options.mediaLoop
            let bound = LoopBoundList(parts: indices.map { (subscribers[$0].media, subscribers[$0].endpoint) })
            let snapshots = await loop.run {
                bound.parts.map { media, endpoint in
                    SubscriberSnapshot(
                        media: media.value.snapshot, endpoint: endpoint.value.counters,
                        latency: takingLatency ? media.value.takeLatency() : nil)
                }
            }
            for (index, snapshot) in zip(indices, snapshots) { results[index] = snapshot }
        }
        return results.compactMap { $0 }
    }

    /// What the socket saw, before SRTP and impairments.
    public func endpointCounters() async -> EndpointCounters {
        let endpoint = self.endpoint
        return await session.options.mediaLoop.run { endpoint.value.counters }
    }

    /// The server's view (`getStats`): per-track counters, the link quality and the RTC stats report.
    public func serverStatistics() async throws(SessionError) -> SubscriberStatistics {
        guard case .getStats(let statistics) = try await session.call(.getStats(SubscriberReference(subscriberId: subscriberId))) else {
            throw .unexpectedReply(method: "getStats")
        }
        return statistics
    }

    /// The W3C-shaped RTC stats report the server keeps for this subscriber.
    public func rtcStatsReport() async throws(SessionError) -> [RTCStatsEntry] {
        try await serverStatistics().rtcStatsReport
    }

    /// Changes the impairments of this subscriber's network from now on.
    public func impair(downlink: ImpairmentSchedule, uplink: ImpairmentSchedule = .clean) {
        let endpoint = self.endpoint
        session.options.mediaLoop.perform { endpoint.value.impair(downlink: downlink, uplink: uplink, now: MonotonicClock.now()) }
    }

    public func unsubscribe() async throws(SessionError) {
        _ = try await session.call(.unsubscribe(SubscriberReference(subscriberId: subscriberId)))
        session.forget(subscriber: subscriberId)
        ended()
    }

    func deliver(_ event: SubscriberEvent) {
        switch event {
        case .subscriberVideoDisabled(let reason): videoState.withLock { _ = $0.disabledFor.insert(reason) }
        case .subscriberVideoEnabled(let reason): videoState.withLock { _ = $0.disabledFor.remove(reason) }
        default: break
        }
        updateExpectation()
        eventSink.yield(event)
    }

    private func updateExpectation() {
        let (video, audio) = videoState.withLock { ($0.disabledFor.isEmpty && $0.subscribesToVideo, $0.audioExpected) }
        let media = self.media
        session.options.mediaLoop.perform {
            media.value.isVideoExpected = video
            media.value.isMediaExpected = video || audio
        }
    }

    func ended() {
        guard !hasEnded.exchange(true, ordering: .acquiringAndReleasing) else { return }
        session.stop(endpoint)
        eventSink.yield(.subscriberDidEnd)
        eventSink.finish()
    }
}

/// One subscriber's figures at one instant.
public struct SubscriberSnapshot: Sendable {
    public var media: SubscriberMediaStatistics
    public var endpoint: EndpointCounters
    /// The latency since the previous take, when asked for.
    public var latency: LatencyHistogram?
}

/// Many subscribers' loop-bound parts, carried onto the loop together.
private struct LoopBoundList: @unchecked Sendable {
    let parts: [(LoopBound<SubscriberMedia>, LoopBound<MediaEndpoint>)]
}
