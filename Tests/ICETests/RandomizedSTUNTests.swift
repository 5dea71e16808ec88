import Testing
import TestSupport

@testable import ICE

/// Randomized robustness tests for what a stranger's first datagram on a shared WebRTC port reaches
/// before anything is authenticated: the STUN parser, and the ICE-lite agent that judges the check.
/// Fixed seeds, so a failure reproduces on every run; every input comes from an exactly sized array,
/// so a read past its end traps in a debug build. `Fuzz/` drives the RTP parsers the same way under
/// libFuzzer; see docs/fuzzing.md.
@Suite struct RandomizedSTUNTests {
    private struct Endpoint: Hashable, Sendable {
        var address: UInt32
        var port: UInt16
    }

    private static let local = ICECredentials(usernameFragment: "lite", password: "abcdefghijklmnopqrstuvwx")
    private static let remote = ICECredentials(usernameFragment: "brws", password: "browser-password-unused!")

    /// A connectivity check as a browser sends it, signed with the agent's password.
    private static func check(useCandidate: Bool, id: UInt32) -> [UInt8] {
        written { buffer in
            STUNMessageWriter.bindingRequest(
                transactionID: STUNTransactionID(high: 0xAAAA, middle: 0xBBBB, low: id), username: "lite:brws",
                priority: 0x6e00_01ff, controllingTieBreaker: 0x1234, useCandidate: useCandidate,
                integrityKey: Array(local.password.utf8), into: buffer)
        }
    }

    /// Valid messages of every kind the parser meets: the RFC 5769 samples, checks with and without
    /// USE-CANDIDATE, a success and an error response, an indication.
    private static var seeds: [[UInt8]] {
        let transaction = STUNTransactionID(high: 1, middle: 2, low: 3)
        let key = Array(local.password.utf8)
        return [
            rfc5769SampleRequest, rfc5769SampleIPv4Response, check(useCandidate: false, id: 1), check(useCandidate: true, id: 2),
            written { ICELiteResponse(transactionID: transaction, integrityKey: key).write(mappedIPv4: 0xC0A8_0107, mappedPort: 61_234, into: $0) },
            written { STUNMessageWriter.bindingError(transactionID: transaction, code: 487, reason: "Role Conflict", integrityKey: key, into: $0) },
            written { STUNMessageWriter.bindingIndication(transactionID: transaction, into: $0) },
        ]
    }

    /// Random bytes, half of them with a STUN header whose length matches, so they reach the
    /// attribute loop.
    private static func randomMessage(using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = ByteMutations.randomBytes(using: &generator)
        guard Bool.random(using: &generator), bytes.count >= 20 else { return bytes }
        bytes.removeLast((bytes.count - 20) % 4)
        bytes[0] &= 0x01
        let length = bytes.count - 20
        bytes[2] = UInt8(length >> 8)
        bytes[3] = UInt8(length & 0xFF)
        bytes[4...7] = [0x21, 0x12, 0xA4, 0x42]
        return bytes
    }

    /// Parses `bytes`; whatever parses is read in full and must describe the bytes it came from.
    private static func exercise(_ bytes: [UInt8]) -> (parsed: Bool, error: STUNError?) {
        bytes.withUnsafeBytes { buffer in
            do throws(STUNError) {
                let message = try STUNMessage(parsing: buffer)
                #expect(Int(buffer.uint16(at: 2)) == bytes.count - STUNMessage.headerByteCount, "\(bytes)")
                if let username = message.username {
                    #expect(username.count <= STUNMessage.maximumUsernameByteCount)
                    #expect(username.baseAddress! >= buffer.baseAddress! && username.baseAddress! + username.count <= buffer.baseAddress! + buffer.count)
                }
                _ = message.xorMappedIPv4
                _ = message.hasValidFingerprint()
                _ = message.hasValidMessageIntegrity(key: Array(local.password.utf8))
                _ = (message.method, message.messageClass, message.priority, message.iceControlling, message.errorCode)
                return (true, nil)
            } catch {
                return (false, error)
            }
        }
    }

    @Test func randomAndMutatedMessagesParseOrThrowTheirError() {
        var generator = SeededGenerator(seed: 0x5354_554E_5241_4E44)
        var parsed = 0
        var errors: Set<String> = []
        for seed in Self.seeds {
            #expect(Self.exercise(seed).parsed, "every seed parses before it is mutated: \(seed)")
        }
        for index in 0..<6_000 {
            let bytes =
                index % 3 == 0
                ? Self.randomMessage(using: &generator) : ByteMutations.mutated(Self.seeds.randomElement(using: &generator)!, using: &generator)
            let outcome = Self.exercise(bytes)
            if outcome.parsed { parsed += 1 }
            if let error = outcome.error { errors.insert("\(error)".prefix { $0 != "(" }.description) }
        }
        #expect(parsed >= 600, "parsed \(parsed) of 6000")
        #expect(errors.count >= 7, "error cases reached: \(errors.sorted())")
    }

    /// Only a check signed with the agent's password verifies an address or nominates it: whatever a
    /// mutation did to a real check, the agent's state moves only when every byte up to the end of
    /// MESSAGE-INTEGRITY is the original's.
    @Test func onlyAnAuthenticCheckChangesTheAgent() {
        var generator = SeededGenerator(seed: 0x4943_454C_4954_4521)
        let checks = [Self.check(useCandidate: false, id: 7), Self.check(useCandidate: true, id: 8)]
        // Everything before FINGERPRINT, the last 8 bytes, is covered by MESSAGE-INTEGRITY.
        let signedPrefix = checks.map { $0.count - 8 }
        var changed = 0
        for index in 0..<4_000 {
            var agent = ICELiteAgent<Endpoint>(local: Self.local)
            agent.setRemote(Self.remote)
            let source = Endpoint(address: 0xC0A8_0107, port: 61_234)
            let which = index % 2
            let bytes = index % 50 == 0 ? checks[which] : ByteMutations.mutated(checks[which], using: &generator)
            let action = bytes.withUnsafeBytes { agent.handle(datagram: $0, from: source, now: 1_000) }
            let moved = agent.isVerified(source) || agent.nominated != nil
            #expect(moved == (action.response != nil), "state and action disagree for \(bytes)")
            if moved {
                changed += 1
                #expect(bytes.count >= signedPrefix[which] && Array(bytes.prefix(signedPrefix[which])) == Array(checks[which].prefix(signedPrefix[which])),
                    "a check the agent accepted differs from the signed one before its FINGERPRINT: \(bytes)")
            }
        }
        #expect(changed >= 80, "unmutated checks verify: \(changed)")
    }
}
