import SignalingProtocol
import Synchronization

/// One published stream: its media endpoint sends the encoded loop; `events` carries the
/// publisher-side audio-fallback events. In a cluster, a session that moves to another node
/// publishes the stream again there, and this publisher follows (`streamMoved`).
public final class Publisher: Sendable {
    /// Where the stream is published now: replaced when the session moves to another node.
    struct Binding: Sendable {
        var stream: StreamInfo
        var endpoint: LoopBound<MediaEndpoint>
        var media: LoopBound<PublisherMedia>
        var mediaPort: UInt16
    }

    public let events: AsyncStream<PublisherEvent>
    private let eventSink: AsyncStream<PublisherEvent>.Continuation
    private let session: Session
    /// What the stream was published with, to publish it again on another node.
    let settings: PublisherSettings
    private let binding: Mutex<Binding>
    private let hasEnded = Atomic<Bool>(false)

    init(session: Session, settings: PublisherSettings, binding: Binding) {
        self.session = session
        self.settings = settings
        self.binding = Mutex(binding)
        (events, eventSink) = AsyncStream.makeStream(of: PublisherEvent.self, bufferingPolicy: .bufferingNewest(1024))
    }

    public var stream: StreamInfo { binding.withLock { $0.stream } }
    public var streamId: String { stream.streamId }
    /// The local UDP port this publisher's media uses.
    public var mediaPort: UInt16 { binding.withLock { $0.mediaPort } }
    private var endpoint: LoopBound<MediaEndpoint> { binding.withLock { $0.endpoint } }
    private var media: LoopBound<PublisherMedia> { binding.withLock { $0.media } }

    /// Turns video on or off: tells the server (subscribers see `videoDisabled(publisherPropertyChanged)`)
    /// and stops or restarts sending it.
    public func setPublishVideo(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateStream(StreamUpdate(streamId: streamId, publishVideo: enabled)))
        let media = self.media
        session.options.mediaLoop.perform { media.value.sendsVideo = enabled }
    }

    /// Stops or restarts sending one simulcast layer (0 is the lowest) without telling the server, as
    /// a browser's encoder drops its top layer when its CPU or uplink cannot keep up; a restarted
    /// layer starts from a key frame. Layers that do not exist are ignored.
    public func setSendsVideoLayer(_ layer: Int, _ sends: Bool) {
        let media = self.media
        session.options.mediaLoop.perform {
            guard media.value.videoEncodings.indices.contains(layer) else { return }
            let encoding = media.value.videoEncodings[layer]
            if sends, !encoding.isSending { encoding.keyFrameRequested = true }
            encoding.isSending = sends
        }
    }

    public func setPublishAudio(_ enabled: Bool) async throws(SessionError) {
        _ = try await session.call(.updateStream(StreamUpdate(streamId: streamId, publishAudio: enabled)))
        let media = self.media
        session.options.mediaLoop.perform { media.value.sendsAudio = enabled }
    }

    /// From its next 20 ms frame on, the audio track plays `audio`'s loop from the start, each packet
    /// with its frame's level, as a microphone hears someone start or stop talking. Ignored when the
    /// stream has no audio track; while muted the loop goes on unheard.
    public func play(_ audio: EncodedAudio) {
        let media = self.media
        session.options.mediaLoop.perform { media.value.play(audio) }
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

    /// Whether audio and video are on now, to publish the stream again as it is.
    func currentSending() async -> (audio: Bool, video: Bool) {
        let media = self.media
        return await session.options.mediaLoop.run { (media.value.sendsAudio, media.value.sendsVideo) }
    }

    /// The session moved to another node and published the stream again there.
    func moved(to newBinding: Binding) {
        let old = binding.withLock { binding in
            defer { binding = newBinding }
            return binding.endpoint
        }
        session.stop(old)
        eventSink.yield(.streamMoved(newBinding.stream))
    }

    /// A moderator muted the stream: the server forwards none of its audio any more, so none is sent.
    func muteForced() {
        let media = self.media
        session.options.mediaLoop.perform { media.value.sendsAudio = false }
        eventSink.yield(.muteForced)
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
