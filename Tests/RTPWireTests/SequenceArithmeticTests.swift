import Testing

@testable import RTPWire

@Suite struct SequenceArithmeticTests {
    @Test func newerAcrossWrap() {
        #expect(SequenceArithmetic.isNewer(UInt16(2), than: UInt16(65530)))
        #expect(!SequenceArithmetic.isNewer(UInt16(65530), than: UInt16(2)))
        #expect(!SequenceArithmetic.isNewer(UInt16(7), than: UInt16(7)))
        #expect(SequenceArithmetic.isNewer(UInt32(5), than: UInt32.max))
        #expect(SequenceArithmetic.isNewer(UInt16(0x7FFF), than: UInt16(0)))
        #expect(!SequenceArithmetic.isNewer(UInt16(0x8000), than: UInt16(0)))
    }

    @Test func signedDistance() {
        #expect(SequenceArithmetic.distance(from: UInt16(65535), to: UInt16(1)) == 2)
        #expect(SequenceArithmetic.distance(from: UInt16(1), to: UInt16(65535)) == -2)
        #expect(SequenceArithmetic.distance(from: UInt32(10), to: UInt32(4)) == -6)
    }

    @Test func unwrapsForwardAcrossSeveralWraps() {
        var unwrapper = SequenceNumberUnwrapper()
        #expect(unwrapper.unwrap(65_000) == 65_000)
        var expected: Int64 = 65_000
        var value: UInt16 = 65_000
        for _ in 0..<200_000 {
            value &+= 7
            expected += 7
            #expect(unwrapper.unwrap(value) == expected)
        }
        #expect(expected > 3 * 65_536)
    }

    @Test func unwrapsReorderedPacketBeforeTheWrap() {
        var unwrapper = SequenceNumberUnwrapper()
        _ = unwrapper.unwrap(65_534)
        #expect(unwrapper.unwrap(1) == 65_537)
        #expect(unwrapper.unwrap(65_535) == 65_535)
        #expect(unwrapper.unwrap(2) == 65_538)
    }

    @Test func unwrapsTimestamps() {
        var unwrapper = TimestampUnwrapper()
        _ = unwrapper.unwrap(UInt32.max - 100)
        #expect(unwrapper.unwrap(500) == Int64(UInt32.max) + 501)
        #expect(unwrapper.peek(400) == Int64(UInt32.max) + 401)
        #expect(unwrapper.lastUnwrapped == Int64(UInt32.max) + 501)
    }
}
