/// Which side of a stream the audio-fallback policy watches on a transport.
public enum AudioFallbackSide: String, Hashable, Sendable, Codable {
    /// The subscriber's downlink: what the router sends it, as its receiver reports describe.
    case subscriber
    /// The publisher's uplink: what the router receives from it.
    case publisher
}

/// A step of the audio-fallback policy that the person hears about.
public enum AudioFallbackTransition: String, Hashable, Sendable, Codable {
    /// Quality degraded; video goes off if it degrades further.
    case warning
    /// A warning passed without video going off.
    case warningLifted
    /// Video is off for quality; audio goes on.
    case videoDisabled
    /// The path carried video again; video restarts from a key frame.
    case videoEnabled
}
