/// What the audio-fallback policy asks its caller to do. The caller performs it: tells the person,
/// stops or restarts the video, starts or stops probing.
public enum AudioFallbackAction: String, Equatable, Sendable {
    /// Quality degraded; video will go off if it degrades further.
    case warn
    /// A warning passed without video going off.
    case liftWarning
    /// Stop the video (audio goes on) and start probing the path at the rate the lowest video needs.
    case disableVideo
    /// The probed path carried video long enough: stop probing, restart video from a key frame.
    case enableVideo
}
