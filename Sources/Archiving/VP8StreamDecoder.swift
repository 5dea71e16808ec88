import CVPX

/// A libvpx VP8 decoder for one stream of a composed archive. The picture it gives is valid until
/// the next call.
final class VP8StreamDecoder {
    private var context = vpx_codec_ctx_t()

    init() throws(ArchiveWriteError) {
        let result = switchyard_vpx_decoder_init(&context)
        guard result == VPX_CODEC_OK else {
            throw .codec("VP8 decoder: \(String(cString: vpx_codec_err_to_string(result)))")
        }
    }

    deinit {
        vpx_codec_destroy(&context)
    }

    /// Decodes one frame; nil when it does not decode (the stream then waits for a key frame).
    func decode(_ frame: [UInt8]) -> UnsafeMutablePointer<vpx_image_t>? {
        let result = frame.withUnsafeBufferPointer {
            vpx_codec_decode(&context, $0.baseAddress, UInt32($0.count), nil, 0)
        }
        guard result == VPX_CODEC_OK else { return nil }
        var iterator: vpx_codec_iter_t?
        var latest: UnsafeMutablePointer<vpx_image_t>?
        while let image = vpx_codec_get_frame(&context, &iterator) { latest = image }
        return latest
    }
}
