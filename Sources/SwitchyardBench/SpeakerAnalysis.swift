/// Reads a listener's `activeSpeakerChanged` events against the speakers script: when each scripted
/// talker was named, and every change the script did not call for.
struct SpeakerAnalysis {
    /// A talker the script started at `start` (monotonic nanoseconds).
    struct ScriptedTurn: Sendable {
        var talker: String
        var streamId: String
        var start: UInt64
    }

    let changes: [SpeakerChange]
    /// The listener's `audioLevels` reports, which tell when the router first heard a talker speak
    /// apart from when it named them.
    let reports: [SpeakingReport]
    /// Participant labels by stream id, to name events in the report.
    let labels: [String: String]

    /// Each turn of `script` (ordered by start; the last runs until `end`): how long until the
    /// listener heard its talker named, and how many changes named anyone else meanwhile.
    func turns(_ script: [ScriptedTurn], room: String, end: UInt64) -> [BenchReport.SpeakerTurn] {
        script.indices.map { index in
            let turn = script[index]
            let until = index + 1 < script.count ? script[index + 1].start : end
            let heard = changes.filter { $0.at >= turn.start && $0.at < until }
            let named = heard.first { $0.streamId == turn.streamId }
            let speaking = reports.first { $0.at >= turn.start && $0.at < until && $0.speaking.contains(turn.streamId) }
            return BenchReport.SpeakerTurn(
                room: room, talker: turn.talker, seconds: Self.seconds(from: script[0].start, to: turn.start),
                namedAfterMs: named.map { Self.seconds(from: turn.start, to: $0.at) * 1000 },
                speakingReportedAfterMs: speaking.map { Self.seconds(from: turn.start, to: $0.at) * 1000 },
                wrongSwitches: heard.filter { $0.streamId != turn.streamId }.count)
        }
    }

    /// One talker from `start` to `end`: when they were named, and every other change (away from
    /// them, or back) as a false switch, with its time from `start`.
    func steady(_ talker: ScriptedTurn, end: UInt64) -> (namedAfterMs: Double?, falseSwitches: [BenchReport.TimedEvent]) {
        let heard = changes.filter { $0.at >= talker.start && $0.at <= end }
        let named = heard.firstIndex { $0.streamId == talker.streamId }
        let others = heard.indices.filter { $0 != named }.map { index in
            BenchReport.TimedEvent(
                seconds: Self.seconds(from: talker.start, to: heard[index].at),
                event: "activeSpeakerChanged(\(heard[index].streamId.map { labels[$0] ?? $0 } ?? "nobody"))")
        }
        return (named.map { Self.seconds(from: talker.start, to: heard[$0].at) * 1000 }, others)
    }

    private static func seconds(from start: UInt64, to end: UInt64) -> Double { (Double(end) - Double(start)) / 1e9 }
}
