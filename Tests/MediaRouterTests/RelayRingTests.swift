import Dispatch
import Foundation
import Testing

@testable import MediaRouter

/// The single-producer / single-consumer ring between two workers, as a pure structure.
@Suite struct RelayRingTests {
    private func push(_ ring: RelayRing, _ value: UInt8, producer: UInt64 = 7, count: Int = 3) -> Bool {
        let bytes = [UInt8](repeating: value, count: count)
        return bytes.withUnsafeBytes { ring.push(kind: .media, producer: producer, encoding: value % 3, flag: value % 2 == 0, payload: $0) }
    }

    private func drain(_ ring: RelayRing) -> [(producer: UInt64, encoding: UInt8, flag: Bool, bytes: [UInt8])] {
        var seen: [(UInt64, UInt8, Bool, [UInt8])] = []
        ring.drain { message in seen.append((message.producer, message.encoding, message.flag, Array(message.payload))) }
        return seen
    }

    @Test func anEmptyRingHasNothingToRead() {
        let ring = RelayRing(capacity: 16)
        #expect(ring.depth == 0)
        #expect(drain(ring).isEmpty)
        #expect(ring.drops == 0)
    }

    @Test func messagesComeOutInOrderWithEverythingTheyCarried() {
        let ring = RelayRing(capacity: 16)
        for value in UInt8(1)...5 { #expect(push(ring, value, producer: UInt64(value) << 40)) }
        #expect(ring.depth == 5)
        let seen = drain(ring)
        #expect(seen.map(\.producer) == (UInt64(1)...5).map { $0 << 40 })
        #expect(seen.map(\.encoding) == [1, 2, 0, 1, 2])
        #expect(seen.map(\.flag) == [false, true, false, true, false])
        #expect(seen.map(\.bytes) == (UInt8(1)...5).map { [UInt8](repeating: $0, count: 3) })
        #expect(ring.depth == 0)
    }

    @Test func aFullRingRefusesAndCountsInsteadOfWaiting() {
        let ring = RelayRing(capacity: 16)
        for value in 0..<16 { #expect(push(ring, UInt8(value))) }
        #expect(!push(ring, 99))
        #expect(!push(ring, 100))
        #expect(ring.drops == 2)
        // What was in it is intact, and reading frees room again.
        #expect(drain(ring).map { $0.bytes[0] } == (0..<16).map { UInt8($0) })
        #expect(push(ring, 101))
        #expect(drain(ring).map { $0.bytes[0] } == [101])
    }

    @Test func indicesWrapAroundTheSlotsManyTimesOver() {
        let ring = RelayRing(capacity: 16)
        var expected: UInt8 = 0
        var next: UInt8 = 0
        for round in 0..<100 {
            for _ in 0..<(round % 13 + 1) {
                #expect(push(ring, next))
                next &+= 1
            }
            for message in drain(ring) {
                #expect(message.bytes[0] == expected)
                expected &+= 1
            }
        }
        #expect(expected == next)
        #expect(ring.drops == 0)
    }

    @Test func aPayloadLargerThanASlotIsRefused() {
        let ring = RelayRing(capacity: 16)
        #expect(!push(ring, 1, count: RelayRing.payloadCapacity + 1))
        #expect(push(ring, 1, count: RelayRing.payloadCapacity))
        #expect(drain(ring).first?.bytes.count == RelayRing.payloadCapacity)
        #expect(ring.drops == 1)
    }

    @Test func capacityRoundsUpToAPowerOfTwo() {
        #expect(RelayRing(capacity: 100).capacity == 128)
        #expect(RelayRing(capacity: 1024).capacity == 1024)
    }

    /// Two threads, one each side, as the workers use it: every message arrives once, in order.
    @Test func oneWriterAndOneReaderOnTwoThreadsAgreeOnEveryMessage() {
        let ring = RelayRing(capacity: 64)
        let total = 200_000
        let written = DispatchSemaphore(value: 0)
        // A thread of its own, as a worker is, rather than a task that might wait for a free pool thread.
        Thread.detachNewThread {
            var value = 0
            while value < total {
                if withUnsafeBytes(of: UInt32(value), { ring.push(kind: .media, producer: 1, encoding: 0, payload: $0) }) { value += 1 }
            }
            written.signal()
        }
        var expected: UInt32 = 0
        var outOfOrder = 0
        while expected < UInt32(total) {
            ring.drain { message in
                let value = message.payload.loadUnaligned(as: UInt32.self)
                if value != expected { outOfOrder += 1 }
                expected = value + 1
            }
        }
        written.wait()
        #expect(outOfOrder == 0)
        #expect(expected == UInt32(total))
    }
}
