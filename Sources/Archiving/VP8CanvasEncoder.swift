import CVPX

/// The libvpx VP8 encoder of a composed archive's canvas: real time, constant bitrate, a key frame
/// every two seconds so a player can seek.
final class VP8CanvasEncoder {
    private var context = vpx_codec_ctx_t()
    private var frameNumber: Int64 = 0
    /// Room for the largest frame: an uncompressed picture.
    private var output: [UInt8]

    init(width: Int, height: Int, frameRate: Int, bitrate: Int) throws(ArchiveWriteError) {
        output = [UInt8](repeating: 0, count: width * height * 3 / 2 + 4096)
        var config = vpx_codec_enc_cfg_t()
        guard vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK else {
            throw .codec("VP8 encoder: no default configuration")
        }
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: Int32(frameRate))
        config.rc_target_bitrate = UInt32(bitrate / 1000)
        config.rc_end_usage = VPX_CBR
        config.g_lag_in_frames = 0
        config.kf_mode = VPX_KF_AUTO
        config.kf_max_dist = UInt32(2 * frameRate)
        config.g_threads = 1
        let result = switchyard_vpx_encoder_init(&context, &config)
        guard result == VPX_CODEC_OK else {
            throw .codec("VP8 encoder: \(String(cString: vpx_codec_err_to_string(result)))")
        }
        _ = switchyard_vpx_set_cpu_used(&context, 8)
    }

    deinit {
        vpx_codec_destroy(&context)
    }

    /// Encodes the canvas; the frames out (usually one) and whether the first is a key frame.
    func encode(
        _ image: UnsafeMutablePointer<vpx_image_t>
    ) throws(ArchiveWriteError) -> (bytes: [UInt8], isKeyFrame: Bool)? {
        let result = vpx_codec_encode(&context, image, frameNumber, 1, 0, UInt(VPX_DL_REALTIME))
        guard result == VPX_CODEC_OK else {
            throw .codec("VP8 encode: \(String(cString: vpx_codec_err_to_string(result)))")
        }
        frameNumber += 1
        var isKey: Int32 = 0
        let written = switchyard_vpx_take_frames(&context, &output, output.count, &isKey)
        guard written >= 0 else { throw .codec("VP8 encode: a frame larger than \(output.count) bytes") }
        return written == 0 ? nil : (Array(output[0..<written]), isKey != 0)
    }
}
