import MediaControl

/// A node's answer to a `CascadeRequest`.
public enum CascadeReply: Codable, Sendable {
    case done
    case plainTransport(PlainTransportParameters)
    case webRTCTransport(WebRTCTransportParameters)
    case ice(ICEParameters)
    case consumer(ConsumerParameters)
    case statistics(RouterStatistics?)
    case leg(TransportID, tracks: [RelayedTrack])
    /// The media plane refused the request.
    case refused(MediaControlError)
}
