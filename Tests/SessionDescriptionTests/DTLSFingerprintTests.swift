import Testing

@testable import SessionDescription

@Suite struct DTLSFingerprintTests {
    @Test func parsesAndWritesUppercaseHex() throws {
        let fingerprint = try DTLSFingerprint(
            parsing:
                "SHA-256 a5:4d:ca:18:25:30:bb:1d:6d:13:2c:de:d6:23:7b:2e:d9:1e:3f:72:1f:cb:19:71:17:44:94:d6:49:3c:9d:5c"
        )
        #expect(fingerprint.algorithm == "sha-256")
        #expect(fingerprint.bytes.count == 32)
        #expect(fingerprint.bytes.suffix(2) == [0x9D, 0x5C])
        #expect(
            fingerprint.description
                == "sha-256 A5:4D:CA:18:25:30:BB:1D:6D:13:2C:DE:D6:23:7B:2E:D9:1E:3F:72:1F:CB:19:71:17:44:94:D6:49:3C:9D:5C"
        )
        #expect(try DTLSFingerprint(parsing: fingerprint.description) == fingerprint)
    }

    @Test func lowercasesTheAlgorithmGivenInCode() {
        #expect(DTLSFingerprint(algorithm: "SHA-1", bytes: [0x0A]).algorithm == "sha-1")
        #expect(DTLSFingerprint(algorithm: "SHA-1", bytes: [0x0A, 0xFF]).description == "sha-1 0A:FF")
    }

    @Test func takesHashFunctionsItDoesNotKnowAtAnyLength() throws {
        #expect(try DTLSFingerprint(parsing: "blake3 01:02:03").bytes == [1, 2, 3])
    }

    @Test func refusesEmptyBytesAndDoubleColons() {
        #expect(throws: SDPError(reason: "fingerprint byte \"\" is not two hex digits")) {
            try DTLSFingerprint(parsing: "sha-1 0A::0B")
        }
        #expect(throws: SDPError(reason: "fingerprint byte \"ABC\" is not two hex digits")) {
            try DTLSFingerprint(parsing: "sha-1 ABC")
        }
    }
}
