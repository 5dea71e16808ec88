import MediaControl
import Signaling

/// What one node asks of another's media plane to carry a session past its node (cascading), sent
/// as JSON to `POST /v1/cluster/media` with a REST token of the cluster's shared key.
///
/// The session's node (the origin) asks an edge node for a subscriber's transport and passes on
/// every later request about it; the edge asks the origin for the relay leg that brings it each
/// published track once, and sends back the media events of what it serves for the origin.
public enum CascadeRequest: Codable, Sendable {
    // MARK: Origin to edge: one subscriber's transport and consumers, served on the edge.

    /// A transport for a subscriber of the origin's `router`, made to receive its `producers`: plain
    /// with `plain`'s keying, WebRTC when it is nil.
    case openTransport(origin: ClusterNodeAddress, router: RouterID, producers: [ProducerID], plain: PlainTransportOptions?)
    case connectWebRTCTransport(TransportID, WebRTCRemoteParameters)
    case restartICE(TransportID, ICEParameters?)
    case setFaultInjection(TransportID, dropShare: Double?, rateCapBitrate: Int?)
    case closeTransport(TransportID)
    /// `producer` is the origin's id; the edge consumes its relayed copy.
    case consume(
        TransportID, producer: ProducerID, pauseReasons: Set<ConsumerPauseReason>, preference: VideoLayerPreference,
        payloadTypes: ReceiverPayloadTypes?)
    case setLayerPreference(ConsumerID, VideoLayerPreference)
    case closeConsumer(ConsumerID)
    case pauseConsumer(ConsumerID, ConsumerPauseReason)
    case resumeConsumer(ConsumerID, ConsumerPauseReason)
    case setAudioFallback(TransportID, side: AudioFallbackSide, enabled: Bool)
    /// What the edge serves for the origin's `router`: its subscribers' transports and consumers.
    case statistics(origin: String, router: RouterID)
    /// The origin's router closed: everything the edge serves for it goes.
    case closeRouter(origin: String, router: RouterID)
    /// A test aid, refused unless `media.faultInjection` is on: drops `dropShare` of what every relay
    /// leg into this node carries, so its NACKs upstream are seen to repair it.
    case relayFault(dropShare: Double)

    // MARK: Edge to origin: the relay leg, and the events of what the edge serves.

    /// Consumers of `producers` on a leg toward the edge's `ingress`: a new plain transport on
    /// `router` protected with `legKey` and receiving the edge's RTCP under `edgeKey`, or the
    /// existing `leg` when the edge already has one for this router.
    case openLeg(
        router: RouterID, producers: [ProducerID], edge: String, ingress: TransportAddress, legKey: SRTPParameters, edgeKey: SRTPParameters,
        leg: TransportID?)
    case closeLeg(TransportID)
    /// Media events of transports and consumers the edge serves for the origin, with the edge's ids.
    case events(edge: String, [MediaEvent])
}
