import SignalingProtocol
import Synchronization

/// One published stream: its media endpoint sends the encoded loop; `events` carries the
/// publisher-side audio-fallback events.
public final class Publisher: Sendable {
    public let stream: StreamInfo
    public let events: AsyncStream<PublisherEvent>
    private let eventSink: AsyncStream<PublisherEvent>.Continuation
    private let session: Session
    private let endpoint: LoopBound<MediaEndpoint>
    private let media: LoopBound<PublisherMedia>
    private let hasEnded = Atomic<Bool>(false)
    /// The local UDP port this publisher's media uses.
    public let mediaPort: UInt16

    init(session: Session, stream: StreamInfo, endpoint: LoopBound<MediaEndpoint>, media: LoopBound<PublisherMedia>) {
        self.session = session
        self.stream = stream
        self.endpoint = endpoint
        mediaPort = endpoint.value.port
        self.media = media
        (events, eventSink) = AsyncStream.makeStream(of: PublisherEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    public var streamId: String { stream.streamId }

    /// Turns video on or off: tells the server (subscribers see `videoDisabled(publisherPropertyChanged)`)
    /// and stops or restarts sending it.
    public func setPublishVideo(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateStream(StreamUpdate(streamId: streamId, publishVideo: enabled)))
        let media = self.media
        session.options.mediaLoop.perform { media.value.sendsVideo = enabled }
    }

    public func setPublishAudio(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateStream(StreamUpdate(streamId: streamId, publishAudio: enabled)))
        let media = self.media
        session.options.mediaLoop.perform { media.value.sendsAudio = enabled }
    }

    /// What this client sent and heard back, measured here.
    public func statistics() async -> PublisherMediaStatistics {
        let media = self.media
        return await session.options.mediaLoop.run { media.value.snapshot }
    }

    /// The server's view of this stream (`getPublisherStats`): what it received and the uplink quality.
    public func serverStatistics() async throws(SessionError) -> PublisherStatistics {
        guard case .getPublisherStats(let statistics) = try await session.call(.getPublisherStats(StreamReference(streamId: streamId))) else {
            throw .unexpectedReply(method: "getPublisherStats")
        }
        return statistics
    }

    /// What the socket saw, before SRTP.
    public func endpointCounters() async -> EndpointCounters {
        let endpoint = self.endpoint
        return await session.options.mediaLoop.run { endpoint.value.counters }
    }

    /// Changes the impairments of this publisher's network from now on.
    public func impair(uplink: ImpairmentSchedule, downlink: ImpairmentSchedule = .clean) {
        let endpoint = self.endpoint
        session.options.mediaLoop.perform { endpoint.value.impair(downlink: downlink, uplink: uplink, now: MonotonicClock.now()) }
    }

    public func unpublish() async throws(SessionError) {
        _ = try await session.call(.unpublish(StreamReference(streamId: streamId)))
        session.forget(publisher: streamId)
        ended(reason: .clientDisconnected)
    }

    func deliver(_ event: PublisherEvent) {
        eventSink.yield(event)
    }

    /// The router stopped or started receiving this publisher's media again.
    func mediaPath(isUp: Bool) {
        eventSink.yield(isUp ? .publisherDidReconnect : .publisherDidDisconnect)
    }

    func ended(reason: StreamDestroyedReason?) {
        guard !hasEnded.exchange(true, ordering: .acquiringAndReleasing) else { return }
        session.stop(endpoint)
        eventSink.yield(.streamDestroyed(reason: reason))
        eventSink.finish()
    }
}
