import SignalingProtocol
import Testing

@testable import Signaling

@Suite struct SignalRulesTests {
    private func refusal(type: String, data: String) -> SignalingError? {
        do {
            try SignalRules.validate(type: type, data: data)
            return nil
        } catch {
            return error
        }
    }

    @Test func theReferenceLimitsAreAccepted() {
        #expect(refusal(type: String(repeating: "a", count: 128), data: String(repeating: "d", count: 8192)) == nil)
        #expect(refusal(type: "", data: "") == nil)
        #expect(refusal(type: "Az09-_~", data: "é") == nil)
    }

    @Test func aTypeOverTheLimitIsRefused() {
        #expect(refusal(type: String(repeating: "a", count: 129), data: "")?.message == "params.type: has 129 characters; the limit is 128")
    }

    @Test func aTypeWithAForbiddenCharacterNamesIt() {
        #expect(refusal(type: "chat message", data: "")?.message == "params.type: contains \" \"; only A-Z a-z 0-9 - _ ~ are allowed")
        #expect(refusal(type: "é", data: "")?.code == .invalidParams)
    }

    @Test func dataOverEightKilobytesIsRefused() {
        // 4097 two-byte characters: under 8192 characters, over 8192 bytes.
        #expect(refusal(type: "t", data: String(repeating: "é", count: 4097))?.message == "params.data: is 8194 bytes; the limit is 8192")
    }
}
