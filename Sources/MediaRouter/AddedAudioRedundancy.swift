import Quality

/// When the router repeats earlier Opus frames itself (RFC 2198) toward a subscriber that takes RED
/// from a publisher that sends plain Opus (docs/red.md): while the subscriber's downlink loses at
/// least `lossThreshold` of its packets.
///
/// The bandwidth estimate does not gate it: under random loss every loss-based estimate sits at what
/// arrives, so a headroom test would withhold RED exactly where it helps. One repeated frame costs
/// about one more audio stream (some 40 kbps), which on a link too small for it the audio-fallback
/// ladder pays for with video first; with video off, the probe sends that much less (`ProbePacer`).
public struct AddedAudioRedundancy: Equatable, Sendable {
    /// Earlier frames repeated in each packet, 0 (never), 1 or 2.
    public var frames: Int
    /// The downlink's smoothed loss fraction (0-1) from which frames are added.
    public var lossThreshold: Double

    public init(frames: Int = 1, lossThreshold: Double = 0.03) {
        self.frames = frames
        self.lossThreshold = lossThreshold
    }

    /// The frames to add toward a downlink of `quality`.
    func frames(toward quality: LinkQuality) -> Int {
        frames > 0 && quality.loss >= lossThreshold ? frames : 0
    }
}
