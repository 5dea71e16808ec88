import Testing
import TestSupport

@testable import MediaRouter

/// A packet whose bytes say which sequence number it carries, so a lookup can tell packets apart.
private func packetBytes(_ sequenceNumber: UInt16, length: Int = 100) -> [UInt8] {
    (0..<length).map { UInt8(truncatingIfNeeded: Int(sequenceNumber) &+ $0) }
}

private let millisecond: UInt64 = 1_000_000

@discardableResult
private func store(_ buffer: RetransmissionBuffer, _ sequenceNumber: UInt16, length: Int = 100, now: UInt64 = 0) -> Bool {
    packetBytes(sequenceNumber, length: length).withUnsafeBytes {
        buffer.store($0, sequenceNumber: sequenceNumber, now: now)
    }
}

private func lookup(_ buffer: RetransmissionBuffer, _ sequenceNumber: UInt16, now: UInt64 = 0) -> [UInt8]? {
    buffer.packet(sequenceNumber: sequenceNumber, now: now).map { Array($0) }
}

@Suite struct RetransmissionBufferTests {
    @Test func storesAndFindsPacketsAcrossTheSequenceWrap() {
        let buffer = RetransmissionBuffer(capacity: 16)
        let sequenceNumbers: [UInt16] = [65_530, 65_531, 65_532, 65_533, 65_534, 65_535, 0, 1, 2, 3, 4, 5]
        for sequenceNumber in sequenceNumbers {
            #expect(store(buffer, sequenceNumber, length: 60 + Int(sequenceNumber % 7)))
        }
        for sequenceNumber in sequenceNumbers {
            #expect(lookup(buffer, sequenceNumber) == packetBytes(sequenceNumber, length: 60 + Int(sequenceNumber % 7)))
        }
        #expect(lookup(buffer, 6) == nil)
        #expect(buffer.storedCount == 12)
        #expect(buffer.hitCount == 12)
        #expect(buffer.missCount == 1)
    }

    @Test func aLostPacketDoesNotGetTheAnswerOfTheSlotOneRingEarlier() {
        let buffer = RetransmissionBuffer(capacity: 16)
        for sequenceNumber in UInt16(0)..<16 { store(buffer, sequenceNumber) }
        // 16 shares slot 0 with 0, but was lost: its slot still holds packet 0.
        for sequenceNumber in UInt16(17)..<20 { store(buffer, sequenceNumber) }
        #expect(lookup(buffer, 16) == nil)
        #expect(lookup(buffer, 17) == packetBytes(17))
    }

    @Test func aSlotUntouchedForAWholeSixteenBitWrapDoesNotAnswer() {
        let buffer = RetransmissionBuffer(capacity: 16)
        store(buffer, 5)
        // Go once around the 16-bit space, never writing slot 5 again.
        var sequenceNumber: UInt16 = 6
        for _ in 0..<65_536 {
            if sequenceNumber & 15 != 5 { store(buffer, sequenceNumber) }
            sequenceNumber &+= 1
        }
        #expect(lookup(buffer, 5) == nil)
        #expect(lookup(buffer, 4) == packetBytes(4))
    }

    @Test func packetsOlderThanMaxAgeAreNotReturned() {
        let buffer = RetransmissionBuffer(capacity: 16, maxAge: 500 * millisecond)
        store(buffer, 1, now: 1_000 * millisecond)
        #expect(lookup(buffer, 1, now: 1_499 * millisecond) == packetBytes(1))
        #expect(lookup(buffer, 1, now: 1_500 * millisecond) == nil)
    }

    @Test func defaultMaxAgeIsOneSecond() {
        let buffer = RetransmissionBuffer(capacity: 8)
        store(buffer, 1, now: 0)
        #expect(lookup(buffer, 1, now: 999 * millisecond) != nil)
        #expect(lookup(buffer, 1, now: 1_000 * millisecond) == nil)
    }

    @Test func packetsLongerThanASlotAreCountedAndNotStored() {
        let buffer = RetransmissionBuffer(capacity: 8)
        #expect(buffer.slotSize == 1536)
        #expect(!store(buffer, 1, length: 1537))
        #expect(buffer.oversizedCount == 1)
        #expect(lookup(buffer, 1) == nil)
        #expect(store(buffer, 2, length: 1536))
        #expect(lookup(buffer, 2) == packetBytes(2, length: 1536))
    }

    @Test func aVeryLateArrivalDoesNotEvictTheNewerPacketInItsSlot() {
        let buffer = RetransmissionBuffer(capacity: 16)
        store(buffer, 20)
        #expect(!store(buffer, 4))
        #expect(buffer.supersededCount == 1)
        #expect(lookup(buffer, 20) == packetBytes(20))
        #expect(lookup(buffer, 4) == nil)
    }

    @Test func aRetransmittedDuplicateReplacesItself() {
        let buffer = RetransmissionBuffer(capacity: 16)
        store(buffer, 3, length: 50)
        store(buffer, 3, length: 70, now: 10)
        #expect(lookup(buffer, 3, now: 10) == packetBytes(3, length: 70))
    }

    @Test func emptyBufferAnswersNothing() {
        let buffer = RetransmissionBuffer(capacity: 4)
        for sequenceNumber: UInt16 in [0, 1, 2, 3, 65_535] {
            #expect(lookup(buffer, sequenceNumber) == nil)
        }
    }

    @Test func slotsStartOnCacheLines() throws {
        let buffer = RetransmissionBuffer(capacity: 8)
        for sequenceNumber in UInt16(0)..<8 {
            store(buffer, sequenceNumber)
            let stored = try #require(buffer.packet(sequenceNumber: sequenceNumber, now: 0))
            #expect(Int(bitPattern: stored.baseAddress) % RetransmissionBuffer.slotAlignment == 0)
        }
    }

    @Test func randomizedStreamMatchesAModelOfTheLastCapacityPackets() {
        var generator = SeededGenerator(seed: 42)
        let capacity = 64
        let buffer = RetransmissionBuffer(capacity: capacity)
        var sequenceNumber: UInt16 = 65_000
        var newest: [UInt16: Int] = [:]  // sequence number -> length, for the last `capacity` numbers
        for step in 0..<5_000 {
            sequenceNumber &+= 1
            // Drop about 10 % to leave lost packets in the ring.
            let lost = Int.random(in: 0..<10, using: &generator) == 0
            let length = Int.random(in: 12...1500, using: &generator)
            if !lost {
                store(buffer, sequenceNumber, length: length, now: UInt64(step))
                newest[sequenceNumber] = length
            }
            newest[sequenceNumber &- UInt16(capacity)] = nil
            if !lost {
                #expect(lookup(buffer, sequenceNumber, now: UInt64(step)) == packetBytes(sequenceNumber, length: length))
            }
        }
        for back in 0..<UInt16(capacity) {
            let probe = sequenceNumber &- back
            #expect(lookup(buffer, probe, now: 5_000) == newest[probe].map { packetBytes(probe, length: $0) })
        }
    }
}
