import MediaControl
import Quality

/// A router's speaker state (`Router+Speakers`).
struct RouterSpeakers {
    var dominant = DominantSpeakerSelector<ProducerID>()
    /// How many of the loudest audio producers are forwarded; nil: every one.
    var forwardLoudest: Int?
    var forwarded: Set<ProducerID> = []
    /// Reused every tick, so the tick does not allocate once it has grown.
    var candidates: [SpeakerActivity<ProducerID>] = []
    var levelsReportedAt: UInt64 = 0
    var reportedLevels: [ProducerAudioLevel] = []
}
