import CVPX
import MediaControl
import Signaling
import SignalingProtocol

/// A composed archive: one WebM of the whole session. Each stream's video is decoded (libvpx) and
/// scaled into its cell of a grid that follows streams arriving and leaving; the audio of every
/// stream is decoded (libopus), mixed and encoded again. The output runs `latency` behind the
/// archive's clock, so a frame late by the assembler's hold still makes its place.
final class ComposedArchive: ArchiveOutput {
    static let fileName = "composed.webm"
    /// How far the output runs behind what arrives.
    static let latencyMs: Int64 = 700
    /// A stream whose last picture is older than this shows black (its video went off).
    static let pictureTimeoutMs: Int64 = 1000
    static let samplesPerMillisecond = 48

    private final class Stream {
        let stream: ArchivedStream
        let addedMs: Int64
        var endedMs: Int64?
        var video: (ssrc: UInt32, assembler: FrameAssembler, timeline: MediaTimeline)?
        var audio: (ssrc: UInt32, assembler: FrameAssembler, timeline: MediaTimeline)?
        /// Video frames assembled and waiting for their output time, on the archive's timeline.
        var pendingVideo: [(milliseconds: Int64, frame: AssembledFrame)] = []
        let videoDecoder: VP8StreamDecoder?
        let audioDecoder: OpusStreamDecoder?
        var picture: UnsafeMutablePointer<vpx_image_t>?
        var pictureMs: Int64 = .min
        let scaler = PictureScaler()
        /// Decoded audio from `pcmStart` (a sample index of the archive's timeline) on.
        var pcm: [Int32] = []
        var pcmStart: Int64 = 0

        init(_ stream: ArchivedStream, addedMs: Int64, includeAudio: Bool, includeVideo: Bool) throws(ArchiveWriteError)
        {
            self.stream = stream
            self.addedMs = addedMs
            for track in stream.tracks {
                let entry = (
                    track.ssrc, FrameAssembler(codec: track.codec.name),
                    MediaTimeline(clockRate: Int(track.codec.clockRate))
                )
                if track.kind == .video, includeVideo, track.codec.name == .vp8 { video = entry }
                if track.kind == .audio, includeAudio, track.codec.name == .opus { audio = entry }
            }
            videoDecoder = video == nil ? nil : try VP8StreamDecoder()
            audioDecoder = audio == nil ? nil : try OpusStreamDecoder()
        }

        /// Whether it is on the canvas at `milliseconds`.
        func isShown(at milliseconds: Int64) -> Bool {
            video != nil && addedMs <= milliseconds && (endedMs.map { milliseconds < $0 } ?? true)
        }
    }

    private let startedAt: UInt64
    private let path: String
    private let frameIntervalMs: Double
    private let canvas: Canvas
    private let videoEncoder: VP8CanvasEncoder?
    private let audioEncoder: OpusMixEncoder?
    private let includeAudio: Bool
    private let includeVideo: Bool
    private var file: MatroskaFile?
    private var closedSize: Int64 = 0
    private var streams: [Stream] = []
    private var streamsBySSRC: [UInt32: Stream] = [:]
    private var nextVideoFrame = 0
    private var nextAudioSlot: Int64 = 0
    private var lastWrittenMs: Int64?

    init(
        directory: String, width: Int, height: Int, frameRate: Int, includeAudio: Bool, includeVideo: Bool,
        startedAt: UInt64
    ) throws(ArchiveWriteError) {
        self.startedAt = startedAt
        self.includeAudio = includeAudio
        self.includeVideo = includeVideo
        path = "\(directory)/\(Self.fileName)"
        frameIntervalMs = 1000 / Double(frameRate)
        canvas = try Canvas(width: width, height: height)
        canvas.clear()
        videoEncoder =
            includeVideo
            ? try VP8CanvasEncoder(width: width, height: height, frameRate: frameRate, bitrate: width * height * 3)
            : nil
        audioEncoder = includeAudio ? try OpusMixEncoder(bitrate: 64_000) : nil
        file = try MatroskaFile(
            path: path, video: includeVideo ? MatroskaFile.VideoTrack(codec: .vp8, width: width, height: height) : nil,
            audioChannels: includeAudio ? 1 : 0)
    }

    private func milliseconds(at time: UInt64) -> Int64 { Int64(bitPattern: time &- startedAt) / 1_000_000 }

    func add(_ stream: ArchivedStream, now: UInt64) {
        guard !streams.contains(where: { $0.stream.streamId == stream.streamId && $0.endedMs == nil }),
            let composed = try? Stream(
                stream, addedMs: milliseconds(at: now), includeAudio: includeAudio, includeVideo: includeVideo)
        else { return }
        streams.append(composed)
        for ssrc in [composed.video?.ssrc, composed.audio?.ssrc].compactMap({ $0 }) { streamsBySSRC[ssrc] = composed }
    }

    func insert(_ packet: RecordingRing.Packet, ssrc: UInt32) {
        guard let stream = streamsBySSRC[ssrc] else { return }
        if stream.video?.ssrc == ssrc {
            stream.video!.assembler.insert(packet.bytes, forwardedAt: packet.forwardedAt)
        } else {
            stream.audio!.assembler.insert(packet.bytes, forwardedAt: packet.forwardedAt)
        }
    }

    func end(_ streamId: String, now: UInt64) throws(ArchiveWriteError) {
        guard let stream = streams.first(where: { $0.stream.streamId == streamId && $0.endedMs == nil }) else { return }
        take(from: stream, now: now &+ FrameAssembler.holdNanoseconds &+ 1)
        stream.endedMs = milliseconds(at: now)
        for ssrc in [stream.video?.ssrc, stream.audio?.ssrc].compactMap({ $0 }) where streamsBySSRC[ssrc] === stream {
            streamsBySSRC[ssrc] = nil
        }
    }

    func write(now: UInt64) throws(ArchiveWriteError) {
        for stream in streams where stream.endedMs == nil { take(from: stream, now: now) }
        try produce(until: milliseconds(at: now) - Self.latencyMs)
        // A stream gone from the canvas and the mix for good is forgotten.
        let horizon = milliseconds(at: now) - Self.latencyMs
        streams.removeAll { stream in stream.endedMs.map { $0 < horizon - 100 } ?? false }
    }

    func finish(now: UInt64) throws(ArchiveWriteError) {
        guard let file else { return }
        for stream in streams where stream.endedMs == nil {
            take(from: stream, now: now &+ FrameAssembler.holdNanoseconds &+ 1)
        }
        try produce(until: milliseconds(at: now))
        closedSize = file.size
        self.file = nil
        closedSize = try file.finish()
    }

    var files: [ArchiveFile] {
        guard let lastWrittenMs else { return [] }
        return [
            ArchiveFile(
                name: Self.fileName, streamId: nil, connectionId: nil, connectionData: nil, startOffsetMs: 0,
                stopOffsetMs: lastWrittenMs,
                hasAudio: includeAudio, hasVideo: includeVideo, sizeBytes: size)
        ]
    }

    var size: Int64 { file?.size ?? closedSize }

    func needsKeyFrame(now: UInt64) -> Bool {
        streams.contains { $0.endedMs == nil && ($0.video?.assembler.needsKeyFrame(now: now) ?? false) }
    }

    /// Moves the stream's whole frames out of its assemblers: video to wait for its output time,
    /// audio decoded into the stream's samples at its place on the timeline.
    private func take(from stream: Stream, now: UInt64) {
        if stream.video != nil {
            var frames: [AssembledFrame] = []
            stream.video!.assembler.takeFrames(now: now) { frames.append($0) }
            for frame in frames {
                let forwardedMs = milliseconds(at: frame.forwardedAt)
                stream.pendingVideo.append(
                    (
                        stream.video!.timeline.milliseconds(rtpTimestamp: frame.rtpTimestamp, forwardedMs: forwardedMs),
                        frame
                    ))
            }
        }
        if stream.audio != nil, let decoder = stream.audioDecoder {
            var frames: [AssembledFrame] = []
            stream.audio!.assembler.takeFrames(now: now) { frames.append($0) }
            for frame in frames {
                let at = stream.audio!.timeline.milliseconds(
                    rtpTimestamp: frame.rtpTimestamp, forwardedMs: milliseconds(at: frame.forwardedAt))
                let samples = decoder.decode(frame.bytes)
                place(samples, at: at * Int64(Self.samplesPerMillisecond), in: stream)
            }
        }
    }

    private func place(_ samples: ArraySlice<Int16>, at sample: Int64, in stream: Stream) {
        guard !samples.isEmpty else { return }
        if stream.pcm.isEmpty { stream.pcmStart = sample }
        let offset = Int(sample - stream.pcmStart)
        // Audio older than what was mixed already is too late to be heard.
        guard offset >= 0 else { return }
        if stream.pcm.count < offset + samples.count {
            stream.pcm.append(contentsOf: repeatElement(0, count: offset + samples.count - stream.pcm.count))
        }
        for (index, value) in samples.enumerated() { stream.pcm[offset + index] = Int32(value) }
    }

    /// Writes every audio frame and video frame whose time is before `horizon`.
    private func produce(until horizon: Int64) throws(ArchiveWriteError) {
        guard let file else { return }
        while let audioEncoder, (nextAudioSlot + 1) * 20 <= horizon {
            let mixed = mix(slot: nextAudioSlot)
            try file.write(
                try audioEncoder.encode(mixed), video: false, milliseconds: nextAudioSlot * 20, isKeyFrame: true)
            lastWrittenMs = nextAudioSlot * 20 + 20
            nextAudioSlot += 1
        }
        while let videoEncoder, Int64(Double(nextVideoFrame) * frameIntervalMs) <= horizon {
            let time = Int64(Double(nextVideoFrame) * frameIntervalMs)
            compose(at: time)
            if let (bytes, isKeyFrame) = try videoEncoder.encode(canvas.image) {
                try file.write(bytes, video: true, milliseconds: time, isKeyFrame: isKeyFrame)
            }
            lastWrittenMs = max(lastWrittenMs ?? time, time)
            nextVideoFrame += 1
        }
    }

    /// The sum of every stream's samples of one 20 ms slot, clipped.
    private func mix(slot: Int64) -> [Int16] {
        let count = OpusMixEncoder.frameSamples
        let first = slot * Int64(count)
        var sum = [Int32](repeating: 0, count: count)
        for stream in streams where !stream.pcm.isEmpty {
            let offset = Int(first - stream.pcmStart)
            for index in 0..<count where offset + index >= 0 && offset + index < stream.pcm.count {
                sum[index] += stream.pcm[offset + index]
            }
            // What is mixed is dropped.
            let consumed = min(stream.pcm.count, max(0, offset + count))
            if consumed > 0 {
                stream.pcm.removeFirst(consumed)
                stream.pcmStart += Int64(consumed)
            }
        }
        return sum.map { Int16(clamping: $0) }
    }

    /// Paints the canvas for the output frame at `time`: each shown stream's latest picture at or
    /// before it, in its cell.
    private func compose(at time: Int64) {
        let shown = streams.filter { $0.isShown(at: time) }
        canvas.clear()
        let cells = GridLayout.cells(count: shown.count, width: canvas.width, height: canvas.height)
        for (stream, cell) in zip(shown, cells) {
            while let next = stream.pendingVideo.first, next.milliseconds <= time {
                stream.pendingVideo.removeFirst()
                if let picture = stream.videoDecoder?.decode(next.frame.bytes) {
                    stream.picture = picture
                    stream.pictureMs = next.milliseconds
                }
            }
            guard let picture = stream.picture, time - stream.pictureMs <= Self.pictureTimeoutMs else { continue }
            let rect = GridLayout.fit(width: Int(picture.pointee.d_w), height: Int(picture.pointee.d_h), in: cell)
            stream.scaler.draw(picture, into: rect, of: canvas)
        }
    }
}
