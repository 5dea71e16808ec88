import Foundation

/// The RFC 6464 audio level of one frame of PCM, as libwebrtc computes it for an outgoing packet
/// (`RmsLevel`): the frame's RMS in dBov, negated and clamped to 0 (full scale) ... 127 (silence),
/// with the voice-activity flag set when the frame is louder than `voiceActivityThreshold`.
public struct AudioLevel: Equatable, Sendable {
    /// The level, in -dBov, up to which a frame counts as voice: speech into a microphone sits around
    /// -20 to -30 dBov, a quiet room's noise below -50.
    public static let voiceActivityThreshold: UInt8 = 40

    /// -dBov: 0 is full scale, 127 silence.
    public let level: UInt8
    public let voiceActivity: Bool

    public init(level: UInt8, voiceActivity: Bool) {
        self.level = min(level, 127)
        self.voiceActivity = voiceActivity
    }

    /// The level of `samples` (16-bit PCM): -20·log10(rms / 32767), rounded; 127 for digital silence.
    public init(measuring samples: UnsafeBufferPointer<Int16>) {
        var sumOfSquares = 0.0
        for sample in samples {
            let value = Double(sample)
            sumOfSquares += value * value
        }
        let meanSquare = samples.isEmpty ? 0 : sumOfSquares / Double(samples.count)
        guard meanSquare > 0 else {
            self.init(level: 127, voiceActivity: false)
            return
        }
        let dBov = 10 * log10(meanSquare / (32767.0 * 32767.0))
        let level = UInt8(min(127, max(0, (-dBov).rounded())))
        self.init(level: level, voiceActivity: level <= Self.voiceActivityThreshold)
    }
}
