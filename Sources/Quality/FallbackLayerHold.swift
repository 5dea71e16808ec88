/// What the audio-fallback ladder holds a simulcast subscriber to, above what its preference and its
/// budget allow: after a warning absorbed by stepping down, or right after video came back, the
/// lowest layer; after video came back from a quick re-disable, anything but the top layer, so the
/// stream climbs as the estimate allows yet full quality does not flap with the link.
public enum FallbackLayerHold: Equatable, Sendable {
    case none
    case lowest
    case belowTop

    /// The highest layer allowed, given the layer the subscriber would receive at full quality.
    func ceiling(fullQuality: Int) -> Int {
        switch self {
        case .none: fullQuality
        case .lowest: 0
        case .belowTop: max(0, fullQuality - 1)
        }
    }
}
