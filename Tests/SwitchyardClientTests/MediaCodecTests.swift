import Testing

@testable import SwitchyardClient

/// The synthetic media: libvpx and libopus round trips, the frame counter, packetization.
@Suite struct MediaCodecTests {
    static let settings = MediaSettings(videoBitrate: 300_000, audioBitrate: 24_000, width: 256, height: 144, frameRate: 30, loopSeconds: 1)

    @Test func theEncodedLoopDecodesWithEveryCounterInOrder() throws {
        let media = try EncodedMedia(settings: Self.settings)
        #expect(media.videoFrames.count == 30)
        #expect(media.audio?.frames.count == 50)
        #expect(media.videoFrames.map(\.isKeyFrame) == [true] + Array(repeating: false, count: 29))
        let decoder = try VP8Decoder()
        var counters: [Int] = []
        for frame in media.videoFrames {
            #expect(frame.payloads.allSatisfy { $0.count <= EncodedMedia.maximumPayloadBytes })
            #expect(frame.payloads.enumerated().allSatisfy { $0.element[0] == ($0.offset == 0 ? 0x10 : 0x00) })
            let bytes = frame.payloads.flatMap { $0.dropFirst() }
            counters += try bytes.withUnsafeBytes { try decoder.decode($0) }
        }
        #expect(counters == Array(0..<30))
        let audio = try OpusDecoder()
        for frame in media.audio?.frames ?? [] {
            #expect(try frame.payload.withUnsafeBytes { try audio.decode($0) } == 960)
        }
    }

    @Test func bitratesLandNearTheirTargets() throws {
        let media = try EncodedMedia(settings: MediaSettings(loopSeconds: 2))
        // The first frame of the loop is a key frame, which CBR pays for over the rest.
        #expect(media.measuredVideoBitrate > 300_000)
        #expect(media.measuredVideoBitrate < 800_000)
        #expect(media.videoFrames.contains { $0.payloads.count > 1 })
    }

    @Test func largeFramesSplitIntoNearEqualParts() {
        let payloads = EncodedMedia.packetize([UInt8](repeating: 7, count: 3000))
        #expect(payloads.count == 3)
        #expect(payloads.map(\.count) == [1001, 1001, 1001])
        #expect(payloads.map { $0[0] } == [0x10, 0x00, 0x00])
    }

    @Test func badSettingsAndBrokenDataAreRefusedWithTheLibrariesWords() throws {
        #expect(throws: CodecError.self) { try VP8Encoder(width: 100, height: 100, frameRate: 30, bitrate: 300_000) }
        let decoder = try VP8Decoder()
        #expect(throws: CodecError.self) { try [UInt8](repeating: 0xFF, count: 50).withUnsafeBytes { try decoder.decode($0) } }
        #expect(throws: CodecError.self) { try [UInt8]().withUnsafeBytes { try OpusDecoder().decode($0) } }
    }

    @Test func latencyPercentilesComeFromTheBuckets() {
        var histogram = LatencyHistogram()
        for microseconds in 1...1000 { histogram.record(nanoseconds: UInt64(microseconds) * 1000) }
        #expect(histogram.count == 1000)
        #expect(histogram.percentileMilliseconds(0.5) == 0.55)
        #expect(histogram.percentileMilliseconds(0.99) == 1.0)
        var other = LatencyHistogram()
        for _ in 0..<3000 { other.record(nanoseconds: 250_400_000) }
        other.record(nanoseconds: 5_000_000_000)
        histogram.merge(other)
        #expect(histogram.maximumNanoseconds == 5_000_000_000)
        // Past 100 ms the buckets are 1 ms wide: 250.4 ms reads as 251 ms.
        #expect(histogram.percentileMilliseconds(0.5) == 251)
        // Past 2 s only the maximum is known.
        #expect(histogram.percentileMilliseconds(1.0) == 5000)
    }
}
