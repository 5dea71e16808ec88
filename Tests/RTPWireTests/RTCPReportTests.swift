import Testing
import TestSupport

@testable import RTPWire

@Suite struct RTCPReportTests {
    // SR, SSRC 0x12345678, one report block.
    let senderReportGolden = hexBytes(
        """
        81 C8 00 0C   # V=2,P=0,RC=1 -> 10 0 00001 = 0x81; PT=200; 52 bytes = 13 words -> length 12
        12 34 56 78   # SSRC of sender
        E5 A2 3B 4C   # NTP seconds
        80 00 00 00   # NTP fraction (0.5 s)
        00 01 E2 40   # RTP timestamp 123456
        00 00 03 E8   # sender's packet count 1000
        00 02 71 00   # sender's octet count 160000
        9A BC DE F0   # block: SSRC_1
        40 00 00 05   # fraction lost 0x40 (1/4), cumulative lost 5
        00 01 02 03   # extended highest sequence number: cycles 1, seq 0x0203
        00 00 00 11   # jitter 17
        A2 3B 4C 80   # LSR
        00 01 80 00   # DLSR 1.5 s in 1/65536 s
        """)

    let senderReportBlock = RTCPReportBlock(
        ssrc: 0x9ABC_DEF0, fractionLost: 0x40, cumulativeLost: 5, extendedHighestSequenceNumber: 0x0001_0203,
        jitter: 17, lastSenderReport: 0xA23B_4C80, delaySinceLastSenderReport: 0x0001_8000)

    // RR whose block reports a negative cumulative loss (more duplicates than losses).
    let receiverReportGolden = hexBytes(
        """
        81 C9 00 07   # V=2,P=0,RC=1; PT=201; 32 bytes = 8 words -> length 7
        00 00 00 01   # SSRC of packet sender
        CA FE BA BE   # block: SSRC_1
        00 FF FF FD   # fraction lost 0; cumulative lost -3 = 24-bit two's complement 0xFFFFFD
        00 02 FF FF   # extended highest sequence number
        00 00 01 00   # jitter 256
        00 00 00 00   # LSR: no SR received yet
        00 00 00 00   # DLSR
        """)

    @Test func buildsSenderReportGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPSenderReport.write(
                senderSSRC: 0x1234_5678, ntpTimestamp: 0xE5A2_3B4C_8000_0000, rtpTimestamp: 123_456,
                senderPacketCount: 1000, senderOctetCount: 160_000, reportBlocks: [senderReportBlock],
                into: &writer)
        }
        #expect(bytes == senderReportGolden)
    }

    @Test func parsesSenderReportGolden() throws {
        try withRTCPPacket(senderReportGolden) { view throws in
            #expect(view.header == RTCPHeader(count: 1, packetType: .senderReport, length: 12))
            #expect(view.kind == .senderReport)
            let report = try RTCPSenderReport(view)
            #expect(report.senderSSRC == 0x1234_5678)
            #expect(report.ntpTimestamp == 0xE5A2_3B4C_8000_0000)
            #expect(report.compactNTPTimestamp == 0x3B4C_8000)
            #expect(report.rtpTimestamp == 123_456)
            #expect(report.senderPacketCount == 1000)
            #expect(report.senderOctetCount == 160_000)
            #expect(report.reportBlockCount == 1)
            #expect(report.reportBlock(at: 0) == senderReportBlock)
            #expect(Array(report.reportBlocks) == [senderReportBlock])
        }
    }

    @Test func buildsReceiverReportGolden() throws {
        let block = RTCPReportBlock(
            ssrc: 0xCAFE_BABE, fractionLost: 0, cumulativeLost: -3, extendedHighestSequenceNumber: 0x0002_FFFF,
            jitter: 256, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 1, reportBlocks: [block], into: &writer)
        }
        #expect(bytes == receiverReportGolden)
    }

    @Test func parsesReceiverReportGolden() throws {
        try withRTCPPacket(receiverReportGolden) { view throws in
            let report = try RTCPReceiverReport(view)
            #expect(report.senderSSRC == 1)
            #expect(report.reportBlockCount == 1)
            let block = report.reportBlock(at: 0)
            #expect(block.ssrc == 0xCAFE_BABE)
            #expect(block.fractionLost == 0)
            #expect(block.cumulativeLost == -3)
            #expect(block.extendedHighestSequenceNumber == 0x0002_FFFF)
            #expect(block.jitter == 256)
            #expect(block.lastSenderReport == 0)
            #expect(block.delaySinceLastSenderReport == 0)
        }
    }

    @Test func receiverReportWithoutBlocks() throws {
        let golden = hexBytes(
            """
            80 C9 00 01   # RC=0; PT=201; 8 bytes -> length 1
            DE AD BE EF   # SSRC of packet sender
            """)
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0xDEAD_BEEF, reportBlocks: EmptyCollection(), into: &writer)
        }
        #expect(bytes == golden)
        try withRTCPPacket(golden) { view throws in
            let report = try RTCPReceiverReport(view)
            #expect(report.senderSSRC == 0xDEAD_BEEF)
            #expect(report.reportBlocks.isEmpty)
        }
    }

    @Test(arguments: [
        (Int32(-3), "FFFFFD"), (-1, "FFFFFF"), (0, "000000"), (1, "000001"),
        (-8_388_608, "800000"), (8_388_607, "7FFFFF"),
    ])
    func cumulativeLostRoundTripsAs24BitTwosComplement(value: Int32, wire: String) throws {
        let block = RTCPReportBlock(
            ssrc: 7, fractionLost: 1, cumulativeLost: value, extendedHighestSequenceNumber: 2, jitter: 3,
            lastSenderReport: 4, delaySinceLastSenderReport: 5)
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 9, reportBlocks: [block], into: &writer)
        }
        // The 24 bits sit after the header (4), sender SSRC (4), block SSRC (4) and fraction (1).
        #expect(Array(bytes[13..<16]) == hexBytes(wire))
        try withRTCPPacket(bytes) { view throws in
            #expect(try RTCPReceiverReport(view).reportBlock(at: 0) == block)
        }
    }

    @Test(arguments: [(Int32(-9_000_000), Int32(-8_388_608)), (9_000_000, 8_388_607)])
    func cumulativeLostClampsWhenWritten(value: Int32, clamped: Int32) throws {
        let block = RTCPReportBlock(
            ssrc: 7, fractionLost: 0, cumulativeLost: value, extendedHighestSequenceNumber: 0, jitter: 0,
            lastSenderReport: 0, delaySinceLastSenderReport: 0)
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 9, reportBlocks: [block], into: &writer)
        }
        try withRTCPPacket(bytes) { view throws in
            #expect(try RTCPReceiverReport(view).reportBlock(at: 0).cumulativeLost == clamped)
        }
    }

    @Test func toleratesProfileSpecificExtensions() throws {
        let bytes = hexBytes(
            """
            80 C9 00 02   # RC=0; 12 bytes
            00 00 00 01   # SSRC of packet sender
            01 02 03 04   # profile-specific extension, ignored
            """)
        try withRTCPPacket(bytes) { view throws in
            #expect(try RTCPReceiverReport(view).reportBlocks.isEmpty)
        }
    }

    // MARK: Malformed

    @Test func receiverReportBlocksPastEnd() throws {
        let bytes = hexBytes(
            """
            82 C9 00 07   # RC=2 but 32 bytes hold only one block
            00 00 00 01
            00 00 00 02  00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00
            """)
        #expect(throws: RTCPError.reportBlocksPastEnd(kind: .receiverReport, count: 2, available: 24)) {
            try withRTCPPacket(bytes) { try RTCPReceiverReport($0) }
        }
    }

    @Test func senderReportBlocksPastEnd() throws {
        let bytes = hexBytes(
            """
            81 C8 00 06   # RC=1 but the 28 bytes end with the sender info
            00 00 00 01  00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00
            """)
        #expect(throws: RTCPError.reportBlocksPastEnd(kind: .senderReport, count: 1, available: 0)) {
            try withRTCPPacket(bytes) { try RTCPSenderReport($0) }
        }
    }

    @Test func senderReportWithoutSenderInfo() throws {
        let bytes = hexBytes("80 C8 00 01  00 00 00 01")  // length 1: SSRC only, no sender info
        #expect(throws: RTCPError.packetTooShort(kind: .senderReport, minimumBytes: 28, available: 8)) {
            try withRTCPPacket(bytes) { try RTCPSenderReport($0) }
        }
    }

    @Test func wrongPacketTypeIsNamed() throws {
        #expect(throws: RTCPError.wrongPacketType(expected: .senderReport, packetType: 201, format: 1)) {
            try withRTCPPacket(receiverReportGolden) { try RTCPSenderReport($0) }
        }
    }

    @Test func tooManyReportBlocks() throws {
        let block = RTCPReportBlock(
            ssrc: 1, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: 0, jitter: 0,
            lastSenderReport: 0, delaySinceLastSenderReport: 0)
        #expect(throws: RTCPError.tooManyItems(kind: .receiverReport, count: 32, maximum: 31)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPReceiverReport.write(
                    senderSSRC: 1, reportBlocks: repeatElement(block, count: 32), into: &writer)
            }
        }
    }
}
