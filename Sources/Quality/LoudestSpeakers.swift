/// Which audio streams a big session forwards when it forwards only the loudest few
/// (`audio.forwardLoudest`): the `count` streams whose recent speech was loudest, plus the dominant
/// speaker. A stream already forwarded ranks `retentionBonus` dB louder than it is, so two streams of
/// about equal loudness do not trade places every evaluation.
public struct LoudestSpeakers<Speaker: Hashable & Sendable>: Sendable {
    /// dB of recent speech loudness a forwarded stream is credited with to keep its place.
    public static var retentionBonus: Double { 3 }

    /// The streams to forward.
    public let forwarded: Set<Speaker>
    /// The speech loudness at which a stream not forwarded would take a place now: the least of the
    /// forwarded streams' (0 while fewer than `count` streams have spoken, so any speech opens).
    public let admissionLoudness: Double

    public init(count: Int, candidates: [SpeakerActivity<Speaker>], dominant: Speaker?, previouslyForwarded: Set<Speaker>) {
        func rank(_ candidate: SpeakerActivity<Speaker>) -> Double {
            candidate.speechLoudness + (previouslyForwarded.contains(candidate.speaker) ? Self.retentionBonus : 0)
        }
        let speaking = candidates.filter { $0.speechLoudness > 0 }.sorted { rank($0) > rank($1) }
        let loudest = speaking.prefix(max(count, 0))
        var forwarded = Set(loudest.map(\.speaker))
        if let dominant, candidates.contains(where: { $0.speaker == dominant }) { forwarded.insert(dominant) }
        self.forwarded = forwarded
        admissionLoudness = loudest.count < count ? 0 : (loudest.last.map(rank) ?? 0)
    }
}
