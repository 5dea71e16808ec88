/// Chooses a session's dominant speaker from its audio streams' `AudioLevelMeter`s, with hysteresis
/// on two time scales, in the spirit of Volfin & Cohen's dominant-speaker identification (which
/// compares speech activity over immediate, medium and long windows) but with two windows and three
/// thresholds that can be stated and tested:
///
/// - A stream takes a free floor (no dominant speaker, or one silent for about half a second:
///   `shortActivity` under `quietActivity`) once it has spoken for about 200 ms (`shortActivity` at
///   `takeoverActivity`). A click or a cough shorter than that never takes the floor.
/// - While the dominant speaker talks, another stream takes the floor only when it has spoken
///   clearly more over the last seconds (`longActivity` ahead by `overtakeMargin`): talking over
///   someone, laughing or coughing for a second does not, a new speaker who keeps talking while the
///   old one trails off does.
/// - A muted stream is not a candidate (the caller leaves it out); a dominant speaker who is muted or
///   leaves loses the floor at once.
/// - The floor stays with the last speaker through silence: the choice changes only to someone.
public struct DominantSpeakerSelector<Speaker: Hashable & Sendable>: Sendable {
    /// Short activity a stream needs to take the floor: about 180 ms of continuous speech.
    public static var takeoverActivity: Double { 0.6 }
    /// Short activity under which the dominant speaker counts as silent: about 460 ms after it stops.
    public static var quietActivity: Double { 0.1 }
    /// How much more long activity a stream needs to take the floor from a speaker still talking.
    public static var overtakeMargin: Double { 0.25 }

    public private(set) var dominant: Speaker?

    public init() {}

    /// Looks at the candidates' activity (every unmuted stream) and returns the new dominant speaker
    /// when it changed (`.some(nil)` when the dominant speaker left or was muted and nobody speaks).
    public mutating func evaluate(_ candidates: [SpeakerActivity<Speaker>]) -> Speaker?? {
        let current = dominant.flatMap { speaker in candidates.first { $0.speaker == speaker } }
        let challenger = candidates.filter { $0.speaker != dominant && $0.shortActivity >= Self.takeoverActivity }
            .max { ($0.longActivity, $0.shortActivity) < ($1.longActivity, $1.shortActivity) }
        let chosen: Speaker?
        if let current {
            if current.shortActivity < Self.quietActivity {
                chosen = challenger?.speaker ?? current.speaker
            } else if let challenger, challenger.longActivity >= current.longActivity + Self.overtakeMargin {
                chosen = challenger.speaker
            } else {
                chosen = current.speaker
            }
        } else {
            chosen = challenger?.speaker
        }
        guard chosen != dominant else { return nil }
        dominant = chosen
        return .some(chosen)
    }
}

/// One stream's activity, read from its `AudioLevelMeter` at one time.
public struct SpeakerActivity<Speaker: Hashable & Sendable>: Sendable {
    public var speaker: Speaker
    public var shortActivity: Double
    public var longActivity: Double
    /// Recent speech loudness, dB above -127 dBov (`AudioLevelMeter.speechLoudness`).
    public var speechLoudness: Double

    public init(speaker: Speaker, shortActivity: Double, longActivity: Double, speechLoudness: Double) {
        self.speaker = speaker
        self.shortActivity = shortActivity
        self.longActivity = longActivity
        self.speechLoudness = speechLoudness
    }

    public init(speaker: Speaker, meter: AudioLevelMeter, now: UInt64) {
        self.init(
            speaker: speaker, shortActivity: meter.shortActivity(now: now), longActivity: meter.longActivity(now: now),
            speechLoudness: meter.speechLoudness(now: now))
    }
}
