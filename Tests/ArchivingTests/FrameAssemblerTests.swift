import MediaControl
import Testing

@testable import Archiving

@Suite struct FrameAssemblerTests {
    /// An RTP packet of a VP8 stream: a one-byte payload descriptor (S set on a frame's first
    /// packet), and for a frame's first packet a payload header whose P bit says key or not.
    static func vp8Packet(
        sequence: UInt16, timestamp: UInt32, marker: Bool, start: Bool, key: Bool = false, body: [UInt8] = [0xAA]
    ) -> [UInt8] {
        var bytes: [UInt8] = [0x80, (marker ? 0x80 : 0) | 96, UInt8(sequence >> 8), UInt8(sequence & 0xff)]
        bytes += [
            UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xff), UInt8(timestamp >> 8 & 0xff),
            UInt8(timestamp & 0xff),
        ]
        bytes += [0, 0, 0, 1]
        bytes.append(start ? 0x10 : 0x00)
        if start {
            // Key frame: P = 0 and the start code with a 64 x 48 picture; otherwise P = 1.
            bytes += key ? [0x00, 0x00, 0x00, 0x9d, 0x01, 0x2a, 64, 0, 48, 0] : [0x01]
        }
        return bytes + body
    }

    private func frames(_ assembler: inout FrameAssembler, _ packets: [[UInt8]], now: UInt64) -> [AssembledFrame] {
        for packet in packets { packet.withUnsafeBytes { assembler.insert($0, forwardedAt: 0) } }
        var out: [AssembledFrame] = []
        assembler.takeFrames(now: now) { out.append($0) }
        return out
    }

    @Test func putsReorderedPacketsBackIntoWholeFrames() {
        var assembler = FrameAssembler(codec: .vp8)
        let key = [
            Self.vp8Packet(sequence: 10, timestamp: 3000, marker: false, start: true, key: true),
            Self.vp8Packet(sequence: 11, timestamp: 3000, marker: true, start: false),
        ]
        let delta = [
            Self.vp8Packet(sequence: 12, timestamp: 6000, marker: false, start: true),
            Self.vp8Packet(sequence: 13, timestamp: 6000, marker: true, start: false),
        ]
        let out = frames(&assembler, [key[1], key[0], delta[1], delta[0]], now: 0)
        #expect(out.map(\.rtpTimestamp) == [3000, 6000])
        #expect(out[0].isKeyFrame && !out[1].isKeyFrame)
        #expect(out[0].pictureSize.map { [$0.width, $0.height] } == [64, 48])
        #expect(out[1].bytes == [0x01, 0xAA, 0xAA], "the payloads without their descriptors")
    }

    @Test func aGapWaitsForItsPacketThenGivesUpAndWaitsForAKeyFrame() {
        var assembler = FrameAssembler(codec: .vp8)
        let first = [
            Self.vp8Packet(sequence: 1, timestamp: 3000, marker: true, start: true, key: true),
            // Sequence 2, the first half of the next frame, is missing.
            Self.vp8Packet(sequence: 3, timestamp: 6000, marker: true, start: false),
            Self.vp8Packet(sequence: 4, timestamp: 9000, marker: true, start: true),
        ]
        #expect(frames(&assembler, first, now: 0).map(\.rtpTimestamp) == [3000], "held while the gap may still fill")
        #expect(frames(&assembler, [], now: FrameAssembler.holdNanoseconds - 1).isEmpty)
        // Given up: the broken frame and the delta after it are dropped until a key frame.
        #expect(frames(&assembler, [], now: FrameAssembler.holdNanoseconds + 1).isEmpty)
        #expect(assembler.wantsKeyFrame && assembler.lostPackets == 1)
        // The publisher is asked only once the wait outlasts the grace a requested key frame takes.
        let lostAt = FrameAssembler.holdNanoseconds + 1
        #expect(!assembler.needsKeyFrame(now: lostAt + FrameAssembler.keyFrameGraceNanoseconds))
        #expect(assembler.needsKeyFrame(now: lostAt + FrameAssembler.keyFrameGraceNanoseconds + 1))
        let key = Self.vp8Packet(sequence: 5, timestamp: 12000, marker: true, start: true, key: true)
        #expect(frames(&assembler, [key], now: FrameAssembler.holdNanoseconds + 2).map(\.rtpTimestamp) == [12000])
        #expect(!assembler.wantsKeyFrame)
    }

    @Test func videoBeforeTheFirstKeyFrameIsDropped() {
        var assembler = FrameAssembler(codec: .vp8)
        let out = frames(
            &assembler,
            [
                Self.vp8Packet(sequence: 100, timestamp: 3000, marker: true, start: true),
                Self.vp8Packet(sequence: 101, timestamp: 6000, marker: true, start: true, key: true),
            ], now: 0)
        #expect(out.map(\.rtpTimestamp) == [6000])
    }

    @Test func audioPacketsAreFramesAndLateDuplicatesAreIgnored() {
        var assembler = FrameAssembler(codec: .opus)
        var packet = Self.vp8Packet(sequence: 65535, timestamp: 960, marker: true, start: false)
        let wrapped = Self.vp8Packet(sequence: 0, timestamp: 1920, marker: true, start: false)
        #expect(
            frames(&assembler, [packet, wrapped], now: 0).map(\.rtpTimestamp) == [960, 1920],
            "across the sequence number's wrap")
        packet[1] = 111
        #expect(frames(&assembler, [packet], now: 0).isEmpty, "an old sequence number is not played twice")
    }

    static func h264Packet(sequence: UInt16, timestamp: UInt32, marker: Bool, payload: [UInt8]) -> [UInt8] {
        [
            0x80, (marker ? 0x80 : 0) | 102, UInt8(sequence >> 8), UInt8(sequence & 0xff),
            UInt8(timestamp >> 24), UInt8(timestamp >> 16 & 0xff), UInt8(timestamp >> 8 & 0xff),
            UInt8(timestamp & 0xff), 0, 0, 0, 2,
        ] + payload
    }

    @Test func h264AccessUnitsComeOutInAnnexBFromSingleAggregatedAndFragmentedNALUnits() {
        var assembler = FrameAssembler(codec: .h264)
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1E]
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let stapA: [UInt8] = [0x78, 0, UInt8(sps.count)] + sps + [0, UInt8(pps.count)] + pps
        // An IDR slice (type 5, NRI 3) in two FU-A fragments, then a single-NAL P slice.
        let idrStart: [UInt8] = [0x7C, 0x85, 0xAA, 0xBB]
        let idrEnd: [UInt8] = [0x7C, 0x45, 0xCC]
        let slice: [UInt8] = [0x41, 0x9A, 0x01]
        let out = frames(
            &assembler,
            [
                Self.h264Packet(sequence: 1, timestamp: 3000, marker: false, payload: stapA),
                Self.h264Packet(sequence: 2, timestamp: 3000, marker: false, payload: idrStart),
                Self.h264Packet(sequence: 3, timestamp: 3000, marker: true, payload: idrEnd),
                Self.h264Packet(sequence: 4, timestamp: 6000, marker: true, payload: slice),
            ], now: 0)
        let code: [UInt8] = [0, 0, 0, 1]
        #expect(out.map(\.rtpTimestamp) == [3000, 6000])
        #expect(out[0].isKeyFrame && !out[1].isKeyFrame)
        #expect(out[0].parameterSets == code + sps + code + pps)
        #expect(
            out[0].bytes == code + sps + code + pps + code + [0x65, 0xAA, 0xBB, 0xCC],
            "the IDR's NAL header rebuilt from the FU-A's")
        #expect(out[1].bytes == code + slice)
    }

    @Test func anH264AccessUnitThatLostItsStartIsNotWritten() {
        var assembler = FrameAssembler(codec: .h264)
        let key = Self.h264Packet(sequence: 1, timestamp: 3000, marker: true, payload: [0x65, 0x88])
        // Sequence 2, the first slice of the next picture, is lost; its second slice arrives.
        let rest = Self.h264Packet(sequence: 3, timestamp: 6000, marker: true, payload: [0x41, 0x9A])
        let next = Self.h264Packet(sequence: 4, timestamp: 9000, marker: true, payload: [0x65, 0x88])
        #expect(frames(&assembler, [key, rest], now: 0).count == 1)
        #expect(frames(&assembler, [next], now: FrameAssembler.holdNanoseconds + 1).map(\.rtpTimestamp) == [9000])
        #expect(assembler.lostPackets == 1)
    }
}
