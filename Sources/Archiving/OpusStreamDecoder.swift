import COpus

/// A libopus decoder for one stream of a composed archive: mono, 48 kHz.
final class OpusStreamDecoder {
    private let decoder: OpaquePointer
    /// Room for the longest Opus packet, 120 ms.
    private var samples = [Int16](repeating: 0, count: 5760)

    init() throws(ArchiveWriteError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(48_000, 1, &error), error == OPUS_OK else {
            throw .codec("Opus decoder: error \(error)")
        }
        self.decoder = decoder
    }

    deinit {
        opus_decoder_destroy(decoder)
    }

    /// Decodes one packet; the samples are valid until the next call, empty when it does not decode.
    func decode(_ packet: [UInt8]) -> ArraySlice<Int16> {
        let capacity = Int32(samples.count)
        let count = packet.withUnsafeBufferPointer { input in
            samples.withUnsafeMutableBufferPointer {
                opus_decode(decoder, input.baseAddress, Int32(input.count), $0.baseAddress!, capacity, 0)
            }
        }
        return count > 0 ? samples[0..<Int(count)] : []
    }
}
