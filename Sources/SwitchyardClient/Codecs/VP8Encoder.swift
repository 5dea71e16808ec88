import CVPX

/// A libvpx VP8 encoder for the test pattern, set up like a real-time sender: constant bitrate, no
/// look-ahead, key frames only when asked for (or at the start).
public final class VP8Encoder {
    public let width: Int
    public let height: Int
    private var context = vpx_codec_ctx_t()
    private var image = vpx_image_t()
    private var frameNumber: Int64 = 0
    /// Room for the largest frame: an uncompressed picture.
    private var output: [UInt8]
    /// The rate controller's optimal buffer of libwebrtc's VP8 sender, which its key-frame cap derives from.
    private static let optimalBufferMilliseconds = 600.0

    public init(width: Int, height: Int, frameRate: Int, bitrate: Int) throws(CodecError) {
        guard width >= TestPattern.minimumWidth, height >= TestPattern.minimumHeight, width % 2 == 0, height % 2 == 0 else {
            throw .invalidSetting(
                "video size \(width)x\(height) is too small or odd: at least \(TestPattern.minimumWidth)x\(TestPattern.minimumHeight), even")
        }
        guard frameRate > 0, bitrate >= 10_000 else { throw .invalidSetting("video frame rate must be positive and bitrate at least 10 kbps") }
        self.width = width
        self.height = height
        output = [UInt8](repeating: 0, count: width * height * 3 / 2 + 4096)
        var config = vpx_codec_enc_cfg_t()
        try Self.check(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0), "default configuration", nil)
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: Int32(frameRate))
        config.rc_target_bitrate = UInt32(bitrate / 1000)
        config.rc_end_usage = VPX_CBR
        config.g_lag_in_frames = 0
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.kf_mode = VPX_KF_DISABLED
        config.g_threads = 1
        try Self.check(switchyard_vpx_encoder_init(&context, &config), "encoder initialisation", nil)
        // A key frame as large as the encoder likes takes longer than a frame interval to cross a link
        // near the stream's rate, and the receiver's picture freezes meanwhile; real-time senders cap
        // it as libwebrtc does: half the optimal buffer's worth of frames, at least three frames' worth.
        let intraPercent = max(300, UInt32(Self.optimalBufferMilliseconds * 0.5 * Double(frameRate) / 10))
        let capped = switchyard_vpx_set_max_intra_bitrate_pct(&context, intraPercent)
        guard capped == VPX_CODEC_OK else {
            vpx_codec_destroy(&context)
            throw .vpx(operation: "key frame size cap", message: String(cString: vpx_codec_err_to_string(capped)))
        }
        guard vpx_img_alloc(&image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 16) != nil else {
            vpx_codec_destroy(&context)
            throw .vpx(operation: "image allocation", message: "out of memory")
        }
    }

    deinit {
        vpx_img_free(&image)
        vpx_codec_destroy(&context)
    }

    /// Encodes the test pattern showing `counter`; the first frame is always a key frame.
    public func encode(counter: Int, keyFrame: Bool, flash: Bool = false) throws(CodecError) -> (bytes: [UInt8], isKeyFrame: Bool) {
        TestPattern.paint(&image, counter: counter, flash: flash)
        let flags: vpx_enc_frame_flags_t = keyFrame ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        try Self.check(vpx_codec_encode(&context, &image, frameNumber, 1, flags, UInt(VPX_DL_REALTIME)), "encode", &context)
        frameNumber += 1
        var isKey: Int32 = 0
        let written = switchyard_vpx_take_frames(&context, &output, output.count, &isKey)
        guard written >= 0 else { throw .vpx(operation: "encode", message: "a frame larger than \(output.count) bytes") }
        return (Array(output[0..<written]), isKey != 0)
    }

    static func check(_ result: vpx_codec_err_t, _ operation: String, _ context: UnsafeMutablePointer<vpx_codec_ctx_t>?) throws(CodecError) {
        guard result != VPX_CODEC_OK else { return }
        var message = String(cString: vpx_codec_err_to_string(result))
        if let context, let detail = vpx_codec_error_detail(context) { message += " (\(String(cString: detail)))" }
        throw .vpx(operation: operation, message: message)
    }
}
