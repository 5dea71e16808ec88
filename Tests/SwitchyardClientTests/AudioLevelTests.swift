import Foundation
import Testing

@testable import SwitchyardClient

/// The RFC 6464 level a publisher puts on each audio packet, and the synthesized audio it is
/// measured from.
@Suite struct AudioLevelTests {
    private func level(of samples: [Int16]) -> AudioLevel {
        samples.withUnsafeBufferPointer { AudioLevel(measuring: $0) }
    }

    /// 20 ms of a 1 kHz sine (20 whole periods) of this peak amplitude.
    private func sine(peak: Double) -> [Int16] {
        (0..<OpusEncoder.frameSamples).map { Int16((peak * sin(2 * .pi * 1000 * Double($0) / 48_000)).rounded()) }
    }

    /// 20 ms frames of `pcm`.
    private func frames(_ pcm: [Int16]) -> [[Int16]] {
        stride(from: 0, to: pcm.count - OpusEncoder.frameSamples + 1, by: OpusEncoder.frameSamples).map {
            Array(pcm[$0..<($0 + OpusEncoder.frameSamples)])
        }
    }

    @Test func theLevelIsTheFramesRMSInMinusDBovRoundedAsLibwebrtcComputesIt() {
        // A full-scale sine's RMS is 3.01 dB under full scale.
        #expect(level(of: sine(peak: 32767)) == AudioLevel(level: 3, voiceActivity: true))
        #expect(level(of: sine(peak: 32767 * pow(10, -17.0 / 20))) == AudioLevel(level: 20, voiceActivity: true))
        #expect(level(of: sine(peak: 32767 * pow(10, -37.0 / 20))) == AudioLevel(level: 40, voiceActivity: true))
        #expect(level(of: sine(peak: 32767 * pow(10, -38.0 / 20))) == AudioLevel(level: 41, voiceActivity: false))
        #expect(level(of: sine(peak: 32767 * pow(10, -52.0 / 20))) == AudioLevel(level: 55, voiceActivity: false))
        // RMS 1 is -90.3 dBov; nothing at all is silence, 127; past full scale clamps to 0.
        #expect(level(of: [Int16](repeating: 1, count: 960)) == AudioLevel(level: 90, voiceActivity: false))
        #expect(level(of: [Int16](repeating: 0, count: 960)) == AudioLevel(level: 127, voiceActivity: false))
        #expect(level(of: [Int16](repeating: .min, count: 960)) == AudioLevel(level: 0, voiceActivity: true))
        #expect(level(of: []) == AudioLevel(level: 127, voiceActivity: false))
        #expect(AudioLevel(level: 200, voiceActivity: false).level == 127)
    }

    @Test func everyEncodedFrameCarriesTheLevelOfThePCMItWasEncodedFrom() throws {
        let pcm = SynthesizedAudio.speech(seconds: 2, loudness: -24, noiseLoudness: -55, seed: 7)
        let audio = try EncodedAudio(pcm: pcm, bitrate: 24_000)
        let pcmFrames = frames(pcm)
        #expect(audio.frames.count == 100 && pcmFrames.count == 100)
        #expect(audio.seconds == 2)
        for (frame, samples) in zip(audio.frames, pcmFrames) {
            #expect(frame.level == level(of: samples))
        }
        let decoder = try OpusDecoder()
        for frame in audio.frames {
            #expect(try frame.payload.withUnsafeBytes { try decoder.decode($0) } == 960)
        }
    }

    @Test func synthesizedSpeechTalksInPhrasesWellAboveTheRoomWithPausesDownToIt() {
        let levels = frames(SynthesizedAudio.speech(seconds: 10, loudness: -24, noiseLoudness: -55, seed: 3)).map { level(of: $0) }
        // It starts talking at once.
        #expect(levels.prefix(5).allSatisfy { $0.voiceActivity }, "\(levels.prefix(5))")
        let voiced = levels.filter { $0.level <= 34 }
        #expect(voiced.count > 250 && voiced.count < 450, "\(voiced.count) of 500 frames voiced")
        #expect(voiced.allSatisfy { $0.level >= 12 && $0.voiceActivity })
        // Pauses: runs of at least 0.25 s (12 frames) at the room's level, 55 ± 3.
        var pauses: [Int] = []
        var run = 0
        for frame in levels {
            if (52...58).contains(frame.level) {
                run += 1
            } else {
                if run > 0 { pauses.append(run) }
                run = 0
            }
        }
        #expect(pauses.count >= 3 && pauses.allSatisfy { $0 >= 10 && $0 <= 36 }, "pauses in frames: \(pauses)")
        // Between the talk and the room only the frames a phrase starts or ends in.
        #expect(levels.filter { (35...51).contains($0.level) }.count <= 2 * (pauses.count + 1))
    }

    @Test func roomNoiseStaysAtItsLevelButForShortKnocks() {
        let levels = frames(SynthesizedAudio.noise(seconds: 10, loudness: -55, seed: 5)).map { level(of: $0) }
        let louder = levels.indices.filter { levels[$0].level < 50 }
        #expect(levels.filter { (52...58).contains($0.level) }.count >= 470)
        #expect(levels.filter { $0.level < 40 }.count >= 2, "fewer than two knocks in 10 s")
        // A knock is shorter than any word: never more than four louder frames in a row.
        #expect(louder.indices.dropFirst(4).allSatisfy { louder[$0] - louder[$0 - 4] > 4 }, "\(louder)")
        let smooth = frames(SynthesizedAudio.noise(seconds: 10, loudness: -55, knocks: false, seed: 5)).map { level(of: $0) }
        #expect(smooth.allSatisfy { (52...58).contains($0.level) })
    }

    @Test func theSameSeedMakesTheSameAudioAndAnotherSeedOther() {
        #expect(SynthesizedAudio.speech(seconds: 1, loudness: -24, noiseLoudness: -55, seed: 1) == SynthesizedAudio.speech(seconds: 1, loudness: -24, noiseLoudness: -55, seed: 1))
        #expect(SynthesizedAudio.speech(seconds: 1, loudness: -24, noiseLoudness: -55, seed: 1) != SynthesizedAudio.speech(seconds: 1, loudness: -24, noiseLoudness: -55, seed: 2))
        #expect(SynthesizedAudio.noise(seconds: 1, loudness: -55, seed: 1) == SynthesizedAudio.noise(seconds: 1, loudness: -55, seed: 1))
    }

    @Test func audioShorterThanAFrameAndFramesOfTheWrongSizeAreRefused() throws {
        #expect(throws: CodecError.invalidSetting("audio to encode needs at least one 20 ms frame (960 samples), not 959 samples")) {
            try EncodedAudio(pcm: [Int16](repeating: 0, count: 959), bitrate: 24_000)
        }
        let encoder = try OpusEncoder(bitrate: 24_000)
        #expect(throws: CodecError.invalidSetting("an Opus frame here is 960 samples, not 480")) {
            try [Int16](repeating: 0, count: 480).withUnsafeBufferPointer { try encoder.encode($0) }
        }
    }
}
