import CAVFormat
import MediaControl

/// One WebM file written as media arrives, through libavformat's Matroska muxer: the header first
/// (its segment of unknown size until the trailer fills it in), then a cluster at least every
/// second, each written out (and flushed to the kernel) as it closes, so a daemon killed mid-archive
/// leaves a file that plays up to its last cluster. The trailer adds the cues and the duration.
/// Timestamps are milliseconds, the Matroska timebase. Used on its archive's writer thread only.
final class MatroskaFile {
    /// A new cluster at least this often, which bounds what a crash loses.
    static let clusterMilliseconds = 1000

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let videoStream: Int32?
    private let audioStream: Int32?
    let path: String

    /// A file's video track: VP8 (in WebM), or H.264 (in Matroska) with its parameter sets.
    struct VideoTrack {
        var codec: CodecName
        var width: Int
        var height: Int
        /// H.264's sequence and picture parameter sets, Annex B; the muxer makes the track's
        /// `avcC` of them and writes the frames length-prefixed.
        var parameterSets: [UInt8] = []
    }

    /// Opens `path` and writes the header: the video track when given, an Opus track of
    /// `audioChannels` at 48 kHz (WebRTC declares 2) unless 0. WebM, unless the video is H.264.
    init(path: String, video: VideoTrack?, audioChannels: Int) throws(ArchiveWriteError) {
        self.path = path
        var made: UnsafeMutablePointer<AVFormatContext>?
        var result = avformat_alloc_output_context2(&made, nil, video?.codec == .h264 ? "matroska" : "webm", path)
        guard result >= 0, let context = made else {
            throw .muxer(path: path, call: "avformat_alloc_output_context2", code: result)
        }
        self.context = context
        var next: Int32 = 0
        if let video, let stream = avformat_new_stream(context, nil) {
            let parameters = stream.pointee.codecpar!
            parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            parameters.pointee.codec_id = video.codec == .h264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_VP8
            parameters.pointee.width = Int32(video.width)
            parameters.pointee.height = Int32(video.height)
            if !video.parameterSets.isEmpty { Self.setExtradata(parameters, video.parameterSets) }
            stream.pointee.time_base = AVRational(num: 1, den: 1000)
            videoStream = next
            next += 1
        } else {
            videoStream = nil
        }
        if audioChannels > 0, let stream = avformat_new_stream(context, nil) {
            let parameters = stream.pointee.codecpar!
            parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            parameters.pointee.codec_id = AV_CODEC_ID_OPUS
            parameters.pointee.sample_rate = 48_000
            av_channel_layout_default(&parameters.pointee.ch_layout, Int32(audioChannels))
            Self.setExtradata(parameters, Self.opusHead(channels: audioChannels))
            stream.pointee.time_base = AVRational(num: 1, den: 1000)
            audioStream = next
        } else {
            audioStream = nil
        }
        result = avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
        guard result >= 0 else {
            close()
            throw .muxer(path: path, call: "avio_open", code: result)
        }
        context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        var options: OpaquePointer?
        av_dict_set(&options, "cluster_time_limit", "\(Self.clusterMilliseconds)", 0)
        result = avformat_write_header(context, &options)
        av_dict_free(&options)
        guard result >= 0 else {
            close()
            throw .muxer(path: path, call: "avformat_write_header", code: result)
        }
    }

    deinit {
        close()
    }

    var hasVideo: Bool { videoStream != nil }
    var hasAudio: Bool { audioStream != nil }

    /// Bytes written so far.
    var size: Int64 {
        guard let io = context?.pointee.pb else { return 0 }
        return avio_tell(io)
    }

    /// Writes one frame at `milliseconds`; frames of one track must come in time order.
    func write(_ frame: [UInt8], video: Bool, milliseconds: Int64, isKeyFrame: Bool) throws(ArchiveWriteError) {
        guard let context, let index = video ? videoStream : audioStream else { return }
        guard let packet = av_packet_alloc() else { throw .muxer(path: path, call: "av_packet_alloc", code: -1) }
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&owned) }
        var result = av_new_packet(packet, Int32(frame.count))
        guard result >= 0 else { throw .muxer(path: path, call: "av_new_packet", code: result) }
        frame.withUnsafeBytes {
            packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: frame.count)
        }
        let timeBase = context.pointee.streams[Int(index)]!.pointee.time_base
        let timestamp = av_rescale_q(milliseconds, AVRational(num: 1, den: 1000), timeBase)
        packet.pointee.pts = timestamp
        packet.pointee.dts = timestamp
        packet.pointee.stream_index = index
        if isKeyFrame { packet.pointee.flags |= AV_PKT_FLAG_KEY }
        result = av_write_frame(context, packet)
        guard result >= 0 else { throw .muxer(path: path, call: "av_write_frame", code: result) }
    }

    /// Writes the trailer (the last cluster, cues and durations), closes the file and returns its size.
    func finish() throws(ArchiveWriteError) -> Int64 {
        guard let context else { return 0 }
        let result = av_write_trailer(context)
        let size = context.pointee.pb.map { avio_size($0) } ?? 0
        close()
        guard result >= 0 else { throw .muxer(path: path, call: "av_write_trailer", code: result) }
        return size
    }

    private func close() {
        guard let context else { return }
        if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
        self.context = nil
    }

    /// The Opus identification header (RFC 7845 section 5.1) Matroska keeps as the track's codec
    /// private data: 312 samples of pre-skip (what libopus's encoder reports at 48 kHz), 48 kHz.
    private static func opusHead(channels: Int) -> [UInt8] {
        Array("OpusHead".utf8) + [1, UInt8(channels), 0x38, 0x01, 0x80, 0xbb, 0x00, 0x00, 0, 0, 0]
    }

    /// Gives a track its codec private data, in a buffer libavformat owns (and frees).
    private static func setExtradata(_ parameters: UnsafeMutablePointer<AVCodecParameters>, _ bytes: [UInt8]) {
        guard let buffer = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { return }
        buffer.copyMemory(from: bytes, byteCount: bytes.count)
        parameters.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata_size = Int32(bytes.count)
    }
}
