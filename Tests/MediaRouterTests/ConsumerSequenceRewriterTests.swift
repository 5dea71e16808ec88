import Testing
import TestSupport

@testable import MediaRouter

private let millisecond: UInt64 = 1_000_000
private let second: UInt64 = 1_000_000_000

/// A rewritten sequence number and timestamp, comparable in one `#expect`.
private struct Mapped: Equatable, CustomStringConvertible {
    var sequenceNumber: UInt16
    var timestamp: UInt32
    init(_ sequenceNumber: UInt16, _ timestamp: UInt32) {
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
    }
    var description: String { "(\(sequenceNumber), \(timestamp))" }
}

private struct PacketDropped: Error {}

extension ConsumerSequenceRewriter {
    /// Rewrites a packet that must be forwarded; a drop fails the test by throwing.
    fileprivate mutating func forward(_ sequenceNumber: UInt16, _ timestamp: UInt32, at now: UInt64) throws -> Mapped {
        guard let mapped = rewrite(sequenceNumber: sequenceNumber, timestamp: timestamp, now: now) else { throw PacketDropped() }
        return Mapped(mapped.sequenceNumber, mapped.timestamp)
    }

    /// Rewrites a packet that may be dropped (nil).
    fileprivate mutating func offer(_ sequenceNumber: UInt16, _ timestamp: UInt32, at now: UInt64) -> Mapped? {
        rewrite(sequenceNumber: sequenceNumber, timestamp: timestamp, now: now).map { Mapped($0.sequenceNumber, $0.timestamp) }
    }
}

@Suite struct ConsumerSequenceRewriterTests {
    @Test func upstreamGapsAreCountedAsSkippedAndLateFillsTakenBack() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 100, timestampOffset: 0)
        _ = try rewriter.forward(10, 0, at: 0)
        _ = try rewriter.forward(11, 0, at: millisecond)
        // 12, 13 and 14 never reach the router.
        #expect(try rewriter.forward(15, 0, at: 2 * millisecond) == Mapped(105, 0))
        #expect(rewriter.skippedCount == 3)
        // 13 arrives late (a retransmission the publisher sent): it goes out, and is no longer skipped.
        #expect(try rewriter.forward(13, 0, at: 3 * millisecond) == Mapped(103, 0))
        #expect(rewriter.skippedCount == 2)
    }

    @Test func paddingTakesTheNextSequenceNumberAndATimestampThatFollowsWallTime() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 100, timestampOffset: 0)
        _ = try rewriter.forward(10, 900, at: 0)
        let padding = [rewriter.nextPaddingPacket(now: 100 * millisecond), rewriter.nextPaddingPacket(now: 200 * millisecond)]
        #expect(padding.map(\.sequenceNumber) == [101, 102])
        // 100 ms at 90 kHz is 9000 ticks: a receiver's jitter sees the padding arrive on time.
        #expect(padding.map(\.timestamp) == [9_900, 18_900])
        let resumed = try rewriter.forward(40, 9_900, at: second)
        #expect(resumed.sequenceNumber == 103)
        #expect(resumed.timestamp == 90_900)
    }

    @Test func theFirstPacketGetsTheInitialSequenceNumberAndTheTimestampOffset() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 1_000, timestampOffset: 500)
        let first = try rewriter.forward(7_000, 90_000, at: 0)
        #expect(first == Mapped(1_000, 90_500))
        let second = try rewriter.forward(7_001, 93_000, at: 33 * millisecond)
        #expect(second == Mapped(1_001, 93_500))
        #expect(rewriter.lastSequenceNumber == 1_001)
        #expect(rewriter.lastTimestamp == 93_500)
        #expect(rewriter.lastForwardedAt == 33 * millisecond)
    }

    @Test func aPauseLeavesNoSequenceGapAndTimestampsFollowWallTime() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 10, timestampOffset: 0)
        var now: UInt64 = 0
        var producerSequence: UInt16 = 30_000
        var producerTimestamp: UInt32 = 1_000_000
        for _ in 0..<10 {
            _ = try rewriter.forward(producerSequence, producerTimestamp, at: now)
            producerSequence &+= 1
            producerTimestamp &+= 3_000
            now += 33 * millisecond
        }
        let lastBeforePause = (rewriter.lastSequenceNumber, rewriter.lastTimestamp, try #require(rewriter.lastForwardedAt))
        #expect(lastBeforePause.0 == 19)

        // Paused for 2.5 s while the producer went on; then resumed on a key frame.
        producerSequence &+= 400
        producerTimestamp &+= 300_000
        now = lastBeforePause.2 + 2_500 * millisecond
        rewriter.resync()
        let resumed = try rewriter.forward(producerSequence, producerTimestamp, at: now)
        // 2.5 s × 90 kHz = 225 000 ticks.
        #expect(resumed == Mapped(20, lastBeforePause.1 + 225_000))

        // The run goes on with the producer's spacing.
        let next = try rewriter.forward(producerSequence &+ 1, producerTimestamp &+ 3_000, at: now + 33 * millisecond)
        #expect(next == Mapped(21, resumed.timestamp + 3_000))
    }

    @Test func anImmediateResyncStillAdvancesTheTimestampByOneTick() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 48_000, initialSequenceNumber: 0, timestampOffset: 0)
        _ = try rewriter.forward(100, 960, at: 5 * second)
        rewriter.resync()
        let resumed = try rewriter.forward(900, 50_000, at: 5 * second)
        #expect(resumed == Mapped(1, 961))
    }

    @Test func producerAndConsumerSequenceNumbersBothWrap() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 65_533, timestampOffset: 0)
        var expected: UInt16 = 65_533
        var producer: UInt16 = 65_530
        for step in 0..<12 {
            let mapped = try rewriter.forward(producer, UInt32(step) * 3_000, at: UInt64(step) * 33 * millisecond)
            #expect(mapped.sequenceNumber == expected)
            #expect(rewriter.forwardedPacket(forConsumer: expected)?.producerSequenceNumber == producer)
            expected &+= 1
            producer &+= 1
        }
        // Resync across the wrap of both spaces.
        rewriter.resync()
        let resumed = try rewriter.forward(65_535, 0, at: second)
        #expect(resumed.sequenceNumber == expected)
        let after = try rewriter.forward(0, 3_000, at: second + 33 * millisecond)
        #expect(after.sequenceNumber == expected &+ 1)
        #expect(rewriter.forwardedPacket(forConsumer: expected &+ 1)?.producerSequenceNumber == 0)
    }

    @Test func reorderedPacketsInARunMapConsistently() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 500, timestampOffset: 10)
        #expect(try rewriter.forward(10, 1_000, at: 0) == Mapped(500, 1_010))
        #expect(try rewriter.forward(12, 7_000, at: 2) == Mapped(502, 7_010))
        #expect(try rewriter.forward(11, 4_000, at: 3) == Mapped(501, 4_010))
        // The late packet did not pull the "last" values back.
        #expect(rewriter.lastSequenceNumber == 502)
        #expect(rewriter.lastTimestamp == 7_010)
        #expect(rewriter.lastForwardedAt == 2)
        // A retransmitted duplicate maps the same way again.
        #expect(try rewriter.forward(11, 4_000, at: 4) == Mapped(501, 4_010))
        #expect(try rewriter.forward(13, 10_000, at: 5) == Mapped(503, 10_010))
    }

    @Test func packetsFromBeforeTheResyncAreDropped() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 0, timestampOffset: 0)
        for sequenceNumber in UInt16(100)...105 {
            _ = try rewriter.forward(sequenceNumber, UInt32(sequenceNumber) * 3_000, at: UInt64(sequenceNumber))
        }
        rewriter.resync()
        // Resumed on 110 about a second after 105 (timestamp 315 000) was forwarded.
        #expect(try rewriter.forward(110, 330_000, at: second) == Mapped(6, 405_000))
        #expect(rewriter.offer(109, 327_000, at: second + 1) == nil)
        #expect(rewriter.offer(104, 312_000, at: second + 2) == nil)
        #expect(rewriter.droppedBeforeRunCount == 2)
        #expect(try rewriter.forward(111, 333_000, at: second + 3) == Mapped(7, 408_000))
        #expect(rewriter.lastSequenceNumber == 7)
    }

    @Test func nackedSequenceNumbersTranslateBackWithinTheRunOnly() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 40_000, timestampOffset: 0)
        #expect(rewriter.forwardedPacket(forConsumer: 40_000)?.producerSequenceNumber == nil)
        for sequenceNumber in UInt16(100)...104 {
            _ = try rewriter.forward(sequenceNumber, 0, at: 0)
        }
        #expect(rewriter.forwardedPacket(forConsumer: 40_002)?.producerSequenceNumber == 102)
        // Not yet forwarded.
        #expect(rewriter.forwardedPacket(forConsumer: 40_005)?.producerSequenceNumber == nil)
        // Before the first packet.
        #expect(rewriter.forwardedPacket(forConsumer: 39_999)?.producerSequenceNumber == nil)

        // Resync requested but the new run has not started: the old mapping still holds.
        rewriter.resync()
        #expect(rewriter.forwardedPacket(forConsumer: 40_004)?.producerSequenceNumber == 104)

        _ = try rewriter.forward(2_000, 0, at: second)  // consumer 40 005
        _ = try rewriter.forward(2_001, 0, at: second)  // consumer 40 006
        #expect(rewriter.forwardedPacket(forConsumer: 40_005)?.producerSequenceNumber == 2_000)
        #expect(rewriter.forwardedPacket(forConsumer: 40_006)?.producerSequenceNumber == 2_001)
        // Predates the current run.
        #expect(rewriter.forwardedPacket(forConsumer: 40_004)?.producerSequenceNumber == nil)
        #expect(rewriter.forwardedPacket(forConsumer: 40_000)?.producerSequenceNumber == nil)
    }

    @Test func retransmissionTimestampsUseTheRunOffset() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 0, timestampOffset: 0)
        _ = try rewriter.forward(1, 3_000, at: 0)
        rewriter.resync()
        let resumed = try rewriter.forward(50, 200_000, at: second)
        #expect(resumed.timestamp == 3_000 + 90_000)
        let offset = try #require(rewriter.forwardedPacket(forConsumer: resumed.sequenceNumber)).timestampOffset
        #expect(203_000 &+ offset == 3_000 + 90_000 + 3_000)
    }

    @Test func senderReportTimestampsExtrapolateFromTheLastPacket() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 0, timestampOffset: 0)
        _ = try rewriter.forward(1, 4_294_000_000, at: 10 * second)
        #expect(rewriter.timestamp(at: 10 * second) == 4_294_000_000)
        #expect(rewriter.timestamp(at: 10 * second + 500 * millisecond) == 4_294_045_000)
        // Wraps the 32-bit timestamp.
        #expect(rewriter.timestamp(at: 20 * second) == 4_294_000_000 &+ 900_000)
        // A pause of 100 hours neither overflows nor loses precision.
        let hundredHours: UInt64 = 100 * 3_600 * second
        #expect(rewriter.timestamp(at: 10 * second + hundredHours) == 4_294_000_000 &+ UInt32(truncatingIfNeeded: UInt64(100 * 3_600) * 90_000))
        // And a resume after it lands on the same extrapolation.
        rewriter.resync()
        let resumed = try rewriter.forward(77, 5, at: 10 * second + hundredHours)
        #expect(resumed.timestamp == rewriter.timestamp(at: 10 * second + hundredHours))
    }

    @Test func randomInitialValuesComeFromTheGenerator() throws {
        var first = SeededGenerator(seed: 3)
        var again = SeededGenerator(seed: 3)
        var a = ConsumerSequenceRewriter(clockRate: 90_000, using: &first)
        var b = ConsumerSequenceRewriter(clockRate: 90_000, using: &again)
        #expect(try a.forward(9, 9, at: 0) == b.forward(9, 9, at: 0))
        #expect(a.lastSequenceNumber == b.lastSequenceNumber)
    }

    @Test func manyPausesKeepTheOutgoingStreamContiguous() throws {
        var random = SeededGenerator(seed: 11)
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, using: &random)
        var producerSequence: UInt16 = .random(in: 0 ... .max, using: &random)
        var producerTimestamp: UInt32 = .random(in: 0 ... .max, using: &random)
        var now: UInt64 = 1
        var previous: (UInt16, UInt32, UInt64)?
        for _ in 0..<200 {
            let paused = Int.random(in: 0..<10, using: &random) == 0
            let step = UInt64.random(in: 1...80, using: &random) * millisecond
            now += step
            producerSequence &+= 1
            producerTimestamp &+= UInt32(step / 1_000_000 * 90)
            if paused {
                // Skip a while of the producer's stream, then resume.
                let skipped = Int.random(in: 1...300, using: &random)
                producerSequence &+= UInt16(skipped)
                producerTimestamp &+= UInt32(skipped) * 3_000
                now += UInt64(skipped) * 33 * millisecond
                rewriter.resync()
            }
            let mapped = try rewriter.forward(producerSequence, producerTimestamp, at: now)
            if let previous {
                #expect(mapped.sequenceNumber == previous.0 &+ 1)
                let elapsedTicks = UInt32((now - previous.2) * 90_000 / second)
                #expect(mapped.timestamp &- previous.1 == elapsedTicks)
            }
            previous = (mapped.sequenceNumber, mapped.timestamp, now)
        }
    }
}

struct ConsumerSequenceRewriterDropTests {
    @Test func droppedPacketsLeaveNoGapAndNACKsStillMapToTheRightPacket() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 1000, timestampOffset: 0)
        rewriter.keepHistory()
        let first = rewriter.rewrite(sequenceNumber: 50, timestamp: 0, now: 0)?.sequenceNumber
        let dropped = [rewriter.drop(sequenceNumber: 51), rewriter.drop(sequenceNumber: 52)]
        let next = [53, 54].map { rewriter.rewrite(sequenceNumber: $0, timestamp: 3000, now: 1)?.sequenceNumber }
        #expect(first == 1000)
        #expect(dropped == [true, true])
        #expect(next == [1001, 1002])
        let mapped = (1000...1003).map { rewriter.forwardedPacket(forConsumer: UInt16($0))?.producerSequenceNumber }
        #expect(mapped == [50, 53, 54, nil])
        // Nothing the router dropped on purpose counts as upstream loss.
        #expect(rewriter.skippedCount == 0)
        // An older packet cannot be dropped seamlessly any more.
        let late = rewriter.drop(sequenceNumber: 52)
        #expect(!late)
    }

    /// A layer switch starts a new run on another encoding: a NACK for a number the previous run
    /// sent still maps to that run's packet, encoding and timestamp offset, and the VP8 picture
    /// numbers it went out with.
    @Test func aNewRunStillMapsNACKsIntoThePreviousOneWithItsEncoding() throws {
        var rewriter = ConsumerSequenceRewriter(clockRate: 90_000, initialSequenceNumber: 1000, timestampOffset: 0)
        rewriter.keepHistory()
        _ = rewriter.rewrite(sequenceNumber: 50, timestamp: 0, encoding: 0, now: 0)
        _ = rewriter.rewrite(sequenceNumber: 51, timestamp: 0, encoding: 0, now: 0)
        rewriter.recordPicture(sequenceNumber: 1001, pictureID: 300, tl0PictureIndex: 7)
        rewriter.resync()
        let switched = rewriter.rewrite(sequenceNumber: 9000, timestamp: 500_000, encoding: 2, now: 1)
        #expect(switched?.sequenceNumber == 1002)
        let current = try #require(rewriter.forwardedPacket(forConsumer: 1002))
        #expect(current.producerSequenceNumber == 9000)
        #expect(current.encoding == 2)
        #expect(500_000 &+ current.timestampOffset == switched?.timestamp)
        let previous = try #require(rewriter.forwardedPacket(forConsumer: 1001))
        #expect(previous == ForwardedPacket(
            sequenceNumber: 1001, producerSequenceNumber: 51, encoding: 0, timestampOffset: 0, pictureID: 300, tl0PictureIndex: 7))
        // Never sent, or too long ago for the history.
        #expect(rewriter.forwardedPacket(forConsumer: 1003) == nil)
        #expect(rewriter.forwardedPacket(forConsumer: 1002 &- UInt16(ConsumerSequenceRewriter.historySize)) == nil)
    }
}
