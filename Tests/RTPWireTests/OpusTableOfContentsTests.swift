import Testing

@testable import RTPWire

@Suite struct OpusTableOfContentsTests {
    typealias Mode = OpusTableOfContents.Mode
    typealias Bandwidth = OpusTableOfContents.Bandwidth

    func parse(_ bytes: [UInt8]) -> Result<OpusTableOfContents, OpusTableOfContentsError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(OpusTableOfContentsError) in try OpusTableOfContents(parsing: buffer) }
        }
    }

    /// RFC 6716 section 3.1, table 2, one row per configuration range; frame sizes in microseconds.
    static let configurationTable: [(range: ClosedRange<UInt8>, mode: Mode, bandwidth: Bandwidth, frameMicroseconds: [Int])] = [
        (0...3, .silk, .narrowband, [10_000, 20_000, 40_000, 60_000]),
        (4...7, .silk, .mediumband, [10_000, 20_000, 40_000, 60_000]),
        (8...11, .silk, .wideband, [10_000, 20_000, 40_000, 60_000]),
        (12...13, .hybrid, .superWideband, [10_000, 20_000]),
        (14...15, .hybrid, .fullband, [10_000, 20_000]),
        (16...19, .celt, .narrowband, [2_500, 5_000, 10_000, 20_000]),
        (20...23, .celt, .wideband, [2_500, 5_000, 10_000, 20_000]),
        (24...27, .celt, .superWideband, [2_500, 5_000, 10_000, 20_000]),
        (28...31, .celt, .fullband, [2_500, 5_000, 10_000, 20_000]),
    ]

    @Test func everyConfigurationMapsToItsModeBandwidthAndFrameDuration() throws {
        var covered = 0
        for row in Self.configurationTable {
            for (index, configuration) in row.range.enumerated() {
                let toc = try parse([configuration << 3, 0xAA]).get()
                let microseconds = row.frameMicroseconds[index]
                #expect(toc.configuration == configuration)
                #expect(toc.mode == row.mode, "config \(configuration)")
                #expect(toc.bandwidth == row.bandwidth, "config \(configuration)")
                #expect(toc.frameDurationMicroseconds == microseconds, "config \(configuration)")
                #expect(toc.frameDuration == .microseconds(microseconds))
                #expect(toc.samplesPerFrame == microseconds * 48 / 1_000)
                covered += 1
            }
        }
        #expect(covered == 32)
    }

    @Test func bandwidthSampleRates() {
        #expect(Bandwidth.allCases.map(\.effectiveSampleRate) == [8_000, 12_000, 16_000, 24_000, 48_000])
        #expect(Bandwidth.allCases.map(\.audioBandwidthHertz) == [4_000, 6_000, 8_000, 12_000, 20_000])
    }

    @Test func stereoFlag() throws {
        #expect(try parse([0x7C]).get().isStereo)
        #expect(try !parse([0x78]).get().isStereo)
    }

    @Test func frameCountCodes() throws {
        // Config 15: hybrid fullband 20 ms.
        let one = try parse([0x78, 0x01, 0x02]).get()
        #expect(one.frameCountCode == 0)
        #expect(one.frameCount == 1)
        #expect(one.packetSamples == 960)
        #expect(one.packetDuration == .milliseconds(20))

        let twoEqual = try parse([0x79, 0x01, 0x02]).get()
        #expect(twoEqual.frameCountCode == 1)
        #expect(twoEqual.frameCount == 2)
        #expect(twoEqual.packetDurationMicroseconds == 40_000)

        let twoDifferent = try parse([0x7A, 0x01, 0x02]).get()
        #expect(twoDifferent.frameCountCode == 2)
        #expect(twoDifferent.frameCount == 2)

        // Code 3, M = 3; the v and p bits do not count.
        let three = try parse([0x7B, 0xC3, 0x00]).get()
        #expect(three.frameCountCode == 3)
        #expect(three.frameCount == 3)
        #expect(three.packetSamples == 2_880)
        #expect(three.packetDuration == .milliseconds(60))
        #expect(three.payloadLength == 3)

        // CELT 2.5 ms frames, 48 of them: exactly 120 ms.
        let most = try parse([0x83, 48]).get()
        #expect(most.frameCount == 48)
        #expect(most.packetDurationMicroseconds == 120_000)
        #expect(most.packetSamples == OpusTableOfContents.maximumPacketSamples)
    }

    @Test func codeThreeErrors() {
        #expect(parse([0x7B]) == .failure(.frameCountByteMissing))
        #expect(parse([0x7B, 0x80]) == .failure(.frameCountZero))
        // SILK 60 ms: two frames fit in 120 ms, three do not.
        #expect((try? parse([0x1B, 2]).get().packetDurationMicroseconds) == 120_000)
        #expect(parse([0x1B, 3]) == .failure(.durationExceeds120Milliseconds(frameCount: 3, samplesPerFrame: 2_880)))
        #expect(parse([0x83, 49]) == .failure(.durationExceeds120Milliseconds(frameCount: 49, samplesPerFrame: 120)))
    }

    @Test func emptyPayloadThrows() {
        #expect(parse([]) == .failure(.emptyPayload))
        #expect(!OpusTableOfContents.isDiscontinuousTransmission(payloadLength: 0))
    }

    @Test func payloadsOfOneOrTwoBytesAreDiscontinuousTransmission() throws {
        #expect(try parse([0xF8]).get().isDiscontinuousTransmission)
        #expect(try parse([0x78, 0x0B]).get().isDiscontinuousTransmission)
        #expect(try !parse([0x78, 0x0B, 0x41]).get().isDiscontinuousTransmission)
        #expect(try !parse([0x7B, 0x01, 0x41]).get().isDiscontinuousTransmission)
        #expect(OpusTableOfContents.isDiscontinuousTransmission(payloadLength: 1))
        #expect(OpusTableOfContents.isDiscontinuousTransmission(payloadLength: 2))
        #expect(!OpusTableOfContents.isDiscontinuousTransmission(payloadLength: 3))
    }

    @Test func everyOneAndTwoBytePacketParsesOrThrowsWithoutReadingPastTheEnd() {
        for toc in UInt8.min...UInt8.max {
            if case .failure(let error) = parse([toc]), !(error == .frameCountByteMissing && toc & 0x03 == 3) {
                Issue.record("unexpected \(error) for [\(toc)]")
            }
            for second in UInt8.min...UInt8.max {
                let consistent: Bool
                switch parse([toc, second]) {
                case .success(let parsed):
                    consistent = parsed.packetSamples <= OpusTableOfContents.maximumPacketSamples && parsed.frameCount >= 1
                case .failure(.frameCountZero), .failure(.durationExceeds120Milliseconds):
                    consistent = toc & 0x03 == 3
                case .failure:
                    consistent = false
                }
                if !consistent { Issue.record("inconsistent result for [\(toc), \(second)]") }
            }
        }
    }
}
