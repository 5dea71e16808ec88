import Quality

/// Scripted talkers for the speaker tests: each stream's RFC 6464 level for every 20 ms packet,
/// fed to its `AudioLevelMeter`, with the dominant speaker evaluated after every packet interval as
/// the router's 20 ms tick does.
struct SpeakerScript {
    static let packetInterval: UInt64 = 20_000_000
    static let millisecond: UInt64 = 1_000_000

    /// A level in -dBov (0 loudest, 127 silence) at a time in milliseconds, or nil for no packet.
    typealias Voice = @Sendable (_ milliseconds: UInt64) -> UInt8?

    var meters: [String: AudioLevelMeter] = [:]
    var selector = DominantSpeakerSelector<String>()
    /// Every change: when (ms) and to whom.
    var changes: [(milliseconds: UInt64, speaker: String?)] = []
    var muted: Set<String> = []
    private(set) var milliseconds: UInt64 = 0

    /// Runs every voice for `duration` milliseconds from where the script stands.
    mutating func run(_ voices: [String: Voice], for duration: UInt64) {
        let end = milliseconds + duration
        while milliseconds < end {
            let now = milliseconds * Self.millisecond + 1
            for (name, voice) in voices where !muted.contains(name) {
                guard let level = voice(milliseconds) else { continue }
                meters[name, default: AudioLevelMeter()].record(level: level, now: now)
            }
            let candidates = meters.filter { !muted.contains($0.key) }.map { SpeakerActivity(speaker: $0.key, meter: $0.value, now: now) }
            if let change = selector.evaluate(candidates) { changes.append((milliseconds, change)) }
            milliseconds += Self.packetInterval / Self.millisecond
        }
    }

    /// Speech: words of 250–400 ms at -25 to -40 dBov with 80–150 ms gaps at the room's level, a fixed
    /// pattern so the tests are deterministic.
    static func speech(startingAt start: UInt64, room: UInt8 = 75) -> Voice {
        { milliseconds in
            guard milliseconds >= start else { return room }
            let position = (milliseconds - start) % 470
            guard position < 360 else { return room }
            return UInt8(25 + (milliseconds / 20) % 16)
        }
    }

    /// A room's steady noise at about `level` -dBov, wobbling by ±3 dB.
    static func noise(_ level: UInt8 = 70) -> Voice {
        { milliseconds in UInt8(Int(level) + Int((milliseconds / 20) % 7) - 3) }
    }

    /// Quiet, as a silent microphone's packets say.
    static let silence: Voice = { _ in 127 }
}
