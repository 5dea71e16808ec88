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
    private(set) var tracks: [UInt32: Track] = [:]
    private(set) var file: MatroskaFile?
    /// When the stream joined the archive, in nanoseconds of the monotonic clock.
    let addedAt: UInt64
    private var waitingAudio: [(frame: AssembledFrame, ssrc: UInt32)] = []
    private(set) var firstMediaMs: Int64?
    private(set) var lastMediaMs: Int64?
    private(set) var endedMs: Int64?
    /// The file's size when it was closed.
    private var closedSize: Int64 = 0

    init(stream: ArchivedStream, includeAudio: Bool, includeVideo: Bool, addedAt: UInt64) {
        self.stream = stream
        self.addedAt = addedAt
        fileName = "\(stream.streamId).webm"
        for track in stream.tracks {
            let wanted = track.kind == .audio ? includeAudio : includeVideo
            guard wanted, track.codec.name == (track.kind == .audio ? .opus : .vp8) else { continue }
            tracks[track.ssrc] = Track(
                kind: track.kind, assembler: FrameAssembler(kind: track.kind), timeline: MediaTimeline(clockRate: Int(track.codec.clockRate)))
        }
    }

    var hasVideoTrack: Bool { tracks.values.contains { $0.kind == .video } }
    var hasAudioTrack: Bool { tracks.values.contains { $0.kind == .audio } }
    var size: Int64 { file?.size ?? closedSize }
    /// Whether a video track dropped frames and waits for a key frame.
    var wantsKeyFrame: Bool { tracks.values.contains { $0.kind == .video && $0.assembler.wantsKeyFrame } }
    var isEnded: Bool { endedMs != nil }

    func insert(_ packet: RecordingRing.Packet, ssrc: UInt32) {
        tracks[ssrc]?.assembler.insert(packet.bytes, forwardedAt: packet.forwardedAt)
    }

    /// Writes the frames completed so far. `archiveStart` is the archive's start on the monotonic clock.
    func write(now: UInt64, archiveStart: UInt64, directory: String) throws(ArchiveWriteError) {
        var failure: ArchiveWriteError?
        for ssrc in tracks.keys {
            tracks[ssrc]!.assembler.takeFrames(now: now) { frame in
                guard failure == nil else { return }
                do throws(ArchiveWriteError) {
                    try handle(frame, ssrc: ssrc, archiveStart: archiveStart, now: now, directory: directory)
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        if file == nil, !waitingAudio.isEmpty, now &- addedAt > Self.videoWaitNanoseconds {
            try open(videoSize: stream.declaredVideoSize.map { ($0.width, $0.height) } ?? (640, 480), directory: directory)
        }
        if file != nil { try flushWaitingAudio(archiveStart: archiveStart) }
    }

    private func handle(_ frame: AssembledFrame, ssrc: UInt32, archiveStart: UInt64, now: UInt64, directory: String) throws(ArchiveWriteError) {
        guard let kind = tracks[ssrc]?.kind else { return }
        if file == nil {
            if kind == .audio, hasVideoTrack {
                waitingAudio.append((frame, ssrc))
                return
            }
            let size = frame.pictureSize ?? stream.declaredVideoSize.map { ($0.width, $0.height) } ?? (640, 480)
            try open(videoSize: hasVideoTrack ? size : nil, directory: directory)
            try flushWaitingAudio(archiveStart: archiveStart)
        }
        try write(frame, ssrc: ssrc, kind: kind, archiveStart: archiveStart)
    }

    private func open(videoSize: (width: Int, height: Int)?, directory: String) throws(ArchiveWriteError) {
        file = try MatroskaFile(path: "\(directory)/\(fileName)", videoSize: hasVideoTrack ? videoSize : nil, hasAudio: hasAudioTrack)
    }

    private func flushWaitingAudio(archiveStart: UInt64) throws(ArchiveWriteError) {
        let waiting = waitingAudio
        waitingAudio.removeAll()
        for (frame, ssrc) in waiting { try write(frame, ssrc: ssrc, kind: .audio, archiveStart: archiveStart) }
    }

    private func write(_ frame: AssembledFrame, ssrc: UInt32, kind: MediaKind, archiveStart: UInt64) throws(ArchiveWriteError) {
        guard let file else { return }
        let forwardedMs = Int64(bitPattern: frame.forwardedAt &- archiveStart) / 1_000_000
        let milliseconds = tracks[ssrc]!.timeline.milliseconds(rtpTimestamp: frame.rtpTimestamp, forwardedMs: forwardedMs)
        try file.write(frame.bytes, video: kind == .video, milliseconds: milliseconds, isKeyFrame: frame.isKeyFrame)
        firstMediaMs = min(firstMediaMs ?? milliseconds, milliseconds)
        lastMediaMs = max(lastMediaMs ?? milliseconds, milliseconds)
    }

    /// Closes the file: the stream ended, or the archive did.
    func end(atMs: Int64) throws(ArchiveWriteError) {
        guard endedMs == nil else { return }
        endedMs = atMs
        waitingAudio.removeAll()
        guard let file else { return }
        closedSize = file.size
        self.file = nil
        try file.finish()
    }

    /// The manifest's entry, nil while nothing was written.
    var manifestEntry: ArchiveFile? {
        guard let firstMediaMs else { return nil }
        return ArchiveFile(
            name: fileName, streamId: stream.streamId, connectionId: stream.connectionId, connectionData: stream.connectionData,
            startOffsetMs: firstMediaMs, stopOffsetMs: endedMs.map { max($0, lastMediaMs ?? $0) } ?? lastMediaMs,
            hasAudio: hasAudioTrack, hasVideo: hasVideoTrack, sizeBytes: size)
    }
}
