import Testing
import TestSupport

@testable import RTPWire

/// Runs `body` on a parsed packet that lives in a buffer with `tailRoom` spare bytes, and returns the
/// packet's bytes afterwards.
private func mutate(
    _ hex: String, tailRoom: Int = 64, _ body: (inout RTPPacket) throws(RTPPacketError) -> Void
) throws(RTPPacketError) -> [UInt8] {
    let original = hexBytes(hex)
    var storage = original + [UInt8](repeating: 0xEE, count: tailRoom)
    let result: Result<Int, RTPPacketError> = storage.withUnsafeMutableBytes { buffer in
        do throws(RTPPacketError) {
            var packet = try RTPPacket(parsing: buffer, length: original.count)
            try body(&packet)
            _ = try RTPPacket(parsing: buffer, length: packet.length)
            return .success(packet.length)
        } catch {
            return .failure(error)
        }
    }
    return Array(storage.prefix(try result.get()))
}

private let bareHeader = "80 60 00 01 00 00 00 02 00 00 00 03"
private let bareHeaderWithExtensionBit = "90 60 00 01 00 00 00 02 00 00 00 03"

@Suite struct HeaderExtensionTests {
    @Test func overwritesASendTimeInPlaceAndLeavesAPacketWithoutOneAlone() throws {
        var storage = [UInt8](repeating: 0, count: 64)
        let payload: [UInt8] = [1, 2, 3]
        try storage.withUnsafeMutableBytes { buffer in
            var packet = try payload.withUnsafeBytes { bytes in
                try RTPPacket(writingInto: buffer, payloadType: 96, sequenceNumber: 1, timestamp: 2, ssrc: 3, payload: bytes)
            }
            #expect(!packet.overwriteAbsoluteSendTime(AbsoluteSendTime(value: 5), id: 3))
            #expect(packet.length == 15)
            try packet.setAbsoluteSendTime(AbsoluteSendTime(value: 0x123456), id: 3)
            let length = packet.length
            #expect(packet.overwriteAbsoluteSendTime(AbsoluteSendTime(value: 0x654321), id: 3))
            #expect(packet.length == length)
            #expect(packet.absoluteSendTime(id: 3) == AbsoluteSendTime(value: 0x654321))
            #expect(Array(packet.payload) == payload)
        }
    }

    @Test func addsAOneByteBlockToAPacketWithout() throws {
        let bytes = try mutate(bareHeader + " 99") { packet throws(RTPPacketError) in
            try packet.setTransportSequenceNumber(0x0102, id: 3)
        }
        #expect(bytes == hexBytes(bareHeaderWithExtensionBit + " be de 00 01 31 01 02 00 99"))
    }

    @Test func appendsToAnExistingBlockAndGrowsItByWholeWords() throws {
        let start = "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 31 01 02 00 99"
        let bytes = try mutate(start) { packet throws(RTPPacketError) in
            try packet.setAbsoluteSendTime(AbsoluteSendTime(value: 0xABCDEF), id: 2)
            try packet.setAudioLevel(AudioLevelIndication(voiceActivity: true, level: 30), id: 1)
        }
        // 31 01 02 | 22 ab cd ef | 10 9e → 9 bytes used, padded to 12.
        #expect(bytes == hexBytes("90 60 00 01 00 00 00 02 00 00 00 03 be de 00 03 31 01 02 22 ab cd ef 10 9e 00 00 00 99"))
    }

    @Test func rewritesAnElementOfTheSameLengthInPlace() throws {
        let start = "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 31 01 02 00 99"
        let bytes = try mutate(start, tailRoom: 0) { packet throws(RTPPacketError) in
            try packet.setTransportSequenceNumber(0xFFFF, id: 3)
        }
        #expect(bytes == hexBytes("90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 31 ff ff 00 99"))
    }

    @Test func removesElementsAndThenTheBlock() throws {
        let start = "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 03 31 01 02 22 ab cd ef 10 9e 00 00 00 99"
        let withoutMiddle = try mutate(start) { packet throws(RTPPacketError) in
            let removed = packet.removeExtensionElement(id: 2)
            let removedAgain = packet.removeExtensionElement(id: 2)
            #expect(removed)
            #expect(!removedAgain)
        }
        #expect(withoutMiddle == hexBytes("90 60 00 01 00 00 00 02 00 00 00 03 be de 00 02 31 01 02 10 9e 00 00 00 99"))
        let withoutAny = try mutate(start) { packet throws(RTPPacketError) in
            packet.removeExtensionElement(id: 1)
            packet.removeExtensionElement(id: 3)
            packet.removeExtensionElement(id: 2)
            #expect(!packet.hasExtension)
        }
        #expect(withoutAny == hexBytes(bareHeader + " 99"))
    }

    @Test func replacesAnElementWhoseLengthChanges() throws {
        let start = "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 10 61 00 00 99"
        let bytes = try mutate(start) { packet throws(RTPPacketError) in
            try packet.setMid("abc", id: 1)
        }
        #expect(bytes == hexBytes("90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 12 61 62 63 99"))
    }

    @Test func twoByteFormGolden() throws {
        // Profile 0x1000, ID 20 length 0, padding byte, ID 7 length 2: 14 00 | 00 | 07 02 aa bb → 7 bytes, padded to 8.
        var bytes = hexBytes(
            "90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 02 14 00 00 07 02 aa bb 00 99")
        try bytes.withUnsafeMutableBytes { buffer in
            let packet = try RTPPacket(parsing: buffer)
            #expect(packet.extensionForm == .twoByte(appBits: 0))
            #expect(packet.extensionElement(id: 20).map(Array.init) == [])
            #expect(packet.extensionElement(id: 7).map(Array.init) == [0xAA, 0xBB])
            #expect(Array(packet.payload) == [0x99])
        }
    }

    @Test func usesTheTwoByteFormWhenOneByteCannotCarryTheElement() throws {
        let bytes = try mutate(bareHeader) { packet throws(RTPPacketError) in
            try packet.setRTPStreamID("h", id: 15)
            try packet.setMid("01234567890123456", id: 2)
        }
        let expected =
            bareHeaderWithExtensionBit
            + " 10 00 00 06  0f 01 68  02 11 30 31 32 33 34 35 36 37 38 39 30 31 32 33 34 35 36  00 00"
        #expect(bytes == hexBytes(expected))
        var copy = bytes
        copy.withUnsafeMutableBytes { buffer in
            let packet = try! RTPPacket(parsing: buffer)
            #expect(packet.rtpStreamID(id: 15) == "h")
            #expect(packet.mid(id: 2) == "01234567890123456")
            #expect(packet.repairedRTPStreamID(id: 9) == nil)
        }
    }

    @Test func refusesWhatTheExistingFormCannotCarry() {
        let start = "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 31 01 02 00"
        #expect(throws: RTPPacketError.extensionIDOutOfRange(id: 15, form: .oneByte)) {
            _ = try mutate(start) { packet throws(RTPPacketError) in try packet.setMid("x", id: 15) }
        }
        #expect(throws: RTPPacketError.extensionLengthOutOfRange(length: 17, form: .oneByte)) {
            _ = try mutate(start) { packet throws(RTPPacketError) in
                try packet.setMid(String(repeating: "m", count: 17), id: 4)
            }
        }
        #expect(throws: RTPPacketError.extensionIDOutOfRange(id: 0, form: .oneByte)) {
            _ = try mutate(bareHeader) { packet throws(RTPPacketError) in try packet.setMid("x", id: 0) }
        }
    }

    @Test func aRefusedResizeLeavesTheElement() throws {
        let start = "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 01 10 61 00 00 99"
        var refusal: RTPPacketError?
        let bytes = try mutate(start) { packet throws(RTPPacketError) in
            do throws(RTPPacketError) {
                try packet.setMid(String(repeating: "m", count: 17), id: 1)
            } catch {
                refusal = error
            }
        }
        #expect(refusal == .extensionLengthOutOfRange(length: 17, form: .oneByte))
        #expect(bytes == hexBytes(start))
    }

    @Test func refusesToGrowPastTheBuffer() {
        #expect(throws: RTPPacketError.noRoom(needed: 25, capacity: 20)) {
            _ = try mutate(bareHeader + " 01 02 03 04 05", tailRoom: 3) { packet throws(RTPPacketError) in
                try packet.setTransportSequenceNumber(1, id: 1)
            }
        }
    }

    @Test func keepsCSRCsAndPaddingWhenGrowing() throws {
        let start = "a1 60 00 01 00 00 00 02 00 00 00 03 00 00 00 09 77 00 00 03"
        let bytes = try mutate(start) { packet throws(RTPPacketError) in
            try packet.setAudioLevel(AudioLevelIndication(voiceActivity: false, level: 127), id: 5)
            #expect(packet.paddingLength == 3)
            #expect(Array(packet.payload) == [0x77])
        }
        #expect(bytes == hexBytes("b1 60 00 01 00 00 00 02 00 00 00 03 00 00 00 09 be de 00 01 50 7f 00 00 77 00 00 03"))
    }

    @Test func namedValuesReadBack() throws {
        _ = try mutate(bareHeader) { packet throws(RTPPacketError) in
            try packet.setAbsoluteSendTime(AbsoluteSendTime(nanoseconds: 1_500_000_000), id: 2)
            try packet.setTransportSequenceNumber(65_535, id: 3)
            try packet.setAudioLevel(AudioLevelIndication(voiceActivity: true, level: 200), id: 4)
            #expect(packet.absoluteSendTime(id: 2)?.value == 0x06_0000)
            #expect(packet.absoluteSendTime(id: 2)?.nanoseconds == 1_500_000_000)
            #expect(packet.transportSequenceNumber(id: 3) == 65_535)
            #expect(packet.audioLevel(id: 4) == AudioLevelIndication(voiceActivity: true, level: 127))
            var seen: [UInt8] = []
            packet.forEachExtensionElement { id, _ in seen.append(id) }
            #expect(seen == [2, 3, 4])
        }
    }

    @Test func absoluteSendTimeWrapsEverySixtyFourSeconds() {
        #expect(AbsoluteSendTime(nanoseconds: 64_000_000_000).value == 0)
        #expect(AbsoluteSendTime(nanoseconds: 65_000_000_000).value == 1 << 18)
    }
}
