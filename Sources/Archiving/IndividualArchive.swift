import MediaControl
import Signaling
import SignalingProtocol

/// An individual archive: one WebM per stream, written from the packets as they arrived.
final class IndividualArchive: ArchiveOutput {
    private let directory: String
    private let includeAudio: Bool
    private let includeVideo: Bool
    /// The archive's start on the monotonic clock.
    private let startedAt: UInt64
    private var streams: [String: StreamRecording] = [:]
    private var streamsBySSRC: [UInt32: StreamRecording] = [:]

    init(directory: String, includeAudio: Bool, includeVideo: Bool, startedAt: UInt64) {
        self.directory = directory
        self.includeAudio = includeAudio
        self.includeVideo = includeVideo
        self.startedAt = startedAt
    }

    func add(_ stream: ArchivedStream, now: UInt64) {
        guard streams[stream.streamId] == nil else { return }
        let recording = StreamRecording(
            stream: stream, includeAudio: includeAudio, includeVideo: includeVideo, addedAt: now)
        streams[stream.streamId] = recording
        for ssrc in recording.tracks.keys { streamsBySSRC[ssrc] = recording }
    }

    func insert(_ packet: RecordingRing.Packet, ssrc: UInt32) {
        streamsBySSRC[ssrc]?.insert(packet, ssrc: ssrc)
    }

    func end(_ streamId: String, now: UInt64) throws(ArchiveWriteError) {
        guard let recording = streams[streamId] else { return }
        try recording.write(
            now: now &+ FrameAssembler.holdNanoseconds &+ 1, archiveStart: startedAt, directory: directory)
        try recording.end(atMs: Int64(bitPattern: now &- startedAt) / 1_000_000)
        for ssrc in recording.tracks.keys where streamsBySSRC[ssrc] === recording { streamsBySSRC[ssrc] = nil }
    }

    func write(now: UInt64) throws(ArchiveWriteError) {
        for recording in streams.values where !recording.isEnded {
            try recording.write(now: now, archiveStart: startedAt, directory: directory)
        }
    }

    func finish(now: UInt64) throws(ArchiveWriteError) {
        var failure: ArchiveWriteError?
        for recording in streams.values {
            do throws(ArchiveWriteError) {
                // What still waits on a gap is written as it is: nothing more comes.
                if !recording.isEnded {
                    try recording.write(
                        now: now &+ FrameAssembler.holdNanoseconds &+ 1, archiveStart: startedAt, directory: directory)
                }
                try recording.end(atMs: Int64(bitPattern: now &- startedAt) / 1_000_000)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
    }

    var files: [ArchiveFile] {
        streams.values.compactMap(\.manifestEntry).sorted {
            ($0.startOffsetMs, $0.streamId ?? "") < ($1.startOffsetMs, $1.streamId ?? "")
        }
    }

    var size: Int64 { streams.values.reduce(0) { $0 + $1.size } }

    func needsKeyFrame(now: UInt64) -> Bool { streams.values.contains { !$0.isEnded && $0.needsKeyFrame(now: now) } }
}
