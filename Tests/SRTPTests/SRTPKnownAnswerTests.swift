import Testing
import TestSupport

@testable import SRTP

/// Known answers for whole protected packets. The AES-CM master key and salt are RFC 3711 Appendix B.3's;
/// the expected packets were computed by an independent implementation whose key derivation reproduces
/// RFC 3711 B.3 and whose AES-GCM packets reproduce RFC 7714 sections 16 and 17 exactly, and the
/// AES_CM_128_HMAC_SHA1_80 and AEAD_AES_128_GCM ones equal libsrtp's own reference packets. (RFC 7714's
/// vectors start from session keys, which libsrtp cannot take, hence the derivation from master keys.)
/// The first SRTCP packet a session protects carries index 1.
@Suite struct SRTPKnownAnswerTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let profile: SRTPProfile
        let masterKey: String
        let masterSalt: String
        let protectedRTP: String
        let protectedRTCP: String

        var testDescription: String { profile.rawValue }
    }

    static let plainRTP = "800f1234 decafbad cafebabe" + String(repeating: "ab", count: 16)
    static let plainRTCP = "81c8000b cafebabe" + String(repeating: "ab", count: 16)

    static let vectors: [Vector] = [
        Vector(
            profile: .aesCM128HMACSHA1_80,
            masterKey: "e1f97a0d3e018be0d64fa32c06de4139", masterSalt: "0ec675ad498afeebb6960b3aabe6",
            protectedRTP: "800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc99ea179b8dbb",
            protectedRTCP:
                "81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798"),
        Vector(
            profile: .aesCM128HMACSHA1_32,
            masterKey: "e1f97a0d3e018be0d64fa32c06de4139", masterSalt: "0ec675ad498afeebb6960b3aabe6",
            protectedRTP: "800f1234decafbadcafebabe4e55dc4ce79978d88ca4d215949d2402b78d6acc",
            protectedRTCP:
                "81c8000bcafebabe7128035be487b9bdbef89041f977a5a880000001993e08cd54d6c1230798"),
        Vector(
            profile: .aeadAES128GCM,
            masterKey: "000102030405060708090a0b0c0d0e0f", masterSalt: "a0a1a2a3a4a5a6a7a8a9aaab",
            protectedRTP:
                "800f1234decafbadcafebabec5002ede04cfdd2eb91159e0880aa06ed2976826f796b201df3131a127e8a392",
            protectedRTCP:
                "81c8000bcafebabec98b8b5df0392a55852b6c21ac8e7025c52c6fbea2b3b446ea31123ba88ce61e80000001"),
        Vector(
            profile: .aeadAES256GCM,
            masterKey: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            masterSalt: "a0a1a2a3a4a5a6a7a8a9aaab",
            protectedRTP:
                "800f1234decafbadcafebabe0af7f21e8a90bdad7a425c9c31ed4bb1d90238917e7390a2793500e1681acaea",
            protectedRTCP:
                "81c8000bcafebabe8abfafa780070a90e80f9161cf4aac081ed93aaa53c15b0f3ed1a3b984167b0380000001"),
    ]

    @Test(arguments: vectors)
    func protectsRTPToTheKnownPacket(vector: Vector) throws {
        let keys = try SRTPKeyMaterial(
            profile: vector.profile, masterKey: hexBytes(vector.masterKey), masterSalt: hexBytes(vector.masterSalt))
        let sender = try SRTPSession(keyMaterial: keys, direction: .outbound)
        var packet = PacketBuffer(hexBytes(Self.plainRTP))
        try packet.apply(sender.protectRTP)
        #expect(packet.bytes == hexBytes(vector.protectedRTP))

        let receiver = try SRTPSession(keyMaterial: keys, direction: .inbound)
        try packet.apply(receiver.unprotectRTP)
        #expect(packet.bytes == hexBytes(Self.plainRTP))
    }

    @Test(arguments: vectors)
    func protectsTheFirstRTCPPacketToTheKnownPacket(vector: Vector) throws {
        let keys = try SRTPKeyMaterial(
            profile: vector.profile, masterKey: hexBytes(vector.masterKey), masterSalt: hexBytes(vector.masterSalt))
        let sender = try SRTPSession(keyMaterial: keys, direction: .outbound)
        var packet = PacketBuffer(hexBytes(Self.plainRTCP))
        try packet.apply(sender.protectRTCP)
        #expect(packet.bytes == hexBytes(vector.protectedRTCP))
        #expect(packet.length == hexBytes(Self.plainRTCP).count + vector.profile.rtcpTrailerLength)

        let receiver = try SRTPSession(keyMaterial: keys, direction: .inbound)
        try packet.apply(receiver.unprotectRTCP)
        #expect(packet.bytes == hexBytes(Self.plainRTCP))
    }
}
