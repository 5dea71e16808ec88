import COpus

/// The libopus encoder of a composed archive's mix: mono, 48 kHz, 20 ms frames.
final class OpusMixEncoder {
    static let frameSamples = 960
    private let encoder: OpaquePointer
    private var output = [UInt8](repeating: 0, count: 1500)

    init(bitrate: Int) throws(ArchiveWriteError) {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(48_000, 1, OPUS_APPLICATION_AUDIO, &error), error == OPUS_OK else {
            throw .codec("Opus encoder: error \(error)")
        }
        self.encoder = encoder
        _ = switchyard_opus_set_bitrate(encoder, Int32(bitrate))
    }

    deinit {
        opus_encoder_destroy(encoder)
    }

    /// Encodes one 20 ms frame of `frameSamples` samples.
    func encode(_ frame: [Int16]) throws(ArchiveWriteError) -> [UInt8] {
        let capacity = Int32(output.count)
        let length = frame.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer {
                opus_encode(encoder, input.baseAddress!, Int32(Self.frameSamples), $0.baseAddress!, capacity)
            }
        }
        guard length > 0 else { throw .codec("Opus encode: error \(length)") }
        return Array(output[0..<Int(length)])
    }
}
