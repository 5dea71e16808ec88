import SignalingProtocol
import Synchronization

/// One subscription: its media endpoint receives, reports and (optionally) decodes the stream;
/// `events` carries the video-disable events with their reasons. When the server ends the
/// subscription because its media connection failed (in a cluster: the node that carried it went
/// away) while the stream goes on, the session subscribes again and this subscriber follows.
public final class Subscriber: Sendable {
    /// Where the subscription is served now: replaced when the session subscribes again.
    struct Binding: Sendable {
        var subscriberId: String
        var endpoint: LoopBound<MediaEndpoint>
        var media: LoopBound<SubscriberMedia>
        var mediaPort: UInt16
        /// The router's `host:port` this subscription's media comes from.
        var mediaServer: String
    }

    public let streamId: String
    public let events: AsyncStream<SubscriberEvent>
    private let eventSink: AsyncStream<SubscriberEvent>.Continuation
    private let session: Session
    private let binding: Mutex<Binding>
    /// What the subscription was made with, as changed since: what subscribing again asks for.
    private let requested: Mutex<SubscriberSettings>
    private let videoState: Mutex<(disabledFor: Set<VideoDisableReason>, audioExpected: Bool)>
    private let isPathDown = Atomic<Bool>(false)
    private let hasEnded = Atomic<Bool>(false)

    init(session: Session, streamId: String, settings: SubscriberSettings, binding: Binding, result: SubscribeResult, expectsAudio: Bool) {
        self.session = session
        self.streamId = streamId
        self.binding = Mutex(binding)
        requested = Mutex(settings)
        videoState = Mutex((Self.disableReasons(result), expectsAudio && result.audio != nil))
        (events, eventSink) = AsyncStream.makeStream(of: SubscriberEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// The server's id of the subscription now.
    public var subscriberId: String { binding.withLock { $0.subscriberId } }
    /// The local UDP port this subscriber's media uses.
    public var mediaPort: UInt16 { binding.withLock { $0.mediaPort } }
    /// Where this subscriber's media comes from (the router's `host:port`); in a cluster that
    /// cascades, possibly another node than the session's.
    public var mediaServer: String { binding.withLock { $0.mediaServer } }
    /// The settings it subscribed with, and subscribes again with after a failed media connection.
    public var settings: SubscriberSettings { requested.withLock { $0 } }
    var hasEndedAlready: Bool { hasEnded.load(ordering: .acquiring) }
    private var endpoint: LoopBound<MediaEndpoint> { binding.withLock { $0.endpoint } }
    private var media: LoopBound<SubscriberMedia> { binding.withLock { $0.media } }

    private static func disableReasons(_ result: SubscribeResult) -> Set<VideoDisableReason> {
        guard !result.videoEnabled, let reason = result.videoDisableReason else { return [] }
        return [reason]
    }

    /// Whether video should be arriving: no reason to disable it holds and this subscriber wants it.
    public var isVideoExpected: Bool {
        videoState.withLock { $0.disabledFor.isEmpty } && requested.withLock { $0.subscribeToVideo }
    }

    public func setSubscribeToVideo(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscriberId, subscribeToVideo: enabled)))
        requested.withLock { $0.subscribeToVideo = enabled }
        updateExpectation()
    }

    public func setSubscribeToAudio(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscriberId, subscribeToAudio: enabled)))
        requested.withLock { $0.subscribeToAudio = enabled }
        streamAudio(isExpected: enabled)
    }

    /// Of a scalable-video stream, the largest picture wanted (`preferredResolution`); nil for the best
    /// the network allows.
    public func setPreferredResolution(_ resolution: VideoDimensions?) async throws(SessionError) {
        let update = SubscriberUpdate(subscriberId: subscriberId, preferredResolution: resolution.map { .set($0) } ?? .clear)
        _ = try await session.call(.updateSubscriber(update))
        requested.withLock { $0.preferredResolution = resolution }
    }

    /// Of a scalable-video stream, the highest frame rate wanted (`preferredFrameRate`); nil for all.
    public func setPreferredFrameRate(_ frameRate: Double?) async throws(SessionError) {
        let update = SubscriberUpdate(subscriberId: subscriberId, preferredFrameRate: frameRate.map { .set($0) } ?? .clear)
        _ = try await session.call(.updateSubscriber(update))
        requested.withLock { $0.preferredFrameRate = frameRate }
    }

    /// Whether audio should arrive: this subscriber wants it and the publisher sends it.
    func streamAudio(isExpected: Bool) {
        videoState.withLock { $0.audioExpected = isExpected }
        updateExpectation()
    }

    /// The media path broke (no media while some should arrive) or mended; each change is told once,
    /// whether the path's watch or the server's end of the subscription saw it first.
    func mediaPath(isUp: Bool) {
        guard isPathDown.exchange(!isUp, ordering: .acquiringAndReleasing) == isUp else { return }
        eventSink.yield(isUp ? .subscriberDidReconnectToStream : .subscriberDidDisconnectFromStream)
    }

    /// The server ended the subscription while its stream goes on: its media stops here until the
    /// session has subscribed again.
    func mediaConnectionLost() {
        session.stop(endpoint)
        mediaPath(isUp: false)
    }

    /// The session subscribed again: media comes to `newBinding`'s endpoint, whose first packet tells
    /// `subscriberDidReconnectToStream`; video is on or off as the new subscription says.
    func resubscribed(to newBinding: Binding, result: SubscribeResult, expectsAudio: Bool) {
        binding.withLock { $0 = newBinding }
        let reasons = Self.disableReasons(result)
        let before = videoState.withLock { state in
            defer { state = (reasons, expectsAudio && result.audio != nil) }
            return state.disabledFor
        }
        for reason in before.subtracting(reasons) { eventSink.yield(.subscriberVideoEnabled(reason: reason)) }
        for reason in reasons.subtracting(before) { eventSink.yield(.subscriberVideoDisabled(reason: reason)) }
        updateExpectation()
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
        let id = subscriberId
        // Between a failed subscription and the next, the server holds none to end.
        if session.knows(subscriber: id) {
            _ = try await session.call(.unsubscribe(SubscriberReference(subscriberId: id)))
            session.forget(subscriber: id)
        }
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
        let (video, audio) = (isVideoExpected, videoState.withLock { $0.audioExpected })
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
