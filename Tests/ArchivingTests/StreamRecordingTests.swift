import Foundation
import MediaControl
import Signaling
import SignalingProtocol
import Testing

@testable import Archiving

/// One stream's file, fed frames as the writer thread would: its time 0 and what falls before it.
@Suite struct StreamRecordingTests {
    static let audioSSRC: UInt32 = 1
    static let videoSSRC: UInt32 = 2

    private func packet(_ ssrc: UInt32, sequence: UInt16, timestamp: UInt32, payload: [UInt8]) -> [UInt8] {
        [
            0x80, 0x80 | 96, UInt8(sequence >> 8), UInt8(sequence & 0xff),
            UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xff), UInt8(timestamp >> 8 & 0xff),
            UInt8(timestamp & 0xff),
            UInt8(ssrc >> 24), UInt8(ssrc >> 16 & 0xff), UInt8(ssrc >> 8 & 0xff), UInt8(ssrc & 0xff),
        ] + payload
    }

    private func insert(_ recording: StreamRecording, _ bytes: [UInt8], ssrc: UInt32, at milliseconds: UInt64) {
        bytes.withUnsafeBytes {
            recording.insert(RecordingRing.Packet(forwardedAt: milliseconds * 1_000_000, bytes: $0), ssrc: ssrc)
        }
    }

    @Test func theFileStartsAtTheFirstKeyFrameAndAudioFromBeforeItIsLeftOutEvenWhenItComesLate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "switchyard-stream-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stream = ArchivedStream(
            streamId: "st_test", connectionId: "c_test", connectionData: nil, declaredVideoSize: nil,
            tracks: [
                ConsumerParameters(
                    consumerID: ConsumerID(rawValue: 1), producerID: ProducerID(rawValue: 1),
                    codec: CodecParameters(name: .opus, payloadType: 111), ssrc: Self.audioSSRC),
                ConsumerParameters(
                    consumerID: ConsumerID(rawValue: 2), producerID: ProducerID(rawValue: 2),
                    codec: CodecParameters(name: .vp8, payloadType: 96), ssrc: Self.videoSSRC),
            ])
        let recording = StreamRecording(stream: stream, includeAudio: true, includeVideo: true, addedAt: 0)
        // Audio at 100 ms waits for the video; the key frame comes at 140 ms.
        insert(
            recording, packet(Self.audioSSRC, sequence: 1, timestamp: 4800, payload: [0xFC, 1]), ssrc: Self.audioSSRC,
            at: 100)
        let keyFrame: [UInt8] = [0x10, 0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 64, 0, 48, 0]
        insert(
            recording, packet(Self.videoSSRC, sequence: 1, timestamp: 9000, payload: keyFrame), ssrc: Self.videoSSRC,
            at: 140)
        try recording.write(now: 150_000_000, archiveStart: 0, directory: directory)
        #expect(recording.firstMediaMs == 140, "time 0 is the key frame's")
        // Audio from 130 ms arrives only now: before the file's start, it is left out.
        insert(
            recording, packet(Self.audioSSRC, sequence: 2, timestamp: 4800 + 1440, payload: [0xFC, 2]),
            ssrc: Self.audioSSRC, at: 130)
        insert(
            recording, packet(Self.audioSSRC, sequence: 3, timestamp: 4800 + 3360, payload: [0xFC, 3]),
            ssrc: Self.audioSSRC, at: 170)
        try recording.write(now: 200_000_000, archiveStart: 0, directory: directory)
        #expect(recording.lastMediaMs == 170)
        try recording.end(atMs: 200)
        #expect(recording.manifestEntry?.startOffsetMs == 140)
        #expect(recording.size > 0)
    }
}
