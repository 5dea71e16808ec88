import Testing
import TestSupport

@testable import RTPWire

/// A packet with two CSRCs, a one-byte extension block, a 3-byte payload and 4 bytes of padding.
private let packetWithEverything = hexBytes(
    """
    b2 e0 12 34  de ad be ef  ca fe ba be
    00 00 00 01  00 00 00 02
    be de 00 02  10 ab 22 01 02 03 00 00
    aa bb cc
    00 00 00 04
    """)

@Suite struct RTPPacketParsingTests {
    @Test func readsEveryHeaderField() throws {
        var bytes = packetWithEverything
        try bytes.withUnsafeMutableBytes { buffer in
            let packet = try RTPPacket(parsing: buffer)
            #expect(packet.version == 2)
            #expect(packet.hasPadding)
            #expect(packet.hasExtension)
            #expect(packet.csrcCount == 2)
            #expect(packet.marker)
            #expect(packet.payloadType == 96)
            #expect(packet.sequenceNumber == 0x1234)
            #expect(packet.timestamp == 0xDEAD_BEEF)
            #expect(packet.ssrc == 0xCAFE_BABE)
            #expect(packet.csrc(at: 0) == 1)
            #expect(packet.csrc(at: 1) == 2)
            #expect(packet.extensionProfile == 0xBEDE)
            #expect(packet.extensionForm == .oneByte)
            #expect(packet.headerLength == 32)
            #expect(packet.paddingLength == 4)
            #expect(Array(packet.payload) == [0xAA, 0xBB, 0xCC])
            #expect(packet.extensionElement(id: 1).map(Array.init) == [0xAB])
            #expect(packet.extensionElement(id: 2).map(Array.init) == [0x01, 0x02, 0x03])
            #expect(packet.extensionElement(id: 3) == nil)
        }
    }

    @Test func rewritesHeaderFieldsInPlace() throws {
        var bytes = packetWithEverything
        try bytes.withUnsafeMutableBytes { buffer in
            let packet = try RTPPacket(parsing: buffer)
            packet.ssrc = 0x0102_0304
            packet.sequenceNumber = 0xFFFE
            packet.timestamp = 7
            packet.payloadType = 111
            packet.marker = false
        }
        var expected = packetWithEverything
        expected.replaceSubrange(
            0..<12, with: hexBytes("b2 6f ff fe 00 00 00 07 01 02 03 04"))
        #expect(bytes == expected)
    }

    @Test func payloadTypeKeepsMarkerAndMarkerKeepsPayloadType() throws {
        var bytes = hexBytes("80 00 00 01 00 00 00 01 00 00 00 01")
        try bytes.withUnsafeMutableBytes { buffer in
            let packet = try RTPPacket(parsing: buffer)
            packet.marker = true
            packet.payloadType = 0xFF
            #expect(packet.marker)
            #expect(packet.payloadType == 0x7F)
            packet.marker = false
            #expect(packet.payloadType == 0x7F)
        }
    }

    @Test func writesAFreshPacket() throws {
        var storage = [UInt8](repeating: 0xEE, count: 40)
        let payload: [UInt8] = [1, 2, 3]
        try storage.withUnsafeMutableBytes { buffer in
            try payload.withUnsafeBytes { payloadBytes in
                let packet = try RTPPacket(
                    writingInto: buffer, payloadType: 111, sequenceNumber: 9, timestamp: 960, ssrc: 0xABCD,
                    marker: true, payload: payloadBytes)
                #expect(packet.length == 15)
                #expect(Array(packet.bytes) == hexBytes("80 ef 00 09 00 00 03 c0 00 00 ab cd 01 02 03"))
            }
        }
    }

    @Test func removesPadding() throws {
        var bytes = packetWithEverything
        try bytes.withUnsafeMutableBytes { buffer in
            var packet = try RTPPacket(parsing: buffer)
            packet.removePadding()
            #expect(packet.length == packetWithEverything.count - 4)
            #expect(!packet.hasPadding)
            #expect(Array(packet.payload) == [0xAA, 0xBB, 0xCC])
            let reparsed = try RTPPacket(parsing: buffer, length: packet.length)
            #expect(reparsed.payloadLength == 3)
        }
    }

    @Test func makesRoomForAnOriginalSequenceNumberAndTakesItBackOut() throws {
        var bytes = packetWithEverything + [0, 0]
        try bytes.withUnsafeMutableBytes { buffer in
            var packet = try RTPPacket(parsing: buffer, length: packetWithEverything.count)
            let headerLength = packet.headerLength
            try packet.insertLeadingPayloadBytes(2)
            packet.payload.storeBytes(of: UInt16(0x1234).bigEndian, as: UInt16.self)
            #expect(!packet.hasPadding)
            #expect(packet.length == packetWithEverything.count - 4 + 2)
            #expect(Array(packet.payload) == [0x12, 0x34, 0xAA, 0xBB, 0xCC])
            #expect(packet.headerLength == headerLength)
            let reparsed = try RTPPacket(parsing: buffer, length: packet.length)
            #expect(Array(reparsed.payload) == [0x12, 0x34, 0xAA, 0xBB, 0xCC])
            try packet.removeLeadingPayloadBytes(2)
            #expect(Array(packet.payload) == [0xAA, 0xBB, 0xCC])
        }
        var full = packetWithEverything
        try full.withUnsafeMutableBytes { buffer in
            var packet = try RTPPacket(parsing: buffer)
            packet.removePadding()
            try packet.insertLeadingPayloadBytes(4)
            #expect(throws: RTPPacketError.noRoom(needed: buffer.count + 1, capacity: buffer.count)) {
                try packet.insertLeadingPayloadBytes(1)
            }
        }
    }

    @Test func toleratesUnknownExtensionProfiles() throws {
        var bytes = hexBytes("90 60 00 01 00 00 00 01 00 00 00 01  12 34 00 01  ff ff ff ff  55")
        try bytes.withUnsafeMutableBytes { buffer in
            let packet = try RTPPacket(parsing: buffer)
            #expect(packet.extensionProfile == 0x1234)
            #expect(packet.extensionForm == nil)
            #expect(packet.extensionElement(id: 1) == nil)
            #expect(Array(packet.payload) == [0x55])
        }
    }
}

@Suite struct RTPPacketMalformedTests {
    private func parse(_ hex: String) -> RTPPacketError? {
        var bytes = hexBytes(hex)
        return bytes.withUnsafeMutableBytes { buffer -> RTPPacketError? in
            do throws(RTPPacketError) {
                _ = try RTPPacket(parsing: buffer)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func shorterThanFixedHeader() {
        #expect(parse("80 60 00 01 00 00") == .shorterThanFixedHeader(length: 6))
        #expect(parse("") == .shorterThanFixedHeader(length: 0))
    }

    @Test func versionNotTwo() {
        #expect(parse("40 60 00 01 00 00 00 01 00 00 00 01") == .versionNotTwo(found: 1))
        #expect(parse("c0 60 00 01 00 00 00 01 00 00 00 01") == .versionNotTwo(found: 3))
    }

    @Test func csrcCountPastTheEnd() {
        #expect(parse("83 60 00 01 00 00 00 01 00 00 00 01 00 00 00 01") == .csrcListPastEnd(csrcCount: 3, length: 16))
    }

    @Test func extensionHeaderPastTheEnd() {
        #expect(parse("90 60 00 01 00 00 00 01 00 00 00 01 be de") == .extensionHeaderPastEnd(offset: 12, length: 14))
    }

    @Test func extensionLengthPastTheEnd() {
        #expect(
            parse("90 60 00 01 00 00 00 01 00 00 00 01 be de 00 02 10 ab 00 00")
                == .extensionLengthPastEnd(declaredBytes: 8, available: 4))
    }

    @Test func oneByteIDFifteen() {
        #expect(parse("90 60 00 01 00 00 00 01 00 00 00 01 be de 00 01 f0 00 00 00") == .extensionReservedID15(offset: 16))
    }

    @Test func oneByteIDZeroWithLength() {
        #expect(
            parse("90 60 00 01 00 00 00 01 00 00 00 01 be de 00 01 03 00 00 00") == .extensionPaddingWithLength(offset: 16))
    }

    @Test func extensionElementPastTheBlock() {
        #expect(
            parse("90 60 00 01 00 00 00 01 00 00 00 01 be de 00 01 13 01 02 03")
                == .extensionElementPastEnd(id: 1, offset: 16))
        #expect(
            parse("90 60 00 01 00 00 00 01 00 00 00 01 10 00 00 01 05 04 01 02")
                == .extensionElementPastEnd(id: 5, offset: 16))
        #expect(
            parse("90 60 00 01 00 00 00 01 00 00 00 01 10 00 00 01 00 00 00 07")
                == .extensionElementPastEnd(id: 7, offset: 19))
    }

    @Test func paddingCountZero() {
        #expect(parse("a0 60 00 01 00 00 00 01 00 00 00 01 aa 00") == .paddingCountZero)
    }

    @Test func paddingLongerThanPayload() {
        #expect(
            parse("a0 60 00 01 00 00 00 01 00 00 00 01 aa 00 05") == .paddingLongerThanPayload(padding: 5, available: 3))
    }
}
