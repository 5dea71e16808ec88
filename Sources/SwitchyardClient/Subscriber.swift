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
    private let videoState: Mutex<(disabledFor: Set<VideoDisableReason>, subscribesToVideo: Bool)>
    private let hasEnded = Atomic<Bool>(false)
    /// The local UDP port this subscriber's media uses.
    public let mediaPort: UInt16

    init(session: Session, result: SubscribeResult, subscribesToVideo: Bool, endpoint: LoopBound<MediaEndpoint>, media: LoopBound<SubscriberMedia>) {
        self.session = session
        subscriberId = result.subscriberId
        streamId = result.streamId
        self.endpoint = endpoint
        mediaPort = endpoint.value.port
        self.media = media
        var disabled: Set<VideoDisableReason> = []
        if !result.videoEnabled, let reason = result.videoDisableReason { disabled.insert(reason) }
        videoState = Mutex((disabled, subscribesToVideo))
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
        let expected = isVideoExpected
        let media = self.media
        session.options.mediaLoop.perform { media.value.isVideoExpected = expected }
    }

    func ended() {
        guard !hasEnded.exchange(true, ordering: .acquiringAndReleasing) else { return }
        session.stop(endpoint)
        eventSink.yield(.subscriberDidDisconnectFromStream)
        eventSink.finish()
    }
}
