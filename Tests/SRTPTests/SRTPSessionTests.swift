import Testing
import TestSupport

@testable import SRTP

@Suite struct SRTPSessionTests {
    @Test(arguments: SRTPProfile.allCases)
    func roundTripsRTPOnSeveralSSRCs(profile: SRTPProfile) throws {
        let (sender, receiver) = try sessionPair(profile)
        for sequenceNumber in UInt16(100)..<120 {
            for ssrc: UInt32 in [1, 0xDEAD_BEEF] {
                let plain = rtpPacket(sequenceNumber: sequenceNumber, ssrc: ssrc, payloadLength: 1200)
                var packet = PacketBuffer(plain)
                try packet.apply(sender.protectRTP)
                #expect(packet.length == plain.count + profile.rtpTrailerLength)
                #expect(Array(packet.bytes[12..<plain.count]) != Array(plain[12...]))
                try packet.apply(receiver.unprotectRTP)
                #expect(packet.bytes == plain)
            }
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func roundTripsRTCP(profile: SRTPProfile) throws {
        let (sender, receiver) = try sessionPair(profile)
        let plain = hexBytes("80c90001 00000007") + hexBytes("81ca0003 00000007 0103616263 000000")
        for _ in 0..<5 {
            var packet = PacketBuffer(plain)
            try packet.apply(sender.protectRTCP)
            #expect(packet.length == plain.count + profile.rtcpTrailerLength)
            try packet.apply(receiver.unprotectRTCP)
            #expect(packet.bytes == plain)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rejectsATamperedTag(profile: SRTPProfile) throws {
        let (sender, receiver) = try sessionPair(profile)
        var packet = PacketBuffer(rtpPacket(sequenceNumber: 1))
        try packet.apply(sender.protectRTP)
        packet.storage[packet.length - 1] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try packet.apply(receiver.unprotectRTP) }

        var rtcp = PacketBuffer(hexBytes("80c90001 00000007"))
        try rtcp.apply(sender.protectRTCP)
        rtcp.storage[9] ^= 0x80
        #expect(throws: SRTPError.authenticationFailed) { try rtcp.apply(receiver.unprotectRTCP) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func rejectsATamperedPayloadAndAWrongKey(profile: SRTPProfile) throws {
        let (sender, receiver) = try sessionPair(profile)
        var packet = PacketBuffer(rtpPacket(sequenceNumber: 1))
        try packet.apply(sender.protectRTP)
        packet.storage[20] ^= 0xFF
        #expect(throws: SRTPError.authenticationFailed) { try packet.apply(receiver.unprotectRTP) }

        let stranger = try SRTPSession(keyMaterial: .random(profile: profile), direction: .inbound)
        var other = PacketBuffer(rtpPacket(sequenceNumber: 2))
        try other.apply(sender.protectRTP)
        #expect(throws: SRTPError.authenticationFailed) { try other.apply(stranger.unprotectRTP) }
    }

    @Test func rejectsReplayedPackets() throws {
        let (sender, receiver) = try sessionPair(.aeadAES128GCM)
        var packet = PacketBuffer(rtpPacket(sequenceNumber: 500))
        try packet.apply(sender.protectRTP)
        let protected = packet
        try packet.apply(receiver.unprotectRTP)
        var replay = protected
        #expect(throws: SRTPError.replayed) { try replay.apply(receiver.unprotectRTP) }

        var rtcp = PacketBuffer(hexBytes("80c90001 00000007"))
        try rtcp.apply(sender.protectRTCP)
        var rtcpReplay = rtcp
        try rtcp.apply(receiver.unprotectRTCP)
        #expect(throws: SRTPError.replayed) { try rtcpReplay.apply(receiver.unprotectRTCP) }
    }

    @Test func rejectsPacketsOlderThanTheReplayWindow() throws {
        let keys = SRTPKeyMaterial.random(profile: .aesCM128HMACSHA1_80)
        let sender = try SRTPSession(keyMaterial: keys, direction: .outbound)
        let receiver = try SRTPSession(keyMaterial: keys, direction: .inbound, replayWindowSize: 64)
        var old = PacketBuffer(rtpPacket(sequenceNumber: 10))
        try old.apply(sender.protectRTP)
        var fresh = PacketBuffer(rtpPacket(sequenceNumber: 1000))
        try fresh.apply(sender.protectRTP)
        try fresh.apply(receiver.unprotectRTP)
        #expect(throws: SRTPError.tooOld) { try old.apply(receiver.unprotectRTP) }
    }

    @Test func acceptsReorderingInsideTheWindow() throws {
        let (sender, receiver) = try sessionPair(.aeadAES128GCM)
        var packets: [PacketBuffer] = []
        for sequenceNumber in UInt16(0)..<10 {
            var packet = PacketBuffer(rtpPacket(sequenceNumber: sequenceNumber))
            try packet.apply(sender.protectRTP)
            packets.append(packet)
        }
        for index in [0, 2, 1, 5, 3, 4, 9, 6, 8, 7] {
            try packets[index].apply(receiver.unprotectRTP)
            #expect(packets[index].bytes == rtpPacket(sequenceNumber: UInt16(index)))
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func followsTheRolloverCounterAcrossASequenceNumberWrap(profile: SRTPProfile) throws {
        let (sender, receiver) = try sessionPair(profile)
        var sequenceNumber: UInt16 = 65_500
        for _ in 0..<200 {
            let plain = rtpPacket(sequenceNumber: sequenceNumber)
            var packet = PacketBuffer(plain)
            try packet.apply(sender.protectRTP)
            try packet.apply(receiver.unprotectRTP)
            #expect(packet.bytes == plain)
            sequenceNumber &+= 1
        }
        #expect(sequenceNumber == 164)
    }

    @Test func outboundSessionsMayRetransmitTheSamePacket() throws {
        let (sender, receiver) = try sessionPair(.aesCM128HMACSHA1_80)
        let plain = rtpPacket(sequenceNumber: 42)
        var first = PacketBuffer(plain)
        try first.apply(sender.protectRTP)
        var again = PacketBuffer(plain)
        try again.apply(sender.protectRTP)
        #expect(again.bytes == first.bytes)
        try first.apply(receiver.unprotectRTP)
        #expect(first.bytes == plain)
    }

    @Test func refusesABufferWithoutRoomForTheTag() throws {
        let (sender, _) = try sessionPair(.aeadAES128GCM)
        var packet = PacketBuffer(rtpPacket(sequenceNumber: 1, payloadLength: 20), tailRoom: 15)
        #expect(throws: SRTPError.bufferTooSmall(needed: 48, capacity: 47)) { try packet.apply(sender.protectRTP) }
    }

    @Test func refusesAMisalignedBuffer() throws {
        let (sender, _) = try sessionPair(.aeadAES128GCM)
        var storage = [UInt8](repeating: 0, count: 64)
        let plain = rtpPacket(sequenceNumber: 1, payloadLength: 8)
        let result: Result<Int, SRTPError> = storage.withUnsafeMutableBytes { buffer in
            let shifted = UnsafeMutableRawBufferPointer(rebasing: buffer[1...])
            plain.withUnsafeBytes { shifted.copyMemory(from: $0) }
            return Result { () throws(SRTPError) in try sender.protectRTP(shifted, length: plain.count) }
        }
        #expect(throws: SRTPError.misalignedBuffer) { try result.get() }
    }

    @Test(arguments: SRTPProfile.allCases)
    func garbageNeverTrapsAndIsRejected(profile: SRTPProfile) throws {
        let (_, receiver) = try sessionPair(profile)
        var generator = SeededGenerator(seed: 7)
        for length in [0, 1, 4, 11, 12, 13, 20, 28, 100, 1200] {
            var garbage = PacketBuffer((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            if length > 0 { garbage.storage[0] = 0x80 }
            #expect(throws: SRTPError.self) { try garbage.apply(receiver.unprotectRTP) }
            #expect(throws: SRTPError.self) { try garbage.apply(receiver.unprotectRTCP) }
        }
    }

    @Test func refusesAReplayWindowLibsrtpCannotUse() {
        let keys = SRTPKeyMaterial.random(profile: .aeadAES128GCM)
        #expect(throws: SRTPError.replayWindowOutOfRange(10)) {
            _ = try SRTPSession(keyMaterial: keys, direction: .inbound, replayWindowSize: 10)
        }
    }

    @Test func reportsTheLibraryVersion() {
        #expect(SRTPLibrary.version.hasPrefix("libsrtp2 2."))
    }

    /// The library this process runs is the one its headers came from: a build against the OpenSSL
    /// libsrtp2 must not end up with the distribution's shared library (which an -L/usr/lib from
    /// another dependency once made the linker pick).
    @Test func theLinkedLibraryIsTheOneTheHeadersBelongTo() {
        #expect(SRTPLibrary.build == SRTPLibrary.headerBuild)
        #expect(SRTPLibrary.isSharedLibraryMapped == (SRTPLibrary.headerBuild == "system"))
    }
}
