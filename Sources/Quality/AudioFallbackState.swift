/// Where one link's audio-fallback policy stands.
public enum AudioFallbackState: String, Equatable, Sendable {
    /// Video flows; quality is fine or not yet bad for long enough.
    case videoOn
    /// The person was warned; video still flows.
    case warned
    /// Video is off for quality; the path is being probed.
    case videoOff
    /// Somebody's choice has the video off (or there is none): the policy watches nothing.
    case suspended
}
