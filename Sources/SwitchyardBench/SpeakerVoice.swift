import SwitchyardClient

/// One participant's two sounds in the speakers scenario, synthesized and encoded once: their talk
/// (speech-like phrases with natural pauses, -20 to -28 dBov) and their room (background noise with
/// the odd knock, -52 to -58 dBov; the same noise runs under their talk). Each participant sounds a
/// little different, and the same in every run.
struct SpeakerVoice: Sendable {
    static let speechSeconds = 10.0
    static let roomSeconds = 6.0

    let speech: EncodedAudio
    let room: EncodedAudio

    static func voices(count: Int, bitrate: Int) throws(BenchError) -> [SpeakerVoice] {
        do {
            return try (0..<count).map { index throws(CodecError) in
                let loudness = -20 - Double(index % 5) * 2
                let noise = -52 - Double(index % 4) * 2
                let seed = UInt64(index) * 2 + 1
                return SpeakerVoice(
                    speech: try EncodedAudio(
                        pcm: SynthesizedAudio.speech(seconds: speechSeconds, loudness: loudness, noiseLoudness: noise, seed: seed), bitrate: bitrate),
                    room: try EncodedAudio(pcm: SynthesizedAudio.noise(seconds: roomSeconds, loudness: noise, seed: seed + 1), bitrate: bitrate))
            }
        } catch {
            throw .setupFailed("encoding the voices: \(error)")
        }
    }
}
