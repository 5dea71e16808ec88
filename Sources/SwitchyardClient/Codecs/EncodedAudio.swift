/// A loop of Opus frames encoded once from PCM and replayed by any number of publishers, each frame
/// with the RFC 6464 level of the 20 ms of PCM it was encoded from, which the publisher puts on the
/// frame's packet (docs/speakers.md).
public final class EncodedAudio: Sendable {
    public struct Frame: Sendable {
        public let payload: [UInt8]
        public let level: AudioLevel
    }

    public let frames: [Frame]

    /// Encodes `pcm` (48 kHz mono) in 20 ms frames at `bitrate`; a last partial frame is left out.
    public init(pcm: [Int16], bitrate: Int) throws(CodecError) {
        let count = pcm.count / OpusEncoder.frameSamples
        guard count > 0 else {
            throw .invalidSetting("audio to encode needs at least one 20 ms frame (\(OpusEncoder.frameSamples) samples), not \(pcm.count) samples")
        }
        let encoder = try OpusEncoder(bitrate: bitrate)
        var frames: [Frame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            let start = index * OpusEncoder.frameSamples
            let frame = try pcm.withUnsafeBufferPointer { all throws(CodecError) in
                let samples = UnsafeBufferPointer(rebasing: all[start..<(start + OpusEncoder.frameSamples)])
                return Frame(payload: try encoder.encode(samples), level: AudioLevel(measuring: samples))
            }
            frames.append(frame)
        }
        self.frames = frames
    }

    /// Seconds of audio in the loop.
    public var seconds: Double { Double(frames.count * OpusEncoder.frameSamples) / Double(OpusEncoder.sampleRate) }
}
