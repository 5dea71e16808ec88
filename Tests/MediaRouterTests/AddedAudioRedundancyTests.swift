import Quality
import RTPWire
import Testing

@testable import MediaRouter

/// The redundancy the router adds itself toward a lossy subscriber that takes RED: when, and what
/// goes in (docs/red.md).
@Suite struct AddedAudioRedundancyTests {
    private func quality(loss: Double, delivered: Double? = 60_000, estimate: Double? = nil) -> LinkQuality {
        LinkQuality(
            loss: loss, jitterSeconds: 0.005, roundTripSeconds: 0.05, deliveredBitrate: delivered, receiverEstimatedBitrate: nil,
            senderEstimatedBitrate: estimate, neededBitrate: 150_000)
    }

    @Test func framesGoOnlyFromTheLossThresholdWhateverTheEstimateSays() {
        let policy = AddedAudioRedundancy(frames: 2, lossThreshold: 0.03)
        #expect(policy.frames(toward: quality(loss: 0.01)) == 0)
        #expect(policy.frames(toward: quality(loss: 0.03)) == 2)
        #expect(policy.frames(toward: quality(loss: 0.2, estimate: 1_000_000)) == 2)
        // Random loss holds a loss-based estimate at what arrives: that is where RED helps most.
        #expect(policy.frames(toward: quality(loss: 0.2, estimate: 60_000)) == 2)
        #expect(AddedAudioRedundancy(frames: 0, lossThreshold: 0).frames(toward: quality(loss: 0.5)) == 0)
    }

    /// Frames of `timestamp` 960 apart, each one byte naming itself.
    private func packet(_ index: Int, in buffer: UnsafeMutableRawBufferPointer) throws -> RTPPacket {
        try [UInt8(index)].withUnsafeBytes {
            try RTPPacket(writingInto: buffer, payloadType: 111, sequenceNumber: UInt16(index), timestamp: UInt32(960 * index), ssrc: 1, payload: $0)
        }
    }

    @Test func theNewestFramesBeforeThePacketGoOldestFirstAndAGapForgetsThem() throws {
        let recent = RecentAudioFrames()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256, alignment: 8)
        defer { buffer.deallocate() }
        for index in 1...3 { [UInt8(index)].withUnsafeBytes { recent.remember($0, timestamp: UInt32(960 * index)) } }

        var fourth = try packet(4, in: buffer)
        #expect(recent.addRedundancy(upTo: 2, to: &fourth, timestamp: 3_840, payloadType: 111, maximumLength: 1_200) == 2)
        let red = try RedundantAudioPayload(parsing: UnsafeRawBufferPointer(fourth.payload))
        #expect((0..<2).map { fourth.payload[red.redundantBlock(at: $0).range.lowerBound] } == [2, 3])
        #expect((0..<2).map { red.redundantBlock(at: $0).timestampOffset } == [1_920, 960])
        #expect(Array(fourth.payload[red.primary.range]) == [4])

        // 13 bytes, and one more for the primary's header: room for the newest frame (5 bytes) alone, or none.
        var roomForOne = try packet(4, in: buffer)
        #expect(recent.addRedundancy(upTo: 2, to: &roomForOne, timestamp: 3_840, payloadType: 111, maximumLength: 20) == 1)
        #expect(Array(roomForOne.payload) == [0xEF, 0x0F, 0x00, 0x01, 111, 3, 4])
        var tooSmall = try packet(4, in: buffer)
        #expect(recent.addRedundancy(upTo: 2, to: &tooSmall, timestamp: 3_840, payloadType: 111, maximumLength: 18) == 0)
        #expect(Array(tooSmall.payload) == [4])

        // After a long pause the frames held are too old for the header; after a gap, gone.
        var late = try packet(4, in: buffer)
        #expect(recent.addRedundancy(upTo: 2, to: &late, timestamp: 960 * 3 + 20_000, payloadType: 111, maximumLength: 1_200) == 0)
        recent.forget()
        var afterGap = try packet(4, in: buffer)
        #expect(recent.addRedundancy(upTo: 2, to: &afterGap, timestamp: 3_840, payloadType: 111, maximumLength: 1_200) == 0)
    }
}
