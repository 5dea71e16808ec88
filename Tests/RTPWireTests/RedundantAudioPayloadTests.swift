import Testing

@testable import RTPWire

/// RFC 2198 payloads as browsers send Opus in them (`red/48000/2`, one or two earlier frames), read
/// and written without allocating, and every malformed length refused by name.
@Suite struct RedundantAudioPayloadTests {
    /// Two earlier 20 ms frames (960 and 1,920 ticks back) ahead of the primary, as Chromium sends them.
    static let chromiumLike: [UInt8] = [
        0xEF, 0x1E, 0x00, 0x03,  // oldest: PT 111, offset 1,920, 3 bytes
        0xEF, 0x0F, 0x00, 0x02,  // PT 111, offset 960, 2 bytes
        0x6F,  // primary, PT 111
        0xA1, 0xA2, 0xA3, 0xB1, 0xB2, 0xC1, 0xC2, 0xC3, 0xC4,
    ]

    @Test func theBlocksOfAChromiumPacketAreReadInOrderWithTheirTimestampOffsets() throws {
        try Self.chromiumLike.withUnsafeBytes { bytes in
            let red = try RedundantAudioPayload(parsing: bytes)
            #expect(red.redundantBlockCount == 2)
            #expect(red.redundantBlock(at: 0) == .init(payloadType: 111, timestampOffset: 1_920, range: 9..<12))
            #expect(red.redundantBlock(at: 1) == .init(payloadType: 111, timestampOffset: 960, range: 12..<14))
            #expect(red.primary == .init(payloadType: 111, timestampOffset: 0, range: 14..<18))
            #expect(Array(bytes[red.primary.range]) == [0xC1, 0xC2, 0xC3, 0xC4])
        }
    }

    @Test func aPayloadOfThePrimaryAloneIsItsOneByteHeaderAndTheFrame() throws {
        try [UInt8(111), 0x01, 0x02].withUnsafeBytes { bytes in
            let red = try RedundantAudioPayload(parsing: bytes)
            #expect(red.redundantBlockCount == 0)
            #expect(red.primary.range == 1..<3)
        }
    }

    @Test func writingThenReadingGivesBackEveryFrame() throws {
        let frames: [[UInt8]] = [[0xA1, 0xA2, 0xA3], [0xB1, 0xB2], [0xC1, 0xC2, 0xC3, 0xC4]]
        var buffer = [UInt8](repeating: 0, count: 64)
        let written = try frames[0].withUnsafeBytes { oldest in
            try frames[1].withUnsafeBytes { previous in
                try frames[2].withUnsafeBytes { primary in
                    try buffer.withUnsafeMutableBytes { destination in
                        try RedundantAudioPayload.write(
                            primary: primary, redundant: [(oldest, 1_920), (previous, 960)], payloadType: 111, into: destination)
                    }
                }
            }
        }
        #expect(Array(buffer[0..<written]) == Self.chromiumLike)
        try buffer.withUnsafeBytes { bytes in
            let red = try RedundantAudioPayload(parsing: UnsafeRawBufferPointer(rebasing: bytes[0..<written]))
            #expect((0..<2).map { Array(bytes[red.redundantBlock(at: $0).range]) } == [frames[0], frames[1]])
            #expect(Array(bytes[red.primary.range]) == frames[2])
        }
    }

    static let malformed: [([UInt8], RedundantAudioError)] = [
        ([], .emptyPayload),
        ([0xEF, 0x00, 0x00], .headerPastEnd(offset: 0)),
        ([0xEF, 0x00, 0x00, 0x01], .headerPastEnd(offset: 0)),
        ([0xEF, 0x00, 0x00, 0x01, 0xEF, 0x00], .headerPastEnd(offset: 4)),
        ([0xEF, 0x00, 0x03, 0xFF, 0x6F, 0x01], .blocksPastEnd(declaredBytes: 1_023, available: 1)),
    ]

    @Test(arguments: malformed)
    func aMalformedPayloadIsRefusedWithWhatWasWrong(bytes: [UInt8], error: RedundantAudioError) {
        #expect(throws: error) { try bytes.withUnsafeBytes { try RedundantAudioPayload(parsing: $0) } }
    }

    @Test func aBlockTooLongOrTooOldForItsHeaderIsNotWritten() {
        let long = [UInt8](repeating: 7, count: 1_024)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        #expect(throws: RedundantAudioError.redundantBlockTooLarge(bytes: 1_024, timestampOffset: 960)) {
            try long.withUnsafeBytes { frame in
                try buffer.withUnsafeMutableBytes { try RedundantAudioPayload.write(primary: frame, redundant: [(frame, 960)], payloadType: 111, into: $0) }
            }
        }
        #expect(throws: RedundantAudioError.redundantBlockTooLarge(bytes: 2, timestampOffset: 16_384)) {
            try [UInt8](repeating: 1, count: 2).withUnsafeBytes { frame in
                try buffer.withUnsafeMutableBytes { try RedundantAudioPayload.write(primary: frame, redundant: [(frame, 16_384)], payloadType: 111, into: $0) }
            }
        }
        #expect(throws: RedundantAudioError.noRoom(needed: 9, capacity: 4)) {
            try [UInt8](repeating: 1, count: 2).withUnsafeBytes { frame in
                try buffer.withUnsafeMutableBytes {
                    try RedundantAudioPayload.write(
                        primary: frame, redundant: [(frame, 960)], payloadType: 111, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<4]))
                }
            }
        }
    }

    /// Whatever the bytes, a payload either is refused or names only ranges inside it.
    @Test func randomBytesNeverNameARangeOutsideThePayload() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !bytes.isEmpty, Bool.random(using: &generator) { bytes[0] |= 0x80 }
            bytes.withUnsafeBytes { payload in
                guard let red = try? RedundantAudioPayload(parsing: payload) else { return }
                let blocks = (0..<red.redundantBlockCount).map(red.redundantBlock(at:)) + [red.primary]
                #expect(blocks.allSatisfy { $0.range.lowerBound >= 0 && $0.range.upperBound <= payload.count })
                #expect(blocks.last!.range.upperBound == payload.count)
            }
        }
    }
}

/// Making a plain packet an RFC 2198 one in place, as the router does toward a lossy subscriber.
@Suite struct PrependRedundantFramesTests {
    @Test func earlierFramesGoAheadOfThePacketsOwnAndParseBack() throws {
        var storage = [UInt8](repeating: 0, count: 256)
        let frames: [[UInt8]] = [[0xA1, 0xA2, 0xA3], [0xB1, 0xB2]]
        try storage.withUnsafeMutableBytes { buffer in
            var packet = try [UInt8]([0xC1, 0xC2]).withUnsafeBytes {
                try RTPPacket(writingInto: buffer, payloadType: 111, sequenceNumber: 9, timestamp: 4_800, ssrc: 7, payload: $0)
            }
            try frames[0].withUnsafeBytes { oldest in
                try frames[1].withUnsafeBytes { previous in
                    try packet.prependRedundantFrames(count: 2, payloadType: 111) { index in index == 0 ? (oldest, 1_920) : (previous, 960) }
                }
            }
            #expect(Array(packet.payload) == RedundantAudioPayloadTests.chromiumLike.prefix(9) + [0xA1, 0xA2, 0xA3, 0xB1, 0xB2, 0xC1, 0xC2])
            let red = try RedundantAudioPayload(parsing: UnsafeRawBufferPointer(packet.payload))
            #expect(red.redundantBlockCount == 2 && red.redundantBlock(at: 0).timestampOffset == 1_920)
            #expect(Array(packet.payload[red.primary.range]) == [0xC1, 0xC2])
        }
    }

    @Test func aFrameTheHeaderCannotSayOrABufferWithoutRoomLeavesThePacketAsItWas() throws {
        var storage = [UInt8](repeating: 0, count: 24)
        try storage.withUnsafeMutableBytes { buffer in
            var packet = try [UInt8]([0xC1, 0xC2]).withUnsafeBytes {
                try RTPPacket(writingInto: buffer, payloadType: 111, sequenceNumber: 9, timestamp: 4_800, ssrc: 7, payload: $0)
            }
            try [UInt8](repeating: 1, count: 8).withUnsafeBytes { frame in
                #expect(throws: RTPPacketError.redundantBlockNotRepresentable(bytes: 8, timestampOffset: 20_000)) {
                    try packet.prependRedundantFrames(count: 1, payloadType: 111) { _ in (frame, 20_000) }
                }
                #expect(throws: RTPPacketError.noRoom(needed: 27, capacity: 24)) {
                    try packet.prependRedundantFrames(count: 1, payloadType: 111) { _ in (frame, 960) }
                }
            }
            #expect(Array(packet.payload) == [0xC1, 0xC2])
        }
    }
}
