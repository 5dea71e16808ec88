import Foundation

/// PCM (48 kHz mono) made up for tests and the bench, the same for the same seed: a test tone, a
/// room's background noise, and speech-like talk with natural pauses. Not a voice anyone would
/// mistake for one, but what a level meter hears from a microphone: talk standing 25-35 dB above the
/// room, in phrases of syllables, with pauses in which only the room remains.
public enum SynthesizedAudio {
    static let sampleRate = Double(OpusEncoder.sampleRate)

    /// A 440 Hz tone whose loudness rises and falls once a second (a test publisher's default audio).
    public static func tone(seconds: Int) -> [Int16] {
        var samples: [Int16] = []
        samples.reserveCapacity(seconds * Int(sampleRate))
        var phase = 0.0
        for frameIndex in 0..<(seconds * 50) {
            let envelope = 0.5 + 0.5 * sin(Double(frameIndex) * 2 * .pi / 50)
            for _ in 0..<OpusEncoder.frameSamples {
                samples.append(Int16(8000 * envelope * sin(phase)))
                phase += 2 * .pi * 440 / sampleRate
            }
            phase = phase.truncatingRemainder(dividingBy: 2 * .pi)
        }
        return samples
    }

    /// A 1 kHz beep of 100 ms at the start of every second, silence between: with the flashing
    /// video of `MediaSettings.syncMarks`, what audio / video sync is measured by.
    public static func beeps(seconds: Int) -> [Int16] {
        let perSecond = Int(sampleRate)
        let beepSamples = perSecond / 10
        return (0..<(seconds * perSecond)).map { index in
            let offset = index % perSecond
            return offset < beepSamples ? Int16(12_000 * sin(2 * .pi * 1000 * Double(offset) / sampleRate)) : 0
        }
    }

    /// A room's background noise at about `loudness` dBov (RMS), drifting ±2 dB over ten seconds;
    /// with `knocks`, a knock (a keyboard, a cup put down: about 20 dB louder, fading within 100 ms)
    /// every 2-5 s, far shorter than a word.
    public static func noise(seconds: Double, loudness: Double, knocks: Bool = true, seed: UInt64) -> [Int16] {
        quantize(noiseSignal(seconds: seconds, loudness: loudness, knocks: knocks, seed: seed))
    }

    /// Speech-like talk, about `loudness` dBov (RMS) while voiced: phrases of 0.8-2.2 s of syllables
    /// of 120-280 ms (harmonics of a pitch that glides, each syllable swelling and fading), separated
    /// by natural pauses of 0.25-0.7 s in which only the room's noise (`noiseLoudness`, no knocks)
    /// remains. It starts with a phrase.
    public static func speech(seconds: Double, loudness: Double, noiseLoudness: Double, seed: UInt64) -> [Int16] {
        var random = SeededRandom(seed: seed)
        let count = Int(seconds * sampleRate)
        var voice = [Double](repeating: 0, count: count)
        let pitch = Double.random(in: 100...220, using: &random)
        let fade = Int(0.01 * sampleRate)
        var phase = 0.0
        var position = 0
        while position < count {
            let phraseStart = position
            let phraseEnd = min(count, position + Int(Double.random(in: 0.8...2.2, using: &random) * sampleRate))
            while position < phraseEnd {
                let length = min(phraseEnd - position, Int(Double.random(in: 0.12...0.28, using: &random) * sampleRate))
                let stress = Double.random(in: 0.6...1, using: &random)
                let glide = Double.random(in: -0.15...0.15, using: &random)
                for offset in 0..<length {
                    let progress = Double(offset) / Double(length)
                    let index = position + offset
                    let edge = min(1, Double(min(index - phraseStart, phraseEnd - index)) / Double(fade))
                    phase += 2 * .pi * pitch * (1 + glide * progress) / sampleRate
                    var harmonics = 0.0
                    for harmonic in 1...6 { harmonics += sin(Double(harmonic) * phase) / Double(harmonic) }
                    voice[index] = edge * stress * (0.35 + 0.65 * sin(.pi * progress)) * harmonics
                }
                position += length
            }
            position = phraseEnd + Int(Double.random(in: 0.25...0.7, using: &random) * sampleRate)
        }
        normalize(&voice, toRMS: amplitude(dBov: loudness), over: { $0 != 0 })
        let room = noiseSignal(seconds: seconds, loudness: noiseLoudness, knocks: false, seed: seed &+ 1)
        for index in 0..<count { voice[index] += room[index] }
        return quantize(voice)
    }

    private static func noiseSignal(seconds: Double, loudness: Double, knocks: Bool, seed: UInt64) -> [Double] {
        var random = SeededRandom(seed: seed)
        let count = Int(seconds * sampleRate)
        var signal = [Double](repeating: 0, count: count)
        // Low-passed white noise: a room's hum and hiss is darker than white.
        var lowpassed = 0.0
        for index in 0..<count {
            lowpassed += 0.35 * (Double.random(in: -1...1, using: &random) - lowpassed)
            signal[index] = lowpassed
        }
        normalize(&signal, toRMS: amplitude(dBov: loudness))
        let drift = Double.random(in: 0..<(2 * .pi), using: &random)
        for index in 0..<count {
            signal[index] *= pow(10, 2 * sin(2 * .pi * Double(index) / sampleRate / 10 + drift) / 20)
        }
        guard knocks else { return signal }
        let peak = 3 * amplitude(dBov: loudness + 20)
        var at = Double.random(in: 1...3, using: &random)
        while at < seconds {
            let start = Int(at * sampleRate)
            for offset in 0..<min(Int(0.12 * sampleRate), count - start) {
                let decay = exp(-Double(offset) / (0.03 * sampleRate))
                signal[start + offset] += peak * decay * Double.random(in: -1...1, using: &random)
            }
            at += Double.random(in: 2...5, using: &random)
        }
        return signal
    }

    /// The linear amplitude (of full scale 32767) of a level in dBov.
    private static func amplitude(dBov: Double) -> Double { 32767 * pow(10, dBov / 20) }

    /// Scales `signal` so the samples `counted` selects have `rms`.
    private static func normalize(_ signal: inout [Double], toRMS rms: Double, over counted: (Double) -> Bool = { _ in true }) {
        var sumOfSquares = 0.0
        var count = 0
        for value in signal where counted(value) {
            sumOfSquares += value * value
            count += 1
        }
        guard count > 0, sumOfSquares > 0 else { return }
        let scale = rms / (sumOfSquares / Double(count)).squareRoot()
        for index in signal.indices { signal[index] *= scale }
    }

    private static func quantize(_ signal: [Double]) -> [Int16] {
        signal.map { Int16(max(-32768, min(32767, $0.rounded()))) }
    }
}

/// SplitMix64: a small generator whose output depends only on its seed, so synthesized audio is
/// the same in every run.
private struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
