/// The control surface of the media plane: everything signaling may ask of it. Implementations hop
/// onto the worker that owns the object and answer asynchronously, so signaling never touches the
/// packet path. The router could run in another process behind this same protocol.
public protocol MediaControl: Sendable {
    /// Media events, for the lifetime of the media plane.
    var events: AsyncStream<MediaEvent> { get }

    /// Creates the media side of one session, pinned to one worker.
    func createRouter() async throws(MediaControlError) -> RouterID
    /// Closes a router and everything in it.
    func closeRouter(_ router: RouterID) async throws(MediaControlError)

    /// Creates a plain SRTP transport for one client: a local UDP port from the configured range.
    /// `toConsume` names the producers the transport is made to receive (empty for a publisher's):
    /// when their audience is large, the transport may go to another worker than the router's home.
    func createPlainTransport(
        router: RouterID, options: PlainTransportOptions, toConsume: [ProducerID]
    ) async throws(MediaControlError) -> PlainTransportParameters
    /// Creates a WebRTC transport (ICE-lite, DTLS-SRTP in the passive role): the worker's shared UDP
    /// port or a port from the configured range, fresh ICE credentials, the daemon's certificate.
    /// `toConsume` as for plain transports.
    func createWebRTCTransport(router: RouterID, toConsume: [ProducerID]) async throws(MediaControlError) -> WebRTCTransportParameters
    /// Creates a recording transport on the router's worker: its consumers forward into `ring` (plain
    /// RTP, as it would leave toward a subscriber before protection) instead of the network. It has no
    /// socket, sends no RTCP, is never shed for overload and runs no audio-fallback policy.
    func createRecordingTransport(router: RouterID, ring: RecordingRing) async throws(MediaControlError) -> TransportID
    /// Gives a WebRTC transport the client's ICE credentials and certificate fingerprint (from its SDP).
    /// A handshake that already ended is checked against the fingerprint now.
    func connectWebRTCTransport(_ transport: TransportID, remote: WebRTCRemoteParameters) async throws(MediaControlError)
    /// ICE restart: new local credentials, and the client's new ones when it already sent them. The
    /// DTLS association and SRTP keys stay.
    func restartICE(_ transport: TransportID, remote: ICEParameters?) async throws(MediaControlError) -> ICEParameters
    /// A test aid, refused unless the configuration enables fault injection: drops `dropShare` (0–1)
    /// of the RTP the transport carries, and caps it at `rateCapBitrate` bits per second as a policer
    /// would (0 lifts the cap). Nil leaves a setting as it is. The transport carries RTP one way, so
    /// the fault is on the subscriber's downlink or the publisher's uplink.
    func setFaultInjection(transport: TransportID, dropShare: Double?, rateCapBitrate: Int?) async throws(MediaControlError)
    /// Closes a transport, its producers and its consumers.
    func closeTransport(_ transport: TransportID) async throws(MediaControlError)

    /// Starts receiving a published track on a transport.
    func produce(transport: TransportID, options: ProducerOptions) async throws(MediaControlError) -> ProducerID
    func closeProducer(_ producer: ProducerID) async throws(MediaControlError)

    /// Starts forwarding a producer to a subscriber's transport, paused for `pauseReasons` if any; of a
    /// simulcast producer, the layers `preference` allows; with the receiver's `payloadTypes` when it
    /// chose them (else the publisher's).
    func consume(
        transport: TransportID, producer: ProducerID, pauseReasons: Set<ConsumerPauseReason>, preference: VideoLayerPreference,
        payloadTypes: ReceiverPayloadTypes?
    ) async throws(MediaControlError) -> ConsumerParameters
    /// Why a new subscriber of `router` receiving `producers` would be refused here for want of
    /// forwarding capacity (`overloaded`), asked before its transport is made; nil when it would be
    /// admitted. In a cluster, such a subscriber goes to another node instead.
    func admissionRefusal(forSubscriberOf router: RouterID, consuming producers: [ProducerID]) async -> MediaControlError?
    /// Changes which layers of a simulcast producer the consumer may receive; ignored for one encoding.
    func setLayerPreference(_ consumer: ConsumerID, _ preference: VideoLayerPreference) async throws(MediaControlError)
    func closeConsumer(_ consumer: ConsumerID) async throws(MediaControlError)

    /// Adds a reason for the consumer not to forward.
    func pauseConsumer(_ consumer: ConsumerID, reason: ConsumerPauseReason) async throws(MediaControlError)
    /// Removes a reason; the consumer forwards again, from a key frame for video, once it has none left.
    func resumeConsumer(_ consumer: ConsumerID, reason: ConsumerPauseReason) async throws(MediaControlError)

    /// Turns the audio-fallback policy of one side of a transport on or off. Off while video is off
    /// for quality restores the video without an event. The subscriber side suspends itself while the
    /// video consumer is paused for a person's choice; the publisher side must be turned off by the
    /// caller while the publisher has its video off.
    func setAudioFallback(transport: TransportID, side: AudioFallbackSide, enabled: Bool) async throws(MediaControlError)

    /// Stops (or restarts) everything a producer sends reaching its consumers, at once and for all of
    /// them: its publisher muted it, or a moderator did. A muted audio producer counts as silence for
    /// the session's speakers.
    func setProducerMuted(_ producer: ProducerID, muted: Bool) async throws(MediaControlError)
    /// Forwards only the `count` loudest audio producers of the router (and its dominant speaker) to
    /// their subscribers; nil forwards every one. A stream is held back or let through only at a
    /// silence, never mid-speech.
    func setForwardLoudest(router: RouterID, count: Int?) async throws(MediaControlError)

    /// A copy of the router's statistics.
    func statistics(router: RouterID) async throws(MediaControlError) -> RouterStatistics

    /// Object counts and traffic totals of the whole media plane.
    func planeStatistics() async -> MediaPlaneStatistics
}

extension MediaControl {
    /// A plain transport placed with its router (a publisher's, or one for a small audience).
    public func createPlainTransport(
        router: RouterID, options: PlainTransportOptions
    ) async throws(MediaControlError) -> PlainTransportParameters {
        try await createPlainTransport(router: router, options: options, toConsume: [])
    }

    /// A WebRTC transport placed with its router.
    public func createWebRTCTransport(router: RouterID) async throws(MediaControlError) -> WebRTCTransportParameters {
        try await createWebRTCTransport(router: router, toConsume: [])
    }

    /// Starts forwarding with no layer preference.
    public func consume(
        transport: TransportID, producer: ProducerID, pauseReasons: Set<ConsumerPauseReason>
    ) async throws(MediaControlError) -> ConsumerParameters {
        try await consume(transport: transport, producer: producer, pauseReasons: pauseReasons, preference: .unconstrained, payloadTypes: nil)
    }

    /// Starts forwarding with the publisher's payload types.
    public func consume(
        transport: TransportID, producer: ProducerID, pauseReasons: Set<ConsumerPauseReason>, preference: VideoLayerPreference
    ) async throws(MediaControlError) -> ConsumerParameters {
        try await consume(transport: transport, producer: producer, pauseReasons: pauseReasons, preference: preference, payloadTypes: nil)
    }
}
