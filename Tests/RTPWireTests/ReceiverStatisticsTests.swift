import Testing

@testable import RTPWire

@Suite struct ReceiverStatisticsTests {
    /// 8 kHz makes one RTP tick exactly 125 µs, so arrival times convert without rounding.
    static let clockRate: UInt32 = 8_000
    static let ticksPerPacket: UInt32 = 160
    static let nanosecondsPerPacket: UInt64 = 20_000_000
    static let ssrc: UInt32 = 0xCAFE_F00D

    /// Records `sequenceNumber` as if sent every 20 ms with no network delay variation.
    @discardableResult
    func receive(_ statistics: inout ReceiverStatistics, _ sequenceNumber: UInt16, index: Int? = nil) -> ReceiverStatistics.PacketOutcome {
        let position = UInt64(index ?? Int(sequenceNumber))
        return statistics.record(
            sequenceNumber: sequenceNumber,
            rtpTimestamp: 1_000 &+ UInt32(truncatingIfNeeded: position) &* Self.ticksPerPacket,
            arrivalNanoseconds: 5_000_000_000 + position * Self.nanosecondsPerPacket
        )
    }

    /// Makes a report block, failing the test when the source is not valid yet.
    func report(_ statistics: inout ReceiverStatistics, now: UInt64) throws -> RTCPReportBlock {
        let block = statistics.makeReportBlock(ssrc: Self.ssrc, nowNanoseconds: now)
        return try #require(block)
    }

    @Test func inOrderStreamHasNoLoss() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        #expect(statistics.makeReportBlock(ssrc: Self.ssrc, nowNanoseconds: 0) == nil)
        #expect(receive(&statistics, 0) == .onProbation)
        #expect(!statistics.isValid)
        #expect(statistics.makeReportBlock(ssrc: Self.ssrc, nowNanoseconds: 0) == nil)
        #expect(receive(&statistics, 1) == .validated)
        for sequenceNumber in UInt16(2)...99 {
            #expect(receive(&statistics, sequenceNumber) == .accepted)
        }
        // Probation swallows the first packet: counting starts at the second (RFC 3550 A.1).
        #expect(statistics.packetsExpected == 99)
        #expect(statistics.packetsReceived == 99)
        let block = try report(&statistics, now: 7_000_000_000)
        #expect(
            block
                == RTCPReportBlock(
                    ssrc: Self.ssrc,
                    fractionLost: 0,
                    cumulativeLost: 0,
                    extendedHighestSequenceNumber: 99,
                    jitter: 0,
                    lastSenderReport: 0,
                    delaySinceLastSenderReport: 0
                )
        )
    }

    @Test func probationRestartsOnAGapAndPassesAcross65535() {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        #expect(receive(&statistics, 10) == .onProbation)
        #expect(receive(&statistics, 12) == .onProbation)
        #expect(receive(&statistics, 13) == .validated)
        #expect(statistics.packetsExpected == 1)

        var wrapping = ReceiverStatistics(clockRate: Self.clockRate)
        #expect(receive(&wrapping, 65_535) == .onProbation)
        #expect(receive(&wrapping, 0, index: 65_536) == .validated)
        #expect(wrapping.extendedHighestSequenceNumber == 0)
    }

    @Test func droppingEveryTenthPacketReportsFractionLost25() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...9 {
            receive(&statistics, sequenceNumber)
        }
        let first = try report(&statistics, now: 0)
        #expect(first.fractionLost == 0)
        #expect(first.cumulativeLost == 0)

        // 10...109 without 10, 20, ..., 100: expected 100, received 90, lost 10.
        for sequenceNumber in UInt16(10)...109 where sequenceNumber % 10 != 0 {
            #expect(receive(&statistics, sequenceNumber) == .accepted)
        }
        let second = try report(&statistics, now: 0)
        // (10 << 8) / 100 = 2560 / 100 = 25 in integer arithmetic (25.6 truncated).
        #expect(second.fractionLost == 25)
        // Expected since validation: 109 - 1 + 1 = 109; received 9 + 90 = 99.
        #expect(second.cumulativeLost == 10)
        #expect(second.extendedHighestSequenceNumber == 109)

        // A clean interval: fraction back to 0, cumulative loss stays.
        for sequenceNumber in UInt16(110)...119 {
            receive(&statistics, sequenceNumber)
        }
        let third = try report(&statistics, now: 0)
        #expect(third.fractionLost == 0)
        #expect(third.cumulativeLost == 10)
    }

    @Test func fractionLostOfAGapWithinTheDropoutLimit() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...10 {
            receive(&statistics, sequenceNumber)
        }
        #expect(receive(&statistics, 2_000) == .accepted)
        let block = try report(&statistics, now: 0)
        // Expected 1...2000 = 2000, received 11: lost 1989; (1989 << 8) / 2000 = 509184 / 2000 = 254.
        #expect(block.cumulativeLost == 1_989)
        #expect(block.fractionLost == 254)
    }

    @Test func duplicatesMakeCumulativeLostNegative() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...9 {
            receive(&statistics, sequenceNumber)
        }
        #expect(receive(&statistics, 5) == .accepted)
        #expect(receive(&statistics, 6) == .accepted)
        #expect(receive(&statistics, 9) == .accepted)
        #expect(statistics.packetsReceived == 12)
        #expect(statistics.cumulativeLost == -3)
        let block = try report(&statistics, now: 0)
        #expect(block.cumulativeLost == -3)
        #expect(block.fractionLost == 0)
        #expect(block.extendedHighestSequenceNumber == 9)
    }

    @Test func wrapAcross65535CountsACycle() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        var index = 0
        for sequenceNumber in [UInt16(65_530), 65_531, 65_532, 65_533, 65_534, 65_535, 0, 1, 2, 3, 4, 5] {
            receive(&statistics, sequenceNumber, index: index)
            index += 1
        }
        #expect(statistics.extendedHighestSequenceNumber == 0x0001_0005)
        let block = try report(&statistics, now: 0)
        #expect(block.extendedHighestSequenceNumber == 65_541)
        #expect(block.cumulativeLost == 0)
        #expect(statistics.packetsExpected == 11)
    }

    @Test func reorderingWithinMaxMisorderIsNeitherLossNorRestart() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...10 {
            receive(&statistics, sequenceNumber)
        }
        #expect(receive(&statistics, 12) == .accepted)
        #expect(receive(&statistics, 11) == .accepted)
        for sequenceNumber in UInt16(13)...20 {
            receive(&statistics, sequenceNumber)
        }
        #expect(statistics.extendedHighestSequenceNumber == 20)
        #expect(statistics.cumulativeLost == 0)

        // Reordered across the wrap: the late 65535 must not count another cycle.
        var wrapping = ReceiverStatistics(clockRate: Self.clockRate)
        var index = 0
        for sequenceNumber in [UInt16(65_533), 65_534, 0, 65_535, 1] {
            #expect(receive(&wrapping, sequenceNumber, index: index).isAccepted || index == 0)
            index += 1
        }
        #expect(wrapping.extendedHighestSequenceNumber == 0x0001_0001)
        #expect(wrapping.cumulativeLost == 0)
    }

    @Test func aPacketLaterThanMaxMisorderIsRejected() {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...200 {
            receive(&statistics, sequenceNumber)
        }
        // 99 behind is still a late packet; from MAX_MISORDER = 100 behind on, it looks like a jump
        // backwards (RFC 3550 A.1 compares `udelta <= RTP_SEQ_MOD - MAX_MISORDER`).
        #expect(receive(&statistics, 101) == .accepted)
        #expect(receive(&statistics, 100) == .rejectedJump)
        #expect(receive(&statistics, 50) == .rejectedJump)
        #expect(statistics.packetsReceived == 201)
        #expect(statistics.extendedHighestSequenceNumber == 200)
    }

    @Test func aBigJumpThenTwoSequentialPacketsRestartsTheSequence() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...10 {
            receive(&statistics, sequenceNumber)
        }
        #expect(receive(&statistics, 5_000) == .rejectedJump)
        #expect(statistics.extendedHighestSequenceNumber == 10)
        #expect(receive(&statistics, 5_001) == .restarted)
        #expect(receive(&statistics, 5_002) == .accepted)
        #expect(statistics.extendedHighestSequenceNumber == 5_002)
        #expect(statistics.packetsExpected == 2)
        #expect(statistics.packetsReceived == 2)
        let block = try report(&statistics, now: 0)
        #expect(block.cumulativeLost == 0)
        #expect(block.fractionLost == 0)
        #expect(block.jitter == 0)
    }

    @Test func aBigJumpNotConfirmedByTheNextPacketIsIgnored() {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...10 {
            receive(&statistics, sequenceNumber)
        }
        #expect(receive(&statistics, 5_000) == .rejectedJump)
        #expect(receive(&statistics, 9_000) == .rejectedJump)
        #expect(receive(&statistics, 11) == .accepted)
        #expect(statistics.extendedHighestSequenceNumber == 11)
        #expect(statistics.packetsReceived == 11)
        #expect(statistics.cumulativeLost == 0)
    }

    @Test func cumulativeLostClampsTo24Bits() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        receive(&statistics, 0)
        receive(&statistics, 1)
        // Gaps of 2999 stay within MAX_DROPOUT: 2998 lost each, 8 994 000 in all, above 2^23 - 1.
        var sequenceNumber: UInt16 = 1
        for _ in 0..<3_000 {
            sequenceNumber &+= 2_999
            #expect(receive(&statistics, sequenceNumber) == .accepted)
        }
        #expect(statistics.cumulativeLost == 8_994_000)
        let block = try report(&statistics, now: 0)
        #expect(block.cumulativeLost == 0x7F_FFFF)
        #expect(block.extendedHighestSequenceNumber == UInt32(1 + 3_000 * 2_999))
        #expect(RTCPReportBlock.clampCumulativeLost(-9_000_000) == -0x80_0000)
        #expect(RTCPReportBlock.clampCumulativeLost(-12) == -12)
    }

    @Test func constantTransitGivesZeroJitterEvenAcrossTimestampWrap() throws {
        var statistics = ReceiverStatistics(clockRate: 90_000)
        // 90 kHz, 1800 ticks per 20 ms frame; timestamps wrap after the 3rd packet.
        for index in 0..<50 {
            statistics.record(
                sequenceNumber: UInt16(index),
                rtpTimestamp: (UInt32.max - 5_000) &+ UInt32(index) * 1_800,
                arrivalNanoseconds: 1_000_000_000 + UInt64(index) * 20_000_000
            )
        }
        #expect(statistics.jitter == 0)
        #expect(try report(&statistics, now: 0).jitter == 0)
    }

    @Test func alternatingTransitFollowsTheRFCFormula() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        // Every odd packet arrives 4 ms late: 4 ms at 8 kHz is 32 ticks, so |D| = 32 for every
        // packet after the first, and J += (32 - J) / 16.
        func arrive(_ index: Int) {
            statistics.record(
                sequenceNumber: UInt16(index),
                rtpTimestamp: 7_777 + UInt32(index) * Self.ticksPerPacket,
                arrivalNanoseconds: UInt64(index) * Self.nanosecondsPerPacket + (index % 2 == 1 ? 4_000_000 : 0)
            )
        }
        arrive(0)
        #expect(statistics.jitter == 0)
        arrive(1)
        #expect(statistics.jitter == 2)  // 0 + (32 - 0) / 16
        arrive(2)
        #expect(statistics.jitter == 3.875)  // 2 + (32 - 2) / 16 = 2 + 1.875
        arrive(3)
        #expect(statistics.jitter == 5.6328125)  // 3.875 + 28.125 / 16 = 3.875 + 1.7578125
        arrive(4)
        #expect(statistics.jitter == 7.28076171875)  // 5.6328125 + 26.3671875 / 16 = 5.6328125 + 1.64794921875
        let block = try report(&statistics, now: 0)
        #expect(block.jitter == 7)
    }

    @Test func rejectedPacketsDoNotDisturbJitter() {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        for sequenceNumber in UInt16(0)...10 {
            receive(&statistics, sequenceNumber)
        }
        statistics.record(sequenceNumber: 30_000, rtpTimestamp: 123, arrivalNanoseconds: 9_999_999_999)
        receive(&statistics, 11)
        #expect(statistics.jitter == 0)
    }

    @Test func reportCarriesLastSenderReportAndDelaySinceIt() throws {
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        receive(&statistics, 0)
        receive(&statistics, 1)
        let before = try report(&statistics, now: 2_000_000_000)
        #expect(before.lastSenderReport == 0)
        #expect(before.delaySinceLastSenderReport == 0)

        statistics.recordSenderReport(ntpTimestamp: 0x1234_5678_9ABC_DEF0, arrivalNanoseconds: 1_000_000_000)
        #expect(statistics.lastSenderReport == 0x5678_9ABC)
        let block = try report(&statistics, now: 1_500_000_000)
        #expect(block.ssrc == Self.ssrc)
        #expect(block.lastSenderReport == 0x5678_9ABC)
        // 0.5 s = 32768 / 65536 s.
        #expect(block.delaySinceLastSenderReport == 0x8000)

        // 2.25 s later: 2 * 65536 + 16384.
        let later = try report(&statistics, now: 3_250_000_000)
        #expect(later.delaySinceLastSenderReport == 0x0002_4000)

        // A clock that appears to run backwards gives no delay rather than a huge one.
        let backwards = try report(&statistics, now: 10)
        #expect(backwards.delaySinceLastSenderReport == 0)
    }

    @Test func roundTripTimeAsTheSenderSeesIt() {
        // A = 5 s, LSR = 3 s, DLSR = 1 s: RTT = 1 s.
        #expect(
            ReceiverStatistics.roundTripTime(
                arrivalCompactNTP: 0x0005_0000, lastSenderReport: 0x0003_0000, delaySinceLastSenderReport: 0x0001_0000
            ) == 0x0001_0000
        )
        // Compact NTP wraps between the sender report and the receiver report:
        // A - LSR = 0x0000C000 - 0xFFFF0000 = 0x0001C000 (1.75 s); minus DLSR 0.5 s = 1.25 s.
        #expect(
            ReceiverStatistics.roundTripTime(
                arrivalCompactNTP: 0x0000_C000, lastSenderReport: 0xFFFF_0000, delaySinceLastSenderReport: 0x0000_8000
            ) == 0x0001_4000
        )
        #expect(
            ReceiverStatistics.roundTripDuration(
                arrivalCompactNTP: 0x0000_C000, lastSenderReport: 0xFFFF_0000, delaySinceLastSenderReport: 0x0000_8000
            ) == .milliseconds(1_250)
        )
        // No sender report seen by the receiver yet.
        #expect(
            ReceiverStatistics.roundTripTime(
                arrivalCompactNTP: 0x0005_0000, lastSenderReport: 0, delaySinceLastSenderReport: 0
            ) == nil
        )
        #expect(
            ReceiverStatistics.roundTripDuration(
                arrivalCompactNTP: 0x0005_0000, lastSenderReport: 0, delaySinceLastSenderReport: 0x1234
            ) == nil
        )
        // A receiver claiming more delay than elapsed: clamped to 0, not an 18-hour RTT.
        #expect(
            ReceiverStatistics.roundTripTime(
                arrivalCompactNTP: 0x0005_0000, lastSenderReport: 0x0004_0000, delaySinceLastSenderReport: 0x0002_0000
            ) == 0
        )
    }

    @Test func roundTripTimeFromAReportBlockEndToEnd() throws {
        // The receiver gets an SR stamped NTP 100.25 s at its local time 50 s and reports 0.75 s later.
        var statistics = ReceiverStatistics(clockRate: Self.clockRate)
        receive(&statistics, 0)
        receive(&statistics, 1)
        let senderReportNTP = ReceiverStatistics.ntpTimestamp(nanosecondsSinceNTPEpoch: 100_250_000_000)
        statistics.recordSenderReport(ntpTimestamp: senderReportNTP, arrivalNanoseconds: 50_000_000_000)
        let block = try report(&statistics, now: 50_750_000_000)
        #expect(block.lastSenderReport == 0x0064_4000)
        #expect(block.delaySinceLastSenderReport == 0x0000_C000)
        // The RR reaches the sender at its NTP 101.125 s: 0.875 s after the SR, 0.125 s of it in flight.
        let arrival = ReceiverStatistics.compactNTP(
            fromNTPTimestamp: ReceiverStatistics.ntpTimestamp(nanosecondsSinceNTPEpoch: 101_125_000_000)
        )
        #expect(block.roundTripTime(arrivalCompactNTP: arrival) == 0x2000)
    }

    @Test func ntpConversions() {
        #expect(ReceiverStatistics.compactNTP(fromNTPTimestamp: 0x1234_5678_9ABC_DEF0) == 0x5678_9ABC)
        #expect(
            ReceiverStatistics.ntpTimestamp(fromCompactNTP: 0x5678_9ABC, nearest: 0x1234_5600_0000_0000)
                == 0x1234_5678_9ABC_0000
        )
        // Nearest across a wrap of the compact seconds, forwards and backwards.
        #expect(
            ReceiverStatistics.ntpTimestamp(fromCompactNTP: 0x0001_0000, nearest: 0x1234_FFFF_0000_0000)
                == 0x1235_0001_0000_0000
        )
        #expect(
            ReceiverStatistics.ntpTimestamp(fromCompactNTP: 0xFFFF_0000, nearest: 0x1235_0001_0000_0000)
                == 0x1234_FFFF_0000_0000
        )
        #expect(ReceiverStatistics.ntpTimestamp(nanosecondsSinceNTPEpoch: 1_500_000_000) == 0x0000_0001_8000_0000)
        #expect(ReceiverStatistics.compactNTPInterval(nanoseconds: 1_500_000_000) == 0x0001_8000)
        #expect(ReceiverStatistics.compactNTPInterval(nanoseconds: 65_536 * 1_000_000_000) == .max)
        #expect(ReceiverStatistics.compactNTPInterval(nanoseconds: .max) == .max)
        #expect(ReceiverStatistics.nanoseconds(fromCompactNTPInterval: 0x0001_4000) == 1_250_000_000)
        #expect(ReceiverStatistics.nanoseconds(fromCompactNTPInterval: .max) == 65_535_999_984_741)
    }

    @Test func arrivalTimeConvertsToRTPUnitsWithoutOverflow() {
        #expect(ReceiverStatistics.rtpUnits(nanoseconds: 1_000_000_000, clockRate: 90_000) == 90_000)
        #expect(ReceiverStatistics.rtpUnits(nanoseconds: 20_000_000, clockRate: 48_000) == 960)
        // Hundreds of years of uptime still convert (modulo 2^32) without trapping.
        let huge = ReceiverStatistics.rtpUnits(nanoseconds: .max, clockRate: .max)
        #expect(huge == huge)
        #expect(ReceiverStatistics.rtpUnits(nanoseconds: 12_345, clockRate: 0) == 0)
    }
}
