import MediaControl
import Signaling
import SignalingProtocol

/// One stream's file in an individual archive, on the archive's writer thread. A stream with video
/// opens its file at its first key frame, whose picture size the track's header takes; audio that
/// arrives before waits (at most `videoWaitNanoseconds`, after which the file opens with the size
/// the publisher declared).
final class StreamRecording {
    static let videoWaitNanoseconds: UInt64 = 3_000_000_000

    struct Track {
        var kind: MediaKind
        var assembler: FrameAssembler
        var timeline: MediaTimeline
    }

    let stream: ArchivedStream
    let fileName: String
    /// The video's codec, nil for an audio-only file.
    let videoCodec: CodecName?
    private(set) var tracks: [UInt32: Track] = [:]
    private(set) var file: MatroskaFile?
    /// When the stream joined the archive, in nanoseconds of the monotonic clock.
    let addedAt: UInt64
    /// Frames that came before the file opened (audio waiting for the first key frame), on the
    /// archive's timeline.
    private var waitingFrames: [(frame: AssembledFrame, kind: MediaKind, milliseconds: Int64)] = []
    /// The archive's time of the file's time 0, and of its last frame.
    private(set) var firstMediaMs: Int64?
    private(set) var lastMediaMs: Int64?
    private(set) var endedMs: Int64?
    /// The file's size when it was closed.
    private var closedSize: Int64 = 0

    init(stream: ArchivedStream, includeAudio: Bool, includeVideo: Bool, addedAt: UInt64) {
        self.stream = stream
        self.addedAt = addedAt
        let recorded = stream.tracks.filter { track in
            track.kind == .audio
                ? includeAudio && track.codec.name == .opus : includeVideo && [.vp8, .h264].contains(track.codec.name)
        }
        videoCodec = recorded.first { $0.kind == .video }?.codec.name
        fileName = "\(stream.streamId).\(videoCodec == .h264 ? "mkv" : "webm")"
        for track in recorded {
            tracks[track.ssrc] = Track(
                kind: track.kind, assembler: FrameAssembler(codec: track.codec.name),
                timeline: MediaTimeline(clockRate: Int(track.codec.clockRate)))
        }
    }

    var hasVideoTrack: Bool { tracks.values.contains { $0.kind == .video } }
    var hasAudioTrack: Bool { tracks.values.contains { $0.kind == .audio } }
    var size: Int64 { file?.size ?? closedSize }
    /// Whether a video track has waited for a key frame long enough to ask its publisher.
    func needsKeyFrame(now: UInt64) -> Bool { tracks.values.contains { $0.assembler.needsKeyFrame(now: now) } }
    var isEnded: Bool { endedMs != nil }

    func insert(_ packet: RecordingRing.Packet, ssrc: UInt32) {
        tracks[ssrc]?.assembler.insert(packet.bytes, forwardedAt: packet.forwardedAt)
    }

    /// Writes the frames completed so far. `archiveStart` is the archive's start on the monotonic clock.
    func write(now: UInt64, archiveStart: UInt64, directory: String) throws(ArchiveWriteError) {
        for ssrc in tracks.keys {
            var frames: [AssembledFrame] = []
            tracks[ssrc]!.assembler.takeFrames(now: now) { frames.append($0) }
            for frame in frames { try handle(frame, ssrc: ssrc, archiveStart: archiveStart, directory: directory) }
        }
        if file == nil, !waitingFrames.isEmpty, now &- addedAt > Self.videoWaitNanoseconds {
            try open(
                videoSize: stream.declaredVideoSize.map { ($0.width, $0.height) } ?? (640, 480), parameterSets: [],
                directory: directory)
        }
    }

    /// Places the frame on the archive's timeline, then writes it, or keeps it when it is audio
    /// that arrived before the file could open.
    private func handle(
        _ frame: AssembledFrame, ssrc: UInt32, archiveStart: UInt64, directory: String
    ) throws(ArchiveWriteError) {
        guard let kind = tracks[ssrc]?.kind else { return }
        let forwardedMs = Int64(bitPattern: frame.forwardedAt &- archiveStart) / 1_000_000
        let milliseconds = tracks[ssrc]!.timeline.milliseconds(
            rtpTimestamp: frame.rtpTimestamp, forwardedMs: forwardedMs)
        if file == nil {
            waitingFrames.append((frame, kind, milliseconds))
            guard kind == .video || !hasVideoTrack else { return }
            let size = frame.pictureSize ?? stream.declaredVideoSize.map { ($0.width, $0.height) } ?? (640, 480)
            try open(videoSize: size, parameterSets: frame.parameterSets, directory: directory)
            return
        }
        try write(frame, kind: kind, milliseconds: milliseconds)
    }

    /// Opens the file, its time 0 the earliest frame waiting, and writes what waited.
    private func open(
        videoSize: (width: Int, height: Int), parameterSets: [UInt8], directory: String
    ) throws(ArchiveWriteError) {
        let video = videoCodec.map {
            MatroskaFile.VideoTrack(
                codec: $0, width: videoSize.width, height: videoSize.height, parameterSets: parameterSets)
        }
        file = try MatroskaFile(path: "\(directory)/\(fileName)", video: video, audioChannels: hasAudioTrack ? 2 : 0)
        // Time 0 is the first key frame's, so the video's frames sit on whole frame intervals from
        // the file's start (FFmpeg's own tools assume a frame grid from 0); audio that came before
        // it is left out. Without video yet (none came in time), the earliest audio's.
        let firstVideoMs = waitingFrames.first { $0.kind == .video }?.milliseconds
        firstMediaMs = firstVideoMs ?? waitingFrames.map(\.milliseconds).min()
        let waiting = waitingFrames.filter { $0.milliseconds >= firstMediaMs ?? .min }
        waitingFrames.removeAll()
        for (frame, kind, milliseconds) in waiting { try write(frame, kind: kind, milliseconds: milliseconds) }
    }

    private func write(_ frame: AssembledFrame, kind: MediaKind, milliseconds: Int64) throws(ArchiveWriteError) {
        // Audio a little older than the first key frame, taken after the file opened, falls before
        // its start: left out like the audio that waited.
        guard let file, let firstMediaMs, milliseconds >= firstMediaMs else { return }
        try file.write(frame.bytes, video: kind == .video, milliseconds: milliseconds - firstMediaMs, isKeyFrame: frame.isKeyFrame)
        lastMediaMs = max(lastMediaMs ?? milliseconds, milliseconds)
    }

    /// Closes the file: the stream ended, or the archive did.
    func end(atMs: Int64) throws(ArchiveWriteError) {
        guard endedMs == nil else { return }
        endedMs = atMs
        waitingFrames.removeAll()
        guard let file else { return }
        closedSize = file.size
        self.file = nil
        closedSize = try file.finish()
    }

    /// The manifest's entry, nil while nothing was written.
    var manifestEntry: ArchiveFile? {
        guard let firstMediaMs else { return nil }
        return ArchiveFile(
            name: fileName, streamId: stream.streamId, connectionId: stream.connectionId,
            connectionData: stream.connectionData,
            startOffsetMs: firstMediaMs, stopOffsetMs: endedMs.map { max($0, lastMediaMs ?? $0) } ?? lastMediaMs,
            hasAudio: hasAudioTrack, hasVideo: hasVideoTrack, sizeBytes: size)
    }
}
