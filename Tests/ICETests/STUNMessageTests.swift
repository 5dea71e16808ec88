import TestSupport
import Testing

@testable import ICE

@Suite struct STUNMessageTests {
    // MARK: RFC 5769 vectors

    @Test func readsTheFieldsOfTheRFC5769SampleRequest() throws {
        try withMessage(rfc5769SampleRequest) { message in
            #expect(message.method == .binding)
            #expect(message.messageClass == .request)
            #expect(message.isBindingRequest)
            #expect(!message.isBindingIndication)
            #expect(message.transactionID == rfc5769TransactionID)
            #expect(message.username.map(Array.init) == Array("evtj:h6vY".utf8))
            #expect(message.priority == 0x6e00_01ff)
            #expect(message.iceControlled == 0x932f_f9b1_5126_3b36)
            #expect(message.iceControlling == nil)
            #expect(!message.hasUseCandidate)
            #expect(message.hasMessageIntegrity)
            #expect(message.hasFingerprint)
            #expect(message.unknownComprehensionRequiredAttribute == nil)
        }
    }

    @Test func verifiesIntegrityAndFingerprintOfTheRFC5769SampleRequest() throws {
        try withMessage(rfc5769SampleRequest) { message in
            #expect(message.hasValidMessageIntegrity(key: Array(rfc5769Password.utf8)))
            #expect(message.hasValidFingerprint())
        }
    }

    @Test func rejectsTheRFC5769SampleRequestUnderAnotherPassword() throws {
        try withMessage(rfc5769SampleRequest) { message in
            #expect(!message.hasValidMessageIntegrity(key: Array("VOkJxbRl1RmTxUk/WvJxBu".utf8)))
            #expect(!message.hasValidMessageIntegrity(key: []))
        }
    }

    @Test func aChangedByteFailsBothIntegrityAndFingerprint() throws {
        var tampered = rfc5769SampleRequest
        tampered[47] ^= 0x01  // last byte of the PRIORITY value
        try withMessage(tampered) { message in
            #expect(message.priority == 0x6e00_01fe)
            #expect(!message.hasValidMessageIntegrity(key: Array(rfc5769Password.utf8)))
            #expect(!message.hasValidFingerprint())
        }
    }

    @Test func aChangedFingerprintFailsOnlyTheFingerprint() throws {
        var tampered = rfc5769SampleRequest
        tampered[tampered.count - 1] ^= 0x80
        try withMessage(tampered) { message in
            #expect(message.hasValidMessageIntegrity(key: Array(rfc5769Password.utf8)))
            #expect(!message.hasValidFingerprint())
        }
    }

    @Test func verifiesAndReadsTheRFC5769SampleIPv4Response() throws {
        try withMessage(rfc5769SampleIPv4Response) { message in
            #expect(message.messageClass == .successResponse)
            #expect(message.method == .binding)
            #expect(message.transactionID == rfc5769TransactionID)
            #expect(message.hasValidMessageIntegrity(key: Array(rfc5769Password.utf8)))
            #expect(message.hasValidFingerprint())
            let mapped = try #require(message.xorMappedIPv4)
            #expect(mapped.address == 0xC000_0201)  // 192.0.2.1
            #expect(mapped.port == 32853)
        }
    }

    // MARK: Integrity placement

    @Test func verifiesIntegrityWhenItIsTheLastAttribute() throws {
        let key = Array("secret".utf8)
        let bytes = built { builder in
            builder.append(type: STUNAttributeType.username, utf8: "a:b")
            _ = builder.appendMessageIntegrity(key: key)
        }
        try withMessage(bytes) { message in
            #expect(!message.hasFingerprint)
            #expect(!message.hasValidFingerprint())
            #expect(message.hasValidMessageIntegrity(key: key))
        }
    }

    @Test func ignoresAttributesBetweenIntegrityAndFingerprint() throws {
        let key = Array("secret".utf8)
        let bytes = built { builder in
            builder.append(type: STUNAttributeType.username, utf8: "a:b")
            _ = builder.appendMessageIntegrity(key: key)
            builder.append(type: STUNAttributeType.priority, uint32: 7)
            builder.appendFlag(type: STUNAttributeType.useCandidate)
            builder.append(type: 0x7777, uint32: 0)
            builder.appendFingerprint()
        }
        try withMessage(bytes) { message in
            #expect(message.priority == nil)
            #expect(!message.hasUseCandidate)
            #expect(message.unknownComprehensionRequiredAttribute == nil)
            #expect(message.hasValidMessageIntegrity(key: key))
            #expect(message.hasValidFingerprint())
        }
    }

    @Test func withoutIntegrityOrFingerprintNeitherVerifies() throws {
        try withMessage(built { _ in }) { message in
            #expect(!message.hasMessageIntegrity)
            #expect(!message.hasValidMessageIntegrity(key: []))
            #expect(!message.hasValidFingerprint())
            #expect(message.username == nil)
        }
    }

    // MARK: Attributes

    @Test func keepsTheFirstOfRepeatedAttributes() throws {
        let bytes = built { builder in
            builder.append(type: STUNAttributeType.priority, uint32: 1)
            builder.append(type: STUNAttributeType.priority, uint32: 2)
            builder.append(type: STUNAttributeType.username, utf8: "first")
            builder.append(type: STUNAttributeType.username, utf8: "second")
        }
        try withMessage(bytes) { message in
            #expect(message.priority == 1)
            #expect(message.username.map(Array.init) == Array("first".utf8))
        }
    }

    @Test func notesUnknownComprehensionRequiredAttributesAndSkipsOptionalOnes() throws {
        let bytes = built { builder in
            builder.append(type: 0xC057, uint32: 0)  // GOOG-NETWORK-INFO, comprehension-optional
            builder.append(type: 0x0030, uint32: 0)
            builder.append(type: 0x0031, uint32: 0)
        }
        try withMessage(bytes) { message in
            #expect(message.unknownComprehensionRequiredAttribute == 0x0030)
        }
        let optionalOnly = built { $0.append(type: 0xC057, uint32: 0) }
        try withMessage(optionalOnly) { message in
            #expect(message.unknownComprehensionRequiredAttribute == nil)
        }
    }

    @Test func readsAnErrorCode() throws {
        let bytes = built(.errorResponse) { $0.appendErrorCode(487, reason: "Role Conflict") }
        try withMessage(bytes) { message in
            #expect(message.messageClass == .errorResponse)
            #expect(message.errorCode == 487)
        }
    }

    // MARK: Refusals

    @Test(arguments: [0, 1, 19])
    func refusesFewerBytesThanAHeader(count: Int) {
        #expect(parseError(Array(rfc5769SampleRequest.prefix(count))) == .tooShort(length: count))
    }

    @Test func refusesAFirstByteWithTheTopBitsSet() {
        var bytes = rfc5769SampleRequest
        bytes[0] = 0x80  // an RTP packet's first byte
        #expect(parseError(bytes) == .notSTUN(firstByte: 0x80))
        bytes[0] = 0x40
        #expect(parseError(bytes) == .notSTUN(firstByte: 0x40))
    }

    @Test func refusesABadMagicCookie() {
        var bytes = rfc5769SampleRequest
        bytes[7] = 0x43
        #expect(parseError(bytes) == .badMagicCookie)
    }

    @Test func refusesALengthThatIsNotAMultipleOfFour() {
        var bytes = rfc5769SampleRequest
        bytes[3] = 0x57
        #expect(parseError(bytes) == .lengthNotMultipleOfFour(declared: 0x57))
    }

    @Test func refusesALengthThatDisagreesWithTheDatagram() {
        #expect(parseError(Array(rfc5769SampleRequest.dropLast(8))) == .lengthMismatch(declared: 88, actual: 80))
        #expect(parseError(rfc5769SampleRequest + [0, 0, 0, 0]) == .lengthMismatch(declared: 88, actual: 92))
    }

    @Test func refusesAnAttributeRunningPastTheEnd() {
        let bytes = hexBytes(
            """
            00 01 00 08 21 12 a4 42 00 00 00 01 00 00 00 02 00 00 00 03
            00 06 00 0c 61 62 63 64   # USERNAME claims 12 bytes, 4 follow
            """)
        #expect(parseError(bytes) == .attributeOverrun(type: 0x0006))
        let paddingMissing = hexBytes(
            """
            00 01 00 08 21 12 a4 42 00 00 00 01 00 00 00 02 00 00 00 03
            00 06 00 05 61 62 63 64   # 5 bytes need 8 with padding
            """)
        #expect(parseError(paddingMissing) == .attributeOverrun(type: 0x0006))
    }

    @Test func refusesAnAttributeAfterFingerprint() {
        let bytes = built { builder in
            builder.appendFingerprint()
            builder.append(type: STUNAttributeType.priority, uint32: 1)
        }
        #expect(parseError(bytes) == .attributeAfterFingerprint(type: STUNAttributeType.priority))
    }

    @Test func refusesKnownAttributesOfTheWrongLength() {
        let shortPriority = built { builder in
            builder.append(type: STUNAttributeType.priority, length: 2) { _ in }
        }
        #expect(parseError(shortPriority) == .badAttributeLength(type: STUNAttributeType.priority, length: 2))
        let longUseCandidate = built { builder in
            builder.append(type: STUNAttributeType.useCandidate, uint32: 0)
        }
        #expect(parseError(longUseCandidate) == .badAttributeLength(type: STUNAttributeType.useCandidate, length: 4))
        let shortIntegrity = built { builder in
            builder.append(type: STUNAttributeType.messageIntegrity, length: 16) { _ in }
        }
        #expect(parseError(shortIntegrity) == .badAttributeLength(type: STUNAttributeType.messageIntegrity, length: 16))
        let shortControlling = built { builder in
            builder.append(type: STUNAttributeType.iceControlling, uint32: 0)
        }
        #expect(parseError(shortControlling) == .badAttributeLength(type: STUNAttributeType.iceControlling, length: 4))
    }

    @Test func errorsSayWhatWasWrong() {
        #expect(STUNError.tooShort(length: 19).description == "STUN message too short: 19 bytes, a header needs 20")
        #expect(
            STUNError.lengthMismatch(declared: 88, actual: 80).description
                == "STUN message length says 88 bytes follow the header but 80 do")
        #expect(
            STUNError.attributeOverrun(type: 6).description == "STUN attribute 0x0006 runs past the end of the message")
        #expect(STUNError.notSTUN(firstByte: 128).description.contains("128"))
    }
}
