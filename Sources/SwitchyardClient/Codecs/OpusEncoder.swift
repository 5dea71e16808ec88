import COpus

/// A libopus encoder: 48 kHz mono, 20 ms frames.
public final class OpusEncoder {
    public static let sampleRate: Int32 = 48_000
    public static let frameSamples = 960
    private let encoder: OpaquePointer
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

    /// Encodes one 20 ms frame (`frameSamples` samples) into an Opus packet.
    public func encode(_ frame: UnsafeBufferPointer<Int16>) throws(CodecError) -> [UInt8] {
        guard frame.count == Self.frameSamples, let samples = frame.baseAddress else {
            throw .invalidSetting("an Opus frame here is \(Self.frameSamples) samples, not \(frame.count)")
        }
        let length = opus_encode(encoder, samples, Int32(Self.frameSamples), &output, Int32(output.count))
        guard length > 0 else { throw .opus(operation: "encode", code: length) }
        return Array(output.prefix(Int(length)))
    }
}
