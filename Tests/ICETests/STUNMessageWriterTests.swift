import TestSupport
import Testing

@testable import ICE

@Suite struct STUNMessageWriterTests {
    @Test func writesASuccessResponseThatVerifies() throws {
        let key = Array(rfc5769Password.utf8)
        let bytes = written { buffer in
            STUNMessageWriter.bindingSuccess(
                transactionID: rfc5769TransactionID, mappedIPv4: 0xC000_0201, mappedPort: 32853,
                integrityKey: key, into: buffer)
        }
        #expect(bytes.count == STUNMessageWriter.bindingSuccessByteCount)
        // The XOR-MAPPED-ADDRESS attribute is byte for byte the one of RFC 5769's sample response.
        #expect(Array(bytes[20..<32]) == hexBytes("00 20 00 08 00 01 a1 47 e1 12 a6 43"))
        try withMessage(bytes) { message in
            #expect(message.messageClass == .successResponse)
            #expect(message.method == .binding)
            #expect(message.transactionID == rfc5769TransactionID)
            #expect(message.hasValidMessageIntegrity(key: key))
            #expect(!message.hasValidMessageIntegrity(key: Array("other".utf8)))
            #expect(message.hasValidFingerprint())
            let mapped = try #require(message.xorMappedIPv4)
            #expect(mapped.address == 0xC000_0201)
            #expect(mapped.port == 32853)
        }
    }

    @Test func writesAnUnauthenticatedErrorResponse() throws {
        let bytes = written { buffer in
            STUNMessageWriter.bindingError(
                transactionID: rfc5769TransactionID, code: 401, reason: "Unauthorized", integrityKey: nil, into: buffer)
        }
        // Header, ERROR-CODE with 12 bytes of reason, FINGERPRINT.
        #expect(bytes.count == 20 + 4 + 16 + 8)
        try withMessage(bytes) { message in
            #expect(message.messageClass == .errorResponse)
            #expect(message.transactionID == rfc5769TransactionID)
            #expect(message.errorCode == 401)
            #expect(!message.hasMessageIntegrity)
            #expect(message.hasValidFingerprint())
        }
    }

    @Test func writesAnAuthenticatedErrorResponseWithPaddedReason() throws {
        let key = Array("pw".utf8)
        let bytes = written { buffer in
            STUNMessageWriter.bindingError(
                transactionID: rfc5769TransactionID, code: 487, reason: "Role Conflict", integrityKey: key, into: buffer
            )
        }
        // "Role Conflict" follows 4 code bytes: 17 bytes padded to 20 with zeros.
        #expect(Array(bytes[41..<44]) == [0, 0, 0])
        try withMessage(bytes) { message in
            #expect(message.errorCode == 487)
            #expect(message.hasValidMessageIntegrity(key: key))
            #expect(message.hasValidFingerprint())
        }
    }

    @Test(arguments: [false, true])
    func writesARequestAsAControllingAgentSendsIt(useCandidate: Bool) throws {
        let key = Array("remote password".utf8)
        let id = STUNTransactionID(high: 9, middle: 8, low: 7)
        let bytes = written { buffer in
            STUNMessageWriter.bindingRequest(
                transactionID: id, username: "abcd:efghi", priority: 0x6e00_01ff,
                controllingTieBreaker: 0x0102_0304_0506_0708, useCandidate: useCandidate, integrityKey: key,
                into: buffer)
        }
        #expect(bytes.count == 80 - (useCandidate ? 0 : 4) + 12)
        try withMessage(bytes) { message in
            #expect(message.isBindingRequest)
            #expect(message.transactionID == id)
            #expect(message.username.map(Array.init) == Array("abcd:efghi".utf8))
            #expect(message.priority == 0x6e00_01ff)
            #expect(message.iceControlling == 0x0102_0304_0506_0708)
            #expect(message.iceControlled == nil)
            #expect(message.hasUseCandidate == useCandidate)
            #expect(message.hasValidMessageIntegrity(key: key))
            #expect(message.hasValidFingerprint())
        }
    }

    @Test func writesAnIndication() throws {
        let bytes = written { STUNMessageWriter.bindingIndication(transactionID: rfc5769TransactionID, into: $0) }
        #expect(bytes.count == 28)
        try withMessage(bytes) { message in
            #expect(message.isBindingIndication)
            #expect(!message.isBindingRequest)
            #expect(message.hasValidFingerprint())
        }
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        let check = Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) }
        #expect(check == 0xCBF4_3926)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    @Test func messageTypesInterleaveClassAndMethod() {
        #expect(STUNMessageClass.request.messageType(method: .binding) == 0x0001)
        #expect(STUNMessageClass.indication.messageType(method: .binding) == 0x0011)
        #expect(STUNMessageClass.successResponse.messageType(method: .binding) == 0x0101)
        #expect(STUNMessageClass.errorResponse.messageType(method: .binding) == 0x0111)
        // TURN's CreatePermission (0x008) and a method using every bit.
        #expect(STUNMessageClass.errorResponse.messageType(method: STUNMethod(rawValue: 0x008)) == 0x0118)
        for messageClass in STUNMessageClass.allCases {
            for method in [STUNMethod(rawValue: 0x001), STUNMethod(rawValue: 0xFFF), STUNMethod(rawValue: 0xA5A)] {
                let type = messageClass.messageType(method: method)
                #expect(type & 0xC000 == 0)
                #expect(STUNMessageClass(messageType: type) == messageClass)
                #expect(STUNMethod(messageType: type) == method)
            }
        }
    }

    @Test func transactionIDsRoundTripThroughBytes() {
        let id = STUNTransactionID(hexBytes("b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"))
        #expect(id == rfc5769TransactionID)
        #expect(id.bytes == hexBytes("b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"))
        #expect(id.description == "b7e7a701bc34d686fa87dfae")
        #expect(STUNTransactionID(high: 0, middle: 1, low: 0).description == "000000000000000100000000")
        var generator = SeededGenerator(seed: 1)
        #expect(STUNTransactionID.random(using: &generator) != STUNTransactionID.random(using: &generator))
    }
}
