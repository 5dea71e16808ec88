import Testing
import TestSupport

@testable import SRTP

@Suite struct SRTPKeyMaterialTests {
    // Bytes 0x00...0x1d: an AES_CM_128 key and salt (30 bytes), with an RFC 4568 lifetime.
    let exampleParameter = "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd|2^20"

    @Test func parsesAnRFC4568InlineParameter() throws {
        let keys = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, sdesKeyParameter: exampleParameter)
        #expect(keys.masterKey.count == 16)
        #expect(keys.masterSalt.count == 14)
        #expect(keys.masterKey == Array(0...15))
        #expect(keys.masterSalt == Array(16...29))
        #expect(keys.sdesKeyParameter == "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd")
        let again = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, sdesKeyParameter: keys.sdesKeyParameter)
        #expect(again == keys)
    }

    @Test func acceptsADecimalLifetime() throws {
        let keys = SRTPKeyMaterial.random(profile: .aeadAES256GCM)
        let parsed = try SRTPKeyMaterial(profile: .aeadAES256GCM, sdesKeyParameter: keys.sdesKeyParameter + "|1048576")
        #expect(parsed == keys)
    }

    @Test func namesWhatIsWrongWithAKeyParameter() {
        #expect(throws: SRTPError.invalidKeyParameter(reason: "key parameter must start with \"inline:\"")) {
            _ = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, sdesKeyParameter: "uri:https://example.org")
        }
        #expect(throws: SRTPError.invalidKeyParameter(reason: "key and salt are not valid base64")) {
            _ = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, sdesKeyParameter: "inline:@@@@")
        }
        #expect(throws: SRTPError.invalidKeyParameter(reason: "MKI \"1:4\" is not supported")) {
            _ = try SRTPKeyMaterial(profile: .aesCM128HMACSHA1_80, sdesKeyParameter: exampleParameter + "|1:4")
        }
        #expect(throws: SRTPError.invalidKeyParameter(reason: "lifetime \"forever\" is neither a number nor 2^n")) {
            _ = try SRTPKeyMaterial(
                profile: .aesCM128HMACSHA1_80, sdesKeyParameter: "inline:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd|forever")
        }
    }

    @Test func refusesKeyMaterialOfTheWrongLength() {
        #expect(throws: SRTPError.keyLengthMismatch(profile: .aeadAES128GCM, expectedBytes: 28, foundBytes: 30)) {
            _ = try SRTPKeyMaterial(profile: .aeadAES128GCM, sdesKeyParameter: exampleParameter)
        }
        #expect(throws: SRTPError.keyLengthMismatch(profile: .aeadAES256GCM, expectedBytes: 32, foundBytes: 16)) {
            _ = try SRTPKeyMaterial(profile: .aeadAES256GCM, masterKey: [UInt8](repeating: 1, count: 16), masterSalt: [])
        }
        #expect(throws: SRTPError.keyLengthMismatch(profile: .aesCM128HMACSHA1_32, expectedBytes: 14, foundBytes: 12)) {
            _ = try SRTPKeyMaterial(
                profile: .aesCM128HMACSHA1_32, masterKey: [UInt8](repeating: 1, count: 16),
                masterSalt: [UInt8](repeating: 2, count: 12))
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func randomKeysHaveTheProfilesLengthsAndDiffer(profile: SRTPProfile) {
        let first = SRTPKeyMaterial.random(profile: profile)
        let second = SRTPKeyMaterial.random(profile: profile)
        #expect(first.masterKey.count == profile.masterKeyLength)
        #expect(first.masterSalt.count == profile.masterSaltLength)
        #expect(first != second)
    }
}
