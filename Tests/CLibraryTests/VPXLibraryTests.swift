import CVPX
import Testing

/// The VP8 system library links, its macro wrappers work, and a key frame and delta frames decode.
@Suite struct VPXLibraryTests {
    static let width: UInt32 = 160
    static let height: UInt32 = 120

    @Test func encodesAndDecodesVP8Frames() throws {
        var config = vpx_codec_enc_cfg_t()
        #expect(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK)
        config.g_w = Self.width
        config.g_h = Self.height
        config.g_timebase = vpx_rational(num: 1, den: 30)
        config.rc_target_bitrate = 400
        config.g_lag_in_frames = 0
        var encoder = vpx_codec_ctx_t()
        #expect(switchyard_vpx_encoder_init(&encoder, &config) == VPX_CODEC_OK)
        defer { vpx_codec_destroy(&encoder) }
        var decoder = vpx_codec_ctx_t()
        #expect(switchyard_vpx_decoder_init(&decoder) == VPX_CODEC_OK)
        defer { vpx_codec_destroy(&decoder) }

        var image = vpx_image_t()
        #expect(vpx_img_alloc(&image, VPX_IMG_FMT_I420, Self.width, Self.height, 16) != nil)
        defer { vpx_img_free(&image) }

        var keyFrames: [Bool] = []
        var decodedFrames = 0
        for frameIndex in 0..<10 {
            paint(&image, frameIndex: frameIndex)
            let flags: vpx_enc_frame_flags_t = frameIndex == 5 ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
            #expect(vpx_codec_encode(&encoder, &image, vpx_codec_pts_t(frameIndex), 1, flags, UInt(VPX_DL_REALTIME)) == VPX_CODEC_OK)
            var iterator: vpx_codec_iter_t?
            while let packet = vpx_codec_get_cx_data(&encoder, &iterator) {
                guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
                let frame = packet.pointee.data.frame
                keyFrames.append(frame.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0)
                let bytes = frame.buf.assumingMemoryBound(to: UInt8.self)
                #expect(vpx_codec_decode(&decoder, bytes, UInt32(frame.sz), nil, 0) == VPX_CODEC_OK)
                var decodeIterator: vpx_codec_iter_t?
                while let decoded = vpx_codec_get_frame(&decoder, &decodeIterator) {
                    #expect(decoded.pointee.d_w == Self.width)
                    #expect(decoded.pointee.d_h == Self.height)
                    #expect(meanLumaError(decoded.pointee, image) < 8)
                    decodedFrames += 1
                }
            }
        }
        #expect(keyFrames == [true, false, false, false, false, true, false, false, false, false])
        #expect(decodedFrames == 10)
    }

    /// A moving gradient, so delta frames have something to code.
    private func paint(_ image: inout vpx_image_t, frameIndex: Int) {
        for plane in 0..<3 {
            let planeWidth = Int(plane == 0 ? image.d_w : (image.d_w + 1) / 2)
            let planeHeight = Int(plane == 0 ? image.d_h : (image.d_h + 1) / 2)
            let stride = Int(plane == 0 ? image.stride.0 : plane == 1 ? image.stride.1 : image.stride.2)
            let base = plane == 0 ? image.planes.0! : plane == 1 ? image.planes.1! : image.planes.2!
            for row in 0..<planeHeight {
                for column in 0..<planeWidth {
                    let value = plane == 0 ? (column + row + 4 * frameIndex) % 256 : 128
                    base[row * stride + column] = UInt8(value)
                }
            }
        }
    }

    private func meanLumaError(_ decoded: vpx_image_t, _ original: vpx_image_t) -> Int {
        var total = 0
        for row in 0..<Int(original.d_h) {
            for column in 0..<Int(original.d_w) {
                let a = Int(decoded.planes.0![row * Int(decoded.stride.0) + column])
                let b = Int(original.planes.0![row * Int(original.stride.0) + column])
                total += abs(a - b)
            }
        }
        return total / Int(original.d_w * original.d_h)
    }
}
