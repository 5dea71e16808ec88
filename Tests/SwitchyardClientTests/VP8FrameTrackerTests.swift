import Testing

@testable import SwitchyardClient

/// Reassembling VP8 frames and deciding what a decoder could show.
@Suite struct VP8FrameTrackerTests {
    static let millisecond: UInt64 = 1_000_000

    /// Packets of one frame: the first with S=1 (and the key-frame bit), the last with the marker.
    struct Frame {
        var timestamp: UInt32
        var firstSequence: UInt16
        var packets: Int
        var isKeyFrame: Bool

        func payload(_ index: Int) -> [UInt8] {
            index == 0 ? [0x10, isKeyFrame ? 0x00 : 0x01, 0xAA] : [0x00, 0xBB]
        }
    }

    private struct Harness {
        var tracker = VP8FrameTracker(maximumWait: 100 * VP8FrameTrackerTests.millisecond)
        var delivered: [UInt32] = []
        var breaks = 0

        mutating func receive(_ frame: Frame, packets indices: [Int]? = nil, at now: UInt64) {
            for index in indices ?? Array(0..<frame.packets) {
                frame.payload(index).withUnsafeBytes { payload in
                    _ = tracker.received(
                        sequenceNumber: frame.firstSequence &+ UInt16(index), timestamp: frame.timestamp,
                        marker: index == frame.packets - 1, payload: payload, now: now)
                }
            }
            collect(at: now)
        }

        mutating func padding(_ sequenceNumber: UInt16, at now: UInt64) {
            _ = [UInt8]().withUnsafeBytes { tracker.received(sequenceNumber: sequenceNumber, timestamp: 0, marker: false, payload: $0, now: now) }
            collect(at: now)
        }

        mutating func collect(at now: UInt64) {
            var delivered = self.delivered
            var breaks = self.breaks
            tracker.collect(now: now) { delivered.append($0.timestamp) } broken: { breaks += 1 }
            self.delivered = delivered
            self.breaks = breaks
        }
    }

    /// Six two-packet frames whose sequence numbers wrap; 0 and 5 are key frames.
    private let frames: [Frame] = (0..<6).map { (index: Int) -> Frame in
        let first: UInt16 = 65_530 &+ UInt16(index * 2)
        return Frame(timestamp: UInt32(index * 3000), firstSequence: first, packets: 2, isKeyFrame: index == 0 || index == 5)
    }

    @Test func framesInOrderAreDeliveredAcrossTheSequenceWrap() {
        var harness = Harness()
        for (index, frame) in frames.prefix(5).enumerated() { harness.receive(frame, at: UInt64(index) * 33 * Self.millisecond) }
        #expect(harness.delivered == [0, 3000, 6000, 9000, 12000])
        #expect(harness.tracker.isWaitingForKeyFrame == false)
    }

    @Test func aDeltaFrameBeforeAnyKeyFrameIsNotDecodable() {
        var harness = Harness()
        harness.receive(frames[1], at: 0)
        #expect(harness.delivered.isEmpty)
        harness.receive(frames[5], at: Self.millisecond)
        #expect(harness.delivered == [15000])
    }

    @Test func aLostPacketHoldsLaterFramesUntilItsRetransmissionArrives() {
        var harness = Harness()
        harness.receive(frames[0], at: 0)
        harness.receive(frames[1], packets: [1], at: 33 * Self.millisecond)
        harness.receive(frames[2], at: 66 * Self.millisecond)
        #expect(harness.delivered == [0])
        harness.receive(frames[1], packets: [0], at: 80 * Self.millisecond)
        #expect(harness.delivered == [0, 3000, 6000])
        #expect(harness.breaks == 0)
    }

    @Test func aGapThatIsNeverRepairedBreaksTheChainUntilTheNextKeyFrame() {
        var harness = Harness()
        harness.receive(frames[0], at: 0)
        harness.receive(frames[2], at: 66 * Self.millisecond)
        harness.collect(at: 200 * Self.millisecond)
        #expect(harness.breaks == 1)
        #expect(harness.tracker.isWaitingForKeyFrame)
        harness.receive(frames[3], at: 210 * Self.millisecond)
        #expect(harness.delivered == [0])
        harness.receive(frames[5], at: 220 * Self.millisecond)
        #expect(harness.delivered == [0, 15000])
    }

    @Test func paddingBetweenFramesDoesNotBreakTheChain() {
        var harness = Harness()
        harness.receive(frames[0], at: 0)
        let shifted = Frame(timestamp: 3000, firstSequence: frames[1].firstSequence &+ 2, packets: 2, isKeyFrame: false)
        harness.padding(frames[1].firstSequence, at: Self.millisecond)
        harness.padding(frames[1].firstSequence &+ 1, at: Self.millisecond)
        harness.receive(shifted, at: 33 * Self.millisecond)
        #expect(harness.delivered == [0, 3000])
    }
}
