import CVPX

/// A libvpx VP8 decoder that reads the test pattern's frame counter from every picture it decodes.
public final class VP8Decoder {
    private var context = vpx_codec_ctx_t()
    /// The size of the last picture decoded (0 before the first).
    public private(set) var lastWidth = 0
    public private(set) var lastHeight = 0

    public init() throws(CodecError) {
        try VP8Encoder.check(switchyard_vpx_decoder_init(&context), "decoder initialisation", nil)
    }

    deinit {
        vpx_codec_destroy(&context)
    }

    /// Decodes one whole frame; returns the counter of each picture it produced (one for VP8).
    public func decode(_ frame: UnsafeRawBufferPointer) throws(CodecError) -> [Int] {
        guard let base = frame.baseAddress?.assumingMemoryBound(to: UInt8.self), !frame.isEmpty else {
            throw .vpx(operation: "decode", message: "empty frame")
        }
        try VP8Encoder.check(vpx_codec_decode(&context, base, UInt32(frame.count), nil, 0), "decode", &context)
        var counters: [Int] = []
        var iterator: vpx_codec_iter_t?
        while let image = vpx_codec_get_frame(&context, &iterator) {
            lastWidth = Int(image.pointee.d_w)
            lastHeight = Int(image.pointee.d_h)
            counters.append(TestPattern.readCounter(from: image.pointee) ?? -1)
        }
        return counters
    }
}
