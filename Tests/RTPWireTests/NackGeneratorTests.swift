import Testing
@testable import RTPWire
import TestSupport


private let millisecond: UInt64 = 1_000_000

extension NackGenerator {
    /// The sequence numbers one `collect` hands out, in order.
    fileprivate mutating func due(now: UInt64, roundTripTime: UInt64? = nil) -> [UInt16] {
        var result: [UInt16] = []
        collect(now: now, roundTripTime: roundTripTime) { result.append($0) }
        return result
    }

    fileprivate mutating func receive(_ sequenceNumbers: [UInt16], now: UInt64) {
        for sequenceNumber in sequenceNumbers { received(sequenceNumber: sequenceNumber, now: now) }
    }
}

@Suite struct NackGeneratorTests {
    @Test func aGapOfThreeIsNackedOnceThenRetriedAfterTheInterval() {
        var generator = NackGenerator()
        generator.receive([100, 104], now: 0)
        #expect(generator.missingCount == 3)
        // Within the reorder delay nothing is due.
        #expect(generator.due(now: 9 * millisecond) == [])
        #expect(generator.due(now: 10 * millisecond) == [101, 102, 103])
        #expect(generator.due(now: 11 * millisecond) == [])
        // Unknown RTT: retries are spaced by the assumed 100 ms.
        #expect(generator.due(now: 109 * millisecond) == [])
        #expect(generator.due(now: 110 * millisecond) == [101, 102, 103])
        #expect(generator.nackedCount == 6)
    }

    @Test func retriesAreSpacedByTheRoundTripTimeButNeverLessThanTheFloor() {
        var generator = NackGenerator(reorderDelay: 0)
        generator.receive([1, 3], now: 0)
        #expect(generator.due(now: 0, roundTripTime: 70 * millisecond) == [2])
        #expect(generator.due(now: 69 * millisecond, roundTripTime: 70 * millisecond) == [])
        #expect(generator.due(now: 70 * millisecond, roundTripTime: 70 * millisecond) == [2])
        // A 5 ms RTT is raised to the 40 ms floor.
        #expect(generator.due(now: 109 * millisecond, roundTripTime: 5 * millisecond) == [])
        #expect(generator.due(now: 110 * millisecond, roundTripTime: 5 * millisecond) == [2])
    }

    @Test func aLateArrivalRemovesItsNumber() {
        var generator = NackGenerator()
        generator.receive([100, 104], now: 0)
        #expect(generator.due(now: 10 * millisecond) == [101, 102, 103])
        generator.received(sequenceNumber: 102, now: 30 * millisecond)
        #expect(generator.recoveredCount == 1)
        #expect(generator.missingCount == 2)
        #expect(!generator.isMissing(102))
        #expect(generator.isMissing(101))
        #expect(generator.due(now: 110 * millisecond) == [101, 103])
        // A second copy of a recovered packet is not recovered twice.
        generator.received(sequenceNumber: 102, now: 120 * millisecond)
        #expect(generator.recoveredCount == 1)
    }

    @Test func theReorderDelayKeepsMereReorderingFromBeingNacked() {
        var generator = NackGenerator(reorderDelay: 10 * millisecond)
        generator.receive([10, 12], now: 0)
        generator.received(sequenceNumber: 11, now: 5 * millisecond)
        #expect(generator.due(now: 10 * millisecond) == [])
        #expect(generator.due(now: 500 * millisecond) == [])
        #expect(generator.nackedCount == 0)
        #expect(generator.recoveredCount == 1)
    }

    @Test func aZeroReorderDelayNacksRightAway() {
        var generator = NackGenerator(reorderDelay: 0)
        generator.receive([10, 12], now: 7)
        #expect(generator.due(now: 7) == [11])
    }

    @Test func retriesAreCappedAndThenTheNumberIsAbandoned() {
        var generator = NackGenerator(reorderDelay: 0, maxRetries: 3, maxAge: 10_000 * millisecond)
        generator.receive([1, 3], now: 0)
        let rtt = 50 * millisecond
        var sent = 0
        for tick in 0..<40 {
            sent += generator.due(now: UInt64(tick) * 10 * millisecond, roundTripTime: rtt).count
        }
        #expect(sent == 3)
        #expect(generator.abandonedCount == 1)
        #expect(generator.missingCount == 0)
        #expect(!generator.isMissing(2))
    }

    @Test func theLastNackGetsAFullIntervalBeforeAbandonment() {
        var generator = NackGenerator(reorderDelay: 0, maxRetries: 2, maxAge: 10_000 * millisecond)
        generator.receive([1, 3], now: 0)
        let rtt = 50 * millisecond
        #expect(generator.due(now: 0, roundTripTime: rtt) == [2])
        #expect(generator.due(now: 50 * millisecond, roundTripTime: rtt) == [2])
        #expect(generator.due(now: 99 * millisecond, roundTripTime: rtt) == [])
        #expect(generator.abandonedCount == 0)
        #expect(generator.due(now: 100 * millisecond, roundTripTime: rtt) == [])
        #expect(generator.abandonedCount == 1)
    }

    @Test func entriesOlderThanMaxAgeExpire() {
        var generator = NackGenerator(maxAge: 200 * millisecond)
        generator.receive([1, 3], now: 0)
        #expect(generator.due(now: 10 * millisecond) == [2])
        #expect(generator.due(now: 200 * millisecond) == [2])
        #expect(generator.due(now: 201 * millisecond) == [])
        #expect(generator.expiredCount == 1)
        #expect(generator.missingCount == 0)
    }

    @Test func aJumpBiggerThanMaxMissingRestartsWithoutNacking() {
        var generator = NackGenerator(maxMissing: 256, reorderDelay: 0)
        generator.receive([1_000, 1_002], now: 0)
        #expect(generator.missingCount == 1)
        // 257 numbers skipped.
        generator.received(sequenceNumber: 1_002 + 258, now: 0)
        #expect(generator.restartCount == 1)
        #expect(generator.missingCount == 0)
        #expect(generator.due(now: 0) == [])
        // Tracking goes on from the new position.
        generator.received(sequenceNumber: 1_002 + 260, now: 0)
        #expect(generator.due(now: 0) == [1_002 + 259])
    }

    @Test func aJumpOfExactlyMaxMissingIsStillNacked() {
        var generator = NackGenerator(maxMissing: 256, reorderDelay: 0, maxNacksPerCollect: 1_000)
        generator.receive([0, 257], now: 0)
        #expect(generator.restartCount == 0)
        #expect(generator.due(now: 0) == Array(UInt16(1)...256))
    }

    @Test func atMostMaxNacksPerCollectAreHandedOutOldestFirst() {
        var generator = NackGenerator(reorderDelay: 0, maxNacksPerCollect: 4)
        generator.receive([0, 11], now: 0)
        #expect(generator.due(now: 0) == [1, 2, 3, 4])
        #expect(generator.due(now: 1) == [5, 6, 7, 8])
        #expect(generator.due(now: 2) == [9, 10])
        #expect(generator.due(now: 3) == [])
        #expect(generator.rateLimitedCount == 6 + 2)
    }

    @Test func theDefaultRateLimitIsSixtyFour() {
        var generator = NackGenerator(reorderDelay: 0)
        generator.receive([0, 101], now: 0)
        #expect(generator.due(now: 0).count == 64)
        #expect(generator.due(now: 0).count == 36)
    }

    @Test func gapsAcrossTheSequenceWrapAreFound() {
        var generator = NackGenerator(reorderDelay: 0)
        generator.receive([65_533, 65_534, 1], now: 0)
        #expect(generator.due(now: 0) == [65_535, 0])
        generator.received(sequenceNumber: 0, now: 1)
        #expect(generator.missingCount == 1)
        #expect(generator.isMissing(65_535))
    }

    @Test func whenFullTheOldestMissingNumbersAreEvicted() {
        var generator = NackGenerator(maxMissing: 8, reorderDelay: 0)
        generator.receive([0, 6], now: 0)  // 1...5 missing
        generator.receive([12], now: 0)  // 7...11 missing: two too many
        #expect(generator.evictedCount == 2)
        #expect(generator.missingCount == 8)
        #expect(generator.due(now: 0) == [3, 4, 5, 7, 8, 9, 10, 11])
    }

    @Test func recoveredEntriesMakeRoomBeforeAnythingIsEvicted() {
        var generator = NackGenerator(maxMissing: 8, reorderDelay: 0)
        generator.receive([0, 6], now: 0)  // 1...5 missing
        generator.receive([1, 2], now: 0)
        generator.receive([12], now: 0)  // 7...11 missing: fits once 1 and 2 are compacted away
        #expect(generator.evictedCount == 0)
        #expect(generator.due(now: 0) == [3, 4, 5, 7, 8, 9, 10, 11])
    }

    @Test func aStreamRestartingLowerIsFollowedAfterTwoPacketsInARow() {
        var generator = NackGenerator(reorderDelay: 0)
        generator.receive([5_000, 5_001], now: 0)
        // One stray very old packet changes nothing.
        generator.received(sequenceNumber: 100, now: 0)
        #expect(generator.restartCount == 0)
        generator.received(sequenceNumber: 5_003, now: 0)
        #expect(generator.due(now: 0) == [5_002])
        // Two in a row far behind: the sender restarted lower.
        generator.receive([200, 201], now: 1)
        #expect(generator.restartCount == 1)
        #expect(generator.missingCount == 0)
        generator.received(sequenceNumber: 203, now: 2)
        #expect(generator.due(now: 2) == [202])
    }

    @Test func duplicatesAndTheFirstPacketAddNothing() {
        var generator = NackGenerator(reorderDelay: 0)
        generator.receive([9, 9, 10, 10, 11], now: 0)
        #expect(generator.missingCount == 0)
        #expect(generator.due(now: 0) == [])
    }

    @Test func randomLossWithoutRecoveryIsNackedExactlyMaxRetriesTimes() {
        var random = SeededGenerator(seed: 7)
        var generator = NackGenerator(reorderDelay: 0, maxRetries: 4, maxAge: 60_000 * millisecond, maxNacksPerCollect: 1_000)
        var lost: Set<UInt16> = []
        var nacks: [UInt16: Int] = [:]
        var sequenceNumber: UInt16 = 65_000
        var lastReceived = sequenceNumber
        var now: UInt64 = 0
        generator.received(sequenceNumber: sequenceNumber, now: now)
        for _ in 0..<2_000 {
            sequenceNumber &+= 1
            now += 5 * millisecond
            if Int.random(in: 0..<20, using: &random) == 0 {
                lost.insert(sequenceNumber)
            } else {
                generator.received(sequenceNumber: sequenceNumber, now: now)
                lastReceived = sequenceNumber
            }
            generator.collect(now: now, roundTripTime: 30 * millisecond) { nacks[$0, default: 0] += 1 }
        }
        for _ in 0..<100 {
            now += 10 * millisecond
            generator.collect(now: now, roundTripTime: 30 * millisecond) { nacks[$0, default: 0] += 1 }
        }
        // A loss is only seen once a later packet arrives.
        let detectable = lost.filter { SequenceArithmetic.isNewer(lastReceived, than: $0) }
        #expect(Set(nacks.keys) == detectable)
        #expect(nacks.values.allSatisfy { $0 == 4 })
        #expect(generator.abandonedCount == detectable.count)
        #expect(generator.missingCount == 0)
    }
}

