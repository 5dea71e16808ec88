import Testing
import TestSupport

@testable import RTPWire

@Suite struct RTCPGenericNACKTests {
    // Losses 65534, 65535, 0, 3 and 20 of media SSRC 2, reported by SSRC 1.
    let wrapGolden = hexBytes(
        """
        81 CD 00 04   # V=2,P=0,FMT=1 -> 0x81; PT=205; 20 bytes -> length 4
        00 00 00 01   # SSRC of packet sender
        00 00 00 02   # SSRC of media source
        FF FE 00 13   # PID 65534; BLP bits 0 (65535), 1 (0, across the wrap), 4 (3) -> 0b1_0011
        00 14 00 00   # PID 20: 22 past 65534, outside the first item's 16, so a new item
        """)

    @Test func buildsItemsAcrossTheWrap() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPGenericNACK.write(
                senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [65534, 65535, 0, 3, 20], into: &writer)
        }
        #expect(bytes == wrapGolden)
    }

    @Test func enumeratesLostSequenceNumbersBack() throws {
        try withRTCPPacket(wrapGolden) { view throws in
            let nack = try RTCPGenericNACK(view)
            #expect(nack.senderSSRC == 1)
            #expect(nack.mediaSSRC == 2)
            #expect(
                Array(nack.items) == [
                    RTCPGenericNACK.Item(packetID: 65534, lostBitmask: 0x0013),
                    RTCPGenericNACK.Item(packetID: 20, lostBitmask: 0),
                ])
            #expect(Array(nack.lostSequenceNumbers) == [65534, 65535, 0, 3, 20])
            var visited: [UInt16] = []
            nack.forEachLostSequenceNumber { visited.append($0) }
            #expect(visited == [65534, 65535, 0, 3, 20])
        }
    }

    @Test func fullBitmaskCoversSeventeen() throws {
        let bytes = hexBytes("81 CD 00 03  00 00 00 01  00 00 00 02  00 64 FF FF")  // PID 100, BLP all set
        try withRTCPPacket(bytes) { view throws in
            #expect(Array(try RTCPGenericNACK(view).lostSequenceNumbers) == Array(100...116))
        }
    }

    @Test func groupsIntoItems() {
        var items: [RTCPGenericNACK.Item] = []
        RTCPGenericNACK.forEachItem(coveringLost: [10, 10, 26, 27, 30]) { items.append($0) }
        // 26 is 16 past 10: the last bit of the first item. 27 is 17 past: a new item.
        #expect(
            items == [
                RTCPGenericNACK.Item(packetID: 10, lostBitmask: 0x8000),
                RTCPGenericNACK.Item(packetID: 27, lostBitmask: 0b100),
            ])
    }

    @Test func randomLossesRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x4E41_434B)
        for _ in 0..<200 {
            let start = UInt16.random(in: 0...UInt16.max, using: &generator)
            let span = Int.random(in: 1...300, using: &generator)
            let lossRate = Double.random(in: 0.01...0.9, using: &generator)
            var lost: [UInt16] = []
            for step in 0..<span where Double.random(in: 0..<1, using: &generator) < lossRate {
                lost.append(start &+ UInt16(step))
            }
            if lost.isEmpty { lost = [start] }
            let bytes = try RTCPWriter.bytes(capacity: 4096) { writer throws(RTCPError) in
                try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost, into: &writer)
            }
            try withRTCPPacket(bytes) { view throws in
                #expect(Array(try RTCPGenericNACK(view).lostSequenceNumbers) == lost)
            }
        }
    }

    @Test func itemsNotMultipleOfFour() throws {
        let bytes = hexBytes(
            """
            A1 CD 00 04   # P=1, FMT=1, 20 bytes
            00 00 00 01   # SSRC of packet sender
            00 00 00 02   # SSRC of media source
            00 05 00 00   # an item ...
            00 07 00 02   # ... and 2 more FCI bytes before 2 bytes of padding: 6 FCI bytes
            """)
        #expect(throws: RTCPError.nackItemsNotMultipleOfFour(byteCount: 6)) {
            try withRTCPPacket(bytes) { try RTCPGenericNACK($0) }
        }
    }

    @Test func withoutItems() throws {
        let bytes = hexBytes("81 CD 00 02  00 00 00 01  00 00 00 02")  // RFC 4585 wants at least one item
        #expect(throws: RTCPError.packetTooShort(kind: .genericNACK, minimumBytes: 16, available: 12)) {
            try withRTCPPacket(bytes) { try RTCPGenericNACK($0) }
        }
        #expect(throws: RTCPError.noItems(kind: .genericNACK)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [], into: &writer)
            }
        }
    }

    @Test func noRoomLeavesTheWriterWhereItWas() throws {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 24, alignment: 4)
        defer { storage.deallocate() }
        var writer = RTCPWriter(into: storage)
        try RTCPPictureLossIndication.write(senderSSRC: 1, mediaSSRC: 2, into: &writer)
        // Two items need 20 bytes; 12 are left.
        #expect(throws: RTCPError.noRoom(needed: 20, available: 12)) {
            try RTCPGenericNACK.write(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [1, 100], into: &writer)
        }
        #expect(writer.offset == 12)
        try RTCPPictureLossIndication.write(senderSSRC: 3, mediaSSRC: 4, into: &writer)
        #expect(writer.offset == 24)
        #expect(throws: RTCPError.noRoom(needed: 12, available: 0)) {
            try RTCPPictureLossIndication.write(senderSSRC: 1, mediaSSRC: 2, into: &writer)
        }
        let compound = try RTCPCompoundPacket(parsing: writer.written)
        #expect(compound.packetCount == 2)
    }
}

@Suite struct RTCPPictureLossIndicationTests {
    let golden = hexBytes(
        """
        81 CE 00 02   # V=2,P=0,FMT=1; PT=206; 12 bytes -> length 2
        00 00 00 01   # SSRC of packet sender
        AB CD EF 01   # SSRC of media source
        """)

    @Test func buildsGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPPictureLossIndication.write(senderSSRC: 1, mediaSSRC: 0xABCD_EF01, into: &writer)
        }
        #expect(bytes == golden)
    }

    @Test func parsesGolden() throws {
        try withRTCPPacket(golden) { view throws in
            #expect(view.kind == .pictureLossIndication)
            let pli = try RTCPPictureLossIndication(view)
            #expect(pli.senderSSRC == 1)
            #expect(pli.mediaSSRC == 0xABCD_EF01)
        }
    }

    @Test func lengthZero() throws {
        #expect(throws: RTCPError.packetTooShort(kind: .pictureLossIndication, minimumBytes: 12, available: 4)) {
            try withRTCPPacket(hexBytes("81 CE 00 00")) { try RTCPPictureLossIndication($0) }
        }
    }
}

@Suite struct RTCPFullIntraRequestTests {
    let golden = hexBytes(
        """
        84 CE 00 06   # V=2,P=0,FMT=4 -> 0x84; PT=206; 28 bytes -> length 6
        AA AA AA AA   # SSRC of packet sender
        00 00 00 00   # SSRC of media source: unused, 0
        01 02 03 04   # entry 1: SSRC
        07 00 00 00   # entry 1: seq nr 7, 24 reserved bits
        05 06 07 08   # entry 2: SSRC
        FF 00 00 00   # entry 2: seq nr 255
        """)
    let items = [
        RTCPFullIntraRequest.Item(ssrc: 0x0102_0304, sequenceNumber: 7),
        RTCPFullIntraRequest.Item(ssrc: 0x0506_0708, sequenceNumber: 255),
    ]

    @Test func buildsGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPFullIntraRequest.write(senderSSRC: 0xAAAA_AAAA, items: items, into: &writer)
        }
        #expect(bytes == golden)
    }

    @Test func parsesGolden() throws {
        try withRTCPPacket(golden) { view throws in
            let fir = try RTCPFullIntraRequest(view)
            #expect(fir.senderSSRC == 0xAAAA_AAAA)
            #expect(fir.mediaSSRC == 0)
            #expect(Array(fir.items) == items)
        }
    }

    @Test func itemsNotMultipleOfEight() throws {
        let bytes = hexBytes(
            """
            84 CE 00 05   # FMT=4, 24 bytes: 12 FCI bytes
            00 00 00 01  00 00 00 00
            01 02 03 04  07 00 00 00  05 06 07 08
            """)
        #expect(throws: RTCPError.firItemsNotMultipleOfEight(byteCount: 12)) {
            try withRTCPPacket(bytes) { try RTCPFullIntraRequest($0) }
        }
    }

    @Test func withoutItems() throws {
        #expect(throws: RTCPError.packetTooShort(kind: .fullIntraRequest, minimumBytes: 20, available: 12)) {
            try withRTCPPacket(hexBytes("84 CE 00 02  00 00 00 01  00 00 00 00")) { try RTCPFullIntraRequest($0) }
        }
        #expect(throws: RTCPError.noItems(kind: .fullIntraRequest)) {
            _ = try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPFullIntraRequest.write(senderSSRC: 1, items: EmptyCollection(), into: &writer)
            }
        }
    }
}

@Suite struct RTCPReceiverEstimatedMaximumBitrateTests {
    let golden = hexBytes(
        """
        8F CE 00 06   # V=2,P=0,FMT=15 -> 0x8F; PT=206; 28 bytes -> length 6
        01 02 03 04   # SSRC of packet sender
        00 00 00 00   # SSRC of media source: 0
        52 45 4D 42   # "REMB"
        02 0B D0 90   # 2 SSRCs; 1 000 000 = 250 000 << 2: exp 2, mantissa 0x3D090 -> 2<<18 | 0x3D090 = 0x0BD090
        11 22 33 44   # SSRC feedback 1
        55 66 77 88   # SSRC feedback 2
        """)

    @Test func buildsGolden() throws {
        let bytes = try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPReceiverEstimatedMaximumBitrate.write(
                senderSSRC: 0x0102_0304, bitrate: 1_000_000, ssrcs: [0x1122_3344, 0x5566_7788], into: &writer)
        }
        #expect(bytes == golden)
    }

    @Test func parsesGolden() throws {
        try withRTCPPacket(golden) { view throws in
            #expect(view.kind == .receiverEstimatedMaximumBitrate)
            let remb = try RTCPReceiverEstimatedMaximumBitrate(view)
            #expect(remb.senderSSRC == 0x0102_0304)
            #expect(remb.bitrateExponent == 2)
            #expect(remb.bitrateMantissa == 250_000)
            #expect(remb.bitrate == 1_000_000)
            #expect(Array(remb.ssrcs) == [0x1122_3344, 0x5566_7788])
        }
    }

    @Test func encodingRoundsDownToEighteenBits() {
        #expect(RTCPReceiverEstimatedMaximumBitrate.encode(bitrate: 0) == (0, 0))
        #expect(RTCPReceiverEstimatedMaximumBitrate.encode(bitrate: 262_143) == (0, 262_143))
        #expect(RTCPReceiverEstimatedMaximumBitrate.encode(bitrate: 262_144) == (1, 131_072))
        #expect(RTCPReceiverEstimatedMaximumBitrate.encode(bitrate: 1_000_003) == (2, 250_000))
        #expect(RTCPReceiverEstimatedMaximumBitrate.encode(bitrate: .max) == (46, 0x3_FFFF))
    }

    @Test func ssrcCountPastEnd() throws {
        let bytes = hexBytes(
            """
            8F CE 00 05   # FMT=15, 24 bytes: room for one SSRC
            00 00 00 01  00 00 00 00  52 45 4D 42
            03 00 00 01   # claims 3 SSRCs
            11 22 33 44
            """)
        #expect(throws: RTCPError.rembSSRCCountPastEnd(count: 3, available: 4)) {
            try withRTCPPacket(bytes) { try RTCPReceiverEstimatedMaximumBitrate($0) }
        }
    }

    @Test func bitrateOverflow() throws {
        let bytes = hexBytes(
            """
            8F CE 00 04   # FMT=15, 20 bytes
            00 00 00 01  00 00 00 00  52 45 4D 42
            00 FF FF FF   # exp 63, mantissa 0x3FFFF: far past 64 bits
            """)
        #expect(throws: RTCPError.rembBitrateOverflow(exponent: 63, mantissa: 0x3_FFFF)) {
            try withRTCPPacket(bytes) { try RTCPReceiverEstimatedMaximumBitrate($0) }
        }
    }

    @Test func otherApplicationFeedbackIsNotREMB() throws {
        let bytes = hexBytes("8F CE 00 04  00 00 00 01  00 00 00 00  41 42 43 44  00 00 00 00")  // "ABCD"
        try withRTCPPacket(bytes) { view throws in
            #expect(view.kind == nil)
            #expect(try view.parsed() == nil)
        }
        #expect(throws: RTCPError.rembIdentifierMismatch(found: 0x4142_4344)) {
            try withRTCPPacket(bytes) { try RTCPReceiverEstimatedMaximumBitrate($0) }
        }
    }

    @Test func lengthZero() throws {
        #expect(
            throws: RTCPError.packetTooShort(kind: .receiverEstimatedMaximumBitrate, minimumBytes: 20, available: 4)
        ) {
            try withRTCPPacket(hexBytes("8F CE 00 00")) { try RTCPReceiverEstimatedMaximumBitrate($0) }
        }
    }

    @Test func tooManySSRCs() throws {
        #expect(throws: RTCPError.tooManyItems(kind: .receiverEstimatedMaximumBitrate, count: 256, maximum: 255)) {
            _ = try RTCPWriter.bytes(capacity: 2048) { writer throws(RTCPError) in
                try RTCPReceiverEstimatedMaximumBitrate.write(
                    senderSSRC: 1, bitrate: 1, ssrcs: (0..<256).map { UInt32($0) }, into: &writer)
            }
        }
    }
}
