import COpus

/// A libopus decoder (48 kHz mono) that proves each received packet is intact Opus.
public final class OpusDecoder {
    private let decoder: OpaquePointer
    private var samples = [Int16](repeating: 0, count: 5760)

    public init() throws(CodecError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(OpusEncoder.sampleRate, 1, &error), error == OPUS_OK else {
            throw .opus(operation: "decoder creation", code: error)
        }
        self.decoder = decoder
    }

    deinit {
        opus_decoder_destroy(decoder)
    }

    /// Decodes one packet and returns the number of samples it held.
    public func decode(_ packet: UnsafeRawBufferPointer) throws(CodecError) -> Int {
        guard let base = packet.baseAddress?.assumingMemoryBound(to: UInt8.self), !packet.isEmpty else {
            throw .opus(operation: "decode", code: OPUS_BAD_ARG)
        }
        let count = samples.withUnsafeMutableBufferPointer {
            opus_decode(decoder, base, Int32(packet.count), $0.baseAddress!, Int32($0.count), 0)
        }
        guard count >= 0 else { throw .opus(operation: "decode", code: count) }
        return Int(count)
    }

    /// Conceals one lost 20 ms frame (libopus packet-loss concealment) and returns its samples.
    @discardableResult
    public func concealLostFrame() throws(CodecError) -> Int {
        let count = samples.withUnsafeMutableBufferPointer {
            opus_decode(decoder, nil, 0, $0.baseAddress!, Int32(OpusEncoder.sampleRate / 50), 0)
        }
        guard count >= 0 else { throw .opus(operation: "concealment", code: count) }
        return Int(count)
    }
}
