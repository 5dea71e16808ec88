import Foundation

/// What one audio stream's RFC 6464 levels say about it, read without decoding: how loud it is, and
/// whether, and how much, it is speaking.
///
/// A packet counts as speech when it stands out from the stream's own noise floor: a microphone in a
/// noisy room sends a steady level that must not read as talking, however loud the room. The floor
/// follows the quietest recent level down at once and up slowly (`floorRisePerSecond`), so a pause
/// between words pulls it back under a talker who has been speaking for a while.
///
/// Activity is kept on two time scales (exponential averages of speech 1 / not speech 0 per packet):
/// `shortActivity` (`shortTimeConstant`) says whether the stream is talking now, `longActivity`
/// (`longTimeConstant`) whether it has been talking for a while. Both decay while no packet arrives
/// (Opus DTX sends one every 400 ms in silence), so they are read at a time, `now`.
public struct AudioLevelMeter: Equatable, Sendable {
    /// dB above the noise floor at which a packet counts as speech.
    public static let speechMargin = 12.0
    /// The least loudness (dB above -127 dBov) that counts as speech: below it (under -80 dBov) is
    /// silence whatever the floor.
    public static let minimumSpeechLoudness = 47.0
    /// How fast the noise floor rises toward a steady level, in dB per second.
    public static let floorRisePerSecond = 1.0
    /// Nanoseconds over which `shortActivity` averages.
    public static let shortTimeConstant: UInt64 = 200_000_000
    /// Nanoseconds over which `longActivity` and `speechLoudness` average.
    public static let longTimeConstant: UInt64 = 2_000_000_000
    /// Nanoseconds over which the displayed level rises, and over which it falls.
    public static let levelAttackTimeConstant: UInt64 = 50_000_000
    public static let levelReleaseTimeConstant: UInt64 = 300_000_000
    /// Nanoseconds after a packet during which the displayed level holds.
    public static let levelHoldTime: UInt64 = 100_000_000

    private var noiseFloor: Double?
    private var shortAverage = 0.0
    private var longAverage = 0.0
    private var loudnessAverage = 0.0
    private var level = 0.0
    private var updatedAt: UInt64?
    /// Whether the newest packet counted as speech.
    public private(set) var lastPacketWasSpeech = false

    public init() {}

    /// Records one packet's level, in -dBov (0 loudest, 127 silence), arriving at `now`.
    public mutating func record(level dBov: UInt8, now: UInt64) {
        let loudness = 127 - Double(min(dBov, 127))
        let elapsed = decay(to: now)
        let floor = noiseFloor.map { min(loudness, $0 + Self.floorRisePerSecond * Double(elapsed) / 1e9) } ?? loudness
        noiseFloor = floor
        let isSpeech = loudness >= Self.minimumSpeechLoudness && loudness >= floor + Self.speechMargin
        lastPacketWasSpeech = isSpeech
        let speech = isSpeech ? 1.0 : 0.0
        shortAverage += (speech - shortAverage) * Self.weight(elapsed, Self.shortTimeConstant)
        longAverage += (speech - longAverage) * Self.weight(elapsed, Self.longTimeConstant)
        loudnessAverage += ((isSpeech ? loudness : 0) - loudnessAverage) * Self.weight(elapsed, Self.longTimeConstant)
        let levelConstant = loudness > level ? Self.levelAttackTimeConstant : Self.levelReleaseTimeConstant
        level += (loudness - level) * Self.weight(elapsed, levelConstant)
    }

    /// Forgets the stream's speech, as when it is muted: it reads as silence until it speaks again.
    public mutating func silence() {
        shortAverage = 0
        longAverage = 0
        loudnessAverage = 0
        level = 0
        lastPacketWasSpeech = false
    }

    /// 0...1: how much of the last fraction of a second was speech.
    public func shortActivity(now: UInt64) -> Double { shortAverage * decayFactor(now: now, Self.shortTimeConstant) }

    /// 0...1: how much of the last few seconds was speech.
    public func longActivity(now: UInt64) -> Double { longAverage * decayFactor(now: now, Self.longTimeConstant) }

    /// How loud the stream's recent speech was: the long average of the loudness of speech packets
    /// (silence counts as 0), in dB above -127 dBov. What "loudest" ranks streams by.
    public func speechLoudness(now: UInt64) -> Double { loudnessAverage * decayFactor(now: now, Self.longTimeConstant) }

    /// The smoothed level as a linear amplitude, 0 (silence) ... 1 (0 dBov), the unit of WebRTC's
    /// `audioLevel` statistic.
    public func amplitude(now: UInt64) -> Double {
        // The level falls only once packets are late (DTX, a stopped stream), not between two of them.
        let smoothed = level * decayFactor(now: now > Self.levelHoldTime ? now - Self.levelHoldTime : 0, Self.levelReleaseTimeConstant)
        guard smoothed > 0 else { return 0 }
        return pow(10, -(127 - smoothed) / 20)
    }

    /// Decays every average to `now` for the time since the last packet; returns that time.
    private mutating func decay(to now: UInt64) -> UInt64 {
        guard let updatedAt, now > updatedAt else {
            if updatedAt == nil { updatedAt = now }
            return 0
        }
        let elapsed = now - updatedAt
        self.updatedAt = now
        return elapsed
    }

    /// The share a new sample takes after `elapsed` nanoseconds, for an average over `timeConstant`.
    @inline(__always)
    private static func weight(_ elapsed: UInt64, _ timeConstant: UInt64) -> Double {
        1 - exp(-Double(elapsed) / Double(timeConstant))
    }

    /// How much of a value is left at `now` after no packet since the last one.
    private func decayFactor(now: UInt64, _ timeConstant: UInt64) -> Double {
        guard let updatedAt, now > updatedAt else { return 1 }
        return 1 - Self.weight(now - updatedAt, timeConstant)
    }
}
