import COpus
import Foundation

/// A libopus encoder for a test tone: 48 kHz mono, 20 ms frames.
public final class OpusEncoder {
    public static let sampleRate: Int32 = 48_000
    public static let frameSamples = 960
    private let encoder: OpaquePointer
    private var samples = [Int16](repeating: 0, count: frameSamples)
    private var phase = 0.0
    private var output = [UInt8](repeating: 0, count: 1500)

    public init(bitrate: Int) throws(CodecError) {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Self.sampleRate, 1, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw .opus(operation: "encoder creation", code: error)
        }
        self.encoder = encoder
        let result = switchyard_opus_set_bitrate(encoder, Int32(bitrate))
        guard result == OPUS_OK else {
            opus_encoder_destroy(encoder)
            throw .opus(operation: "set bitrate \(bitrate)", code: result)
        }
    }

    deinit {
        opus_encoder_destroy(encoder)
    }

    /// The next 20 ms of a 440 Hz tone whose loudness rises and falls once a second.
    public func encodeNextFrame(frameIndex: Int) throws(CodecError) -> [UInt8] {
        let envelope = 0.5 + 0.5 * sin(Double(frameIndex) * 2 * .pi / 50)
        for index in 0..<Self.frameSamples {
            samples[index] = Int16(8000 * envelope * sin(phase))
            phase += 2 * .pi * 440 / Double(Self.sampleRate)
        }
        phase = phase.truncatingRemainder(dividingBy: 2 * .pi)
        let length = opus_encode(encoder, samples, Int32(Self.frameSamples), &output, Int32(output.count))
        guard length > 0 else { throw .opus(operation: "encode", code: length) }
        return Array(output.prefix(Int(length)))
    }
}
