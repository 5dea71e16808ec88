import Testing

@testable import ICE

/// A remote transport address as the media plane would wrap it.
private struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    var address: UInt32
    var port: UInt16

    static func host(_ last: UInt8, port: UInt16 = 50_000) -> Endpoint {
        Endpoint(address: 0xC0A8_0100 | UInt32(last), port: port)  // 192.168.1.x
    }

    var description: String { "192.168.1.\(address & 0xFF):\(port)" }
}

private let local = ICECredentials(usernameFragment: "lite", password: "abcdefghijklmnopqrstuvwx")
private let remote = ICECredentials(usernameFragment: "brws", password: "browser-password-unused!")
private let second = 1_000_000_000 as UInt64

/// A check as the browser sends it.
private func check(
    username: String = "lite:brws",
    password: String = local.password,
    useCandidate: Bool = false,
    id: UInt32 = 1
) -> [UInt8] {
    written { buffer in
        STUNMessageWriter.bindingRequest(
            transactionID: STUNTransactionID(high: 0xAAAA, middle: 0xBBBB, low: id), username: username,
            priority: 0x6e00_01ff, controllingTieBreaker: 0x1234, useCandidate: useCandidate,
            integrityKey: Array(password.utf8), into: buffer)
    }
}

extension ICELiteAgent {
    fileprivate mutating func handle(_ bytes: [UInt8], from source: Address, now: UInt64 = 0) -> ICELiteAction<Address>
    {
        bytes.withUnsafeBytes { handle(datagram: $0, from: source, now: now) }
    }
}

@Suite struct ICELiteAgentTests {
    // MARK: Success

    @Test func answersACheckWithAResponseTheBrowserCanVerify() throws {
        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        let source = Endpoint.host(7, port: 61_234)
        #expect(!agent.isVerified(source))
        #expect(agent.selected == nil)

        let action = agent.handle(check(id: 42), from: source)
        let response = try #require(action.response)
        #expect(
            action
                == .respond(
                    ICELiteResponse(
                        transactionID: STUNTransactionID(high: 0xAAAA, middle: 0xBBBB, low: 42),
                        integrityKey: Array(local.password.utf8))))
        #expect(agent.isVerified(source))
        #expect(agent.selected == source)
        #expect(agent.nominated == nil)

        let reply = written { response.write(mappedIPv4: source.address, mappedPort: source.port, into: $0) }
        try withMessage(reply) { message in
            #expect(message.messageClass == .successResponse)
            #expect(message.transactionID.low == 42)
            #expect(message.hasValidMessageIntegrity(key: Array(local.password.utf8)))
            #expect(message.hasValidFingerprint())
            let mapped = try #require(message.xorMappedIPv4)
            #expect(Endpoint(address: mapped.address, port: mapped.port) == source)
        }
    }

    @Test func anAuthenticatedErrorResponseVerifiesWithTheLocalKey() throws {
        var agent = ICELiteAgent<Endpoint>(local: ICECredentials(usernameFragment: "evtj", password: rfc5769Password))
        let action = agent.handle(rfc5769SampleRequest, from: .host(1))
        guard case .respondError(let code, let reason, authenticated: true) = action else {
            Issue.record("expected an authenticated error, got \(action)")
            return
        }
        let reply = written { buffer in
            STUNMessageWriter.bindingError(
                transactionID: rfc5769TransactionID, code: code, reason: reason,
                integrityKey: agent.localIntegrityKey, into: buffer)
        }
        try withMessage(reply) { message in
            #expect(message.errorCode == 487)
            #expect(message.hasValidMessageIntegrity(key: Array(rfc5769Password.utf8)))
            #expect(message.hasValidFingerprint())
        }
    }

    // MARK: Refusals

    @Test func theRFC5769SampleRequestClaimsControlledAndGetsRoleConflict() {
        var agent = ICELiteAgent<Endpoint>(local: ICECredentials(usernameFragment: "evtj", password: rfc5769Password))
        let action = agent.handle(rfc5769SampleRequest, from: .host(1))
        #expect(
            action
                == .respondError(
                    code: 487, reason: "Role Conflict: an ICE-lite agent is always controlled", authenticated: true))
        #expect(!agent.isVerified(.host(1)))
    }

    @Test func aBadMessageIntegrityGetsAnUnauthenticated401() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        let action = agent.handle(check(password: "not the password"), from: .host(1))
        #expect(action == .respondError(code: 401, reason: "Unauthorized", authenticated: false))
        #expect(!agent.isVerified(.host(1)))
    }

    @Test func aBadOrMissingFingerprintIsDropped() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        var damaged = check()
        damaged[damaged.count - 1] ^= 0x01
        #expect(agent.handle(damaged, from: .host(1)) == .drop(.badFingerprint))

        let withoutFingerprint = built { builder in
            builder.append(type: STUNAttributeType.username, utf8: "lite:brws")
            builder.append(type: STUNAttributeType.priority, uint32: 1)
            builder.append(type: STUNAttributeType.iceControlling, uint64: 1)
            _ = builder.appendMessageIntegrity(key: Array(local.password.utf8))
        }
        #expect(agent.handle(withoutFingerprint, from: .host(1)) == .drop(.missingFingerprint))
        #expect(!agent.isVerified(.host(1)))
    }

    @Test(arguments: ["other:brws", "lit:brws", "liteX:brws", "lite", "litebrws", "LITE:brws", ":lite"])
    func aUsernameNotForOurUfragIsDropped(username: String) {
        var agent = ICELiteAgent<Endpoint>(local: local)
        #expect(agent.handle(check(username: username), from: .host(1)) == .drop(.unknownUsername))
        #expect(!agent.isVerified(.host(1)))
    }

    @Test func aMissingUsernameOrIntegrityGetsAnUnauthenticated400() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        let expected = ICELiteAction<Endpoint>.respondError(
            code: 400, reason: "Bad Request: USERNAME and MESSAGE-INTEGRITY are required", authenticated: false)
        let withoutUsername = built { builder in
            builder.append(type: STUNAttributeType.priority, uint32: 1)
            builder.append(type: STUNAttributeType.iceControlling, uint64: 1)
            _ = builder.appendMessageIntegrity(key: Array(local.password.utf8))
            builder.appendFingerprint()
        }
        #expect(agent.handle(withoutUsername, from: .host(1)) == expected)
        let withoutIntegrity = built { builder in
            builder.append(type: STUNAttributeType.username, utf8: "lite:brws")
            builder.append(type: STUNAttributeType.priority, uint32: 1)
            builder.append(type: STUNAttributeType.iceControlling, uint64: 1)
            builder.appendFingerprint()
        }
        #expect(agent.handle(withoutIntegrity, from: .host(1)) == expected)
        #expect(agent.verifiedAddresses.isEmpty)
    }

    @Test func aCheckWithoutIceControllingOrPriorityGetsAnAuthenticated400() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        let withoutControlling = built { builder in
            builder.append(type: STUNAttributeType.username, utf8: "lite:brws")
            builder.append(type: STUNAttributeType.priority, uint32: 1)
            _ = builder.appendMessageIntegrity(key: Array(local.password.utf8))
            builder.appendFingerprint()
        }
        #expect(
            agent.handle(withoutControlling, from: .host(1))
                == .respondError(code: 400, reason: "Bad Request: ICE-CONTROLLING is required", authenticated: true))
        let withoutPriority = built { builder in
            builder.append(type: STUNAttributeType.username, utf8: "lite:brws")
            builder.append(type: STUNAttributeType.iceControlling, uint64: 1)
            _ = builder.appendMessageIntegrity(key: Array(local.password.utf8))
            builder.appendFingerprint()
        }
        #expect(
            agent.handle(withoutPriority, from: .host(1))
                == .respondError(code: 400, reason: "Bad Request: PRIORITY is required", authenticated: true))
        #expect(agent.verifiedAddresses.isEmpty)
    }

    @Test func anUnknownComprehensionRequiredAttributeIsDroppedAfterAuthentication() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        func request(password: String) -> [UInt8] {
            built { builder in
                builder.append(type: STUNAttributeType.username, utf8: "lite:brws")
                builder.append(type: STUNAttributeType.priority, uint32: 1)
                builder.append(type: STUNAttributeType.iceControlling, uint64: 1)
                builder.append(type: 0x0030, uint32: 0)
                _ = builder.appendMessageIntegrity(key: Array(password.utf8))
                builder.appendFingerprint()
            }
        }
        #expect(
            agent.handle(request(password: local.password), from: .host(1))
                == .drop(.unknownComprehensionRequiredAttribute))
        #expect(
            agent.handle(request(password: "wrong"), from: .host(1))
                == .respondError(code: 401, reason: "Unauthorized", authenticated: false))
        #expect(!agent.isVerified(.host(1)))
    }

    @Test func indicationsResponsesAndGarbageAreDropped() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        let indication = written { STUNMessageWriter.bindingIndication(transactionID: rfc5769TransactionID, into: $0) }
        #expect(agent.handle(indication, from: .host(1)) == .drop(.indication))
        #expect(agent.handle(rfc5769SampleIPv4Response, from: .host(1)) == .drop(.notBindingRequest))
        let allocate = built(method: STUNMethod(rawValue: 0x003)) { $0.appendFingerprint() }  // TURN Allocate
        #expect(agent.handle(allocate, from: .host(1)) == .drop(.notBindingRequest))
        #expect(agent.handle(Array(check().dropLast(4)), from: .host(1)) == .drop(.malformed))
        #expect(agent.handle([0x16, 0xfe, 0xfd], from: .host(1)) == .drop(.malformed))
        #expect(agent.verifiedAddresses.isEmpty)
    }

    // MARK: Remote credentials

    @Test func onceTheRemoteIsKnownAnotherRemoteUfragIsDropped() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        #expect(agent.handle(check(username: "lite:other"), from: .host(1)) == .drop(.wrongRemoteUsername))
        #expect(agent.handle(check(username: "lite:brwsX"), from: .host(1)) == .drop(.wrongRemoteUsername))
        #expect(agent.handle(check(username: "lite:"), from: .host(1)) == .drop(.wrongRemoteUsername))
        #expect(!agent.isVerified(.host(1)))
        #expect(agent.handle(check(username: "lite:brws"), from: .host(1)).response != nil)
    }

    @Test func checksBeforeTheRemoteIsKnownAreAnsweredAndKeptWhenTheUfragMatches() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        #expect(agent.handle(check(useCandidate: true), from: .host(1)).response != nil)
        #expect(agent.selected == .host(1))
        agent.setRemote(remote)
        #expect(agent.isVerified(.host(1)))
        #expect(agent.nominated == .host(1))
        #expect(agent.remoteCredentials == remote)
    }

    @Test func settingTheRemoteForgetsAddressesVerifiedUnderAnotherUfrag() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(username: "lite:brws"), from: .host(1))
        _ = agent.handle(check(username: "lite:evil", useCandidate: true), from: .host(2))
        #expect(agent.nominated == .host(2))
        agent.setRemote(remote)
        #expect(agent.verifiedAddresses == [.host(1)])
        #expect(agent.nominated == nil)
        #expect(agent.selected == .host(1))
    }

    @Test func theRemoteUfragAnAddressLastNamedIsTheOneThatCounts() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(username: "lite:old1"), from: .host(1))
        _ = agent.handle(check(username: "lite:brws"), from: .host(1))
        agent.setRemote(remote)
        #expect(agent.isVerified(.host(1)))
    }

    // MARK: Nomination

    @Test func useCandidateNominatesAndANewAddressRenominates() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        let a = Endpoint.host(1), b = Endpoint.host(2)

        let first = agent.handle(check(useCandidate: true, id: 1), from: a)
        guard case .nominated(let address, let response) = first else {
            Issue.record("expected a nomination, got \(first)")
            return
        }
        #expect(address == a)
        #expect(response.transactionID.low == 1)
        #expect(agent.selected == a)

        // Browsers keep USE-CANDIDATE on later checks of the nominated pair: no second nomination.
        #expect(
            agent.handle(check(useCandidate: true, id: 2), from: a)
                == .respond(
                    ICELiteResponse(
                        transactionID: STUNTransactionID(high: 0xAAAA, middle: 0xBBBB, low: 2),
                        integrityKey: Array(local.password.utf8))))

        // Another verified address does not take over without USE-CANDIDATE...
        #expect(agent.handle(check(id: 3), from: b).response != nil)
        #expect(agent.selected == a)
        // ...and does with it.
        #expect(
            agent.handle(check(useCandidate: true, id: 4), from: b)
                == .nominated(
                    b,
                    respond: ICELiteResponse(
                        transactionID: STUNTransactionID(high: 0xAAAA, middle: 0xBBBB, low: 4),
                        integrityKey: Array(local.password.utf8))))
        #expect(agent.selected == b)
        #expect(agent.nominated == b)
        #expect(agent.isVerified(a))

        // Back again.
        #expect(agent.handle(check(useCandidate: true, id: 5), from: a).response != nil)
        #expect(agent.nominated == a)
    }

    @Test func beforeNominationTheMostRecentlyVerifiedAddressIsSelected() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(), from: .host(1))
        _ = agent.handle(check(), from: .host(2))
        #expect(agent.selected == .host(2))
        // A repeated check from an older address does not move the selection back and forth.
        _ = agent.handle(check(), from: .host(1))
        #expect(agent.selected == .host(2))
        #expect(agent.verifiedAddresses == [.host(1), .host(2)])
    }

    @Test func aFailedUseCandidateCheckNominatesNothing() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(password: "wrong", useCandidate: true), from: .host(1))
        #expect(agent.nominated == nil)
        #expect(agent.selected == nil)
    }

    // MARK: Bounds

    @Test func theVerifiedSetKeepsTheEightMostRecentlySuccessful() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        for index in 1...10 {
            _ = agent.handle(check(), from: .host(UInt8(index)), now: UInt64(index) * second)
        }
        #expect(agent.verifiedAddresses == (3...10).map { .host(UInt8($0)) })
        #expect(!agent.isVerified(.host(1)))
        #expect(!agent.isVerified(.host(2)))

        // A fresh check from the oldest makes the next oldest the one to go.
        _ = agent.handle(check(), from: .host(3), now: 11 * second)
        _ = agent.handle(check(), from: .host(11), now: 12 * second)
        #expect(agent.isVerified(.host(3)))
        #expect(!agent.isVerified(.host(4)))
        #expect(agent.verifiedAddresses.count == ICELiteAgent<Endpoint>.maximumVerifiedAddresses)
    }

    @Test func theNominatedAddressIsNeverEvicted() {
        var agent = ICELiteAgent<Endpoint>(local: local, consentTimeout: 1_000 * second)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        for index in 2...20 {
            _ = agent.handle(check(), from: .host(UInt8(index)), now: UInt64(index) * second)
        }
        #expect(agent.isVerified(.host(1)))
        #expect(agent.selected == .host(1))
        #expect(agent.verifiedAddresses.count == 8)
        #expect(agent.verifiedAddresses == [.host(1)] + (14...20).map { .host(UInt8($0)) })
    }

    // MARK: Consent

    @Test func consentExpiresWithoutChecksFromTheNominatedAddress() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 100 * second)
        #expect(agent.consentDeadline == 130 * second)
        #expect(agent.tick(now: 100 * second) == nil)
        #expect(agent.tick(now: 130 * second - 1) == nil)
        #expect(agent.tick(now: 130 * second) == .consentExpired)
        // Reported once; everything is forgotten.
        #expect(agent.tick(now: 131 * second) == nil)
        #expect(agent.selected == nil)
        #expect(agent.nominated == nil)
        #expect(!agent.isVerified(.host(1)))
        #expect(agent.consentDeadline == nil)
        // A later check starts over.
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 140 * second)
        #expect(agent.nominated == .host(1))
        #expect(agent.consentDeadline == 170 * second)
    }

    @Test func checksFromTheNominatedAddressRefreshConsent() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        _ = agent.handle(check(), from: .host(1), now: 20 * second)
        #expect(agent.tick(now: 30 * second) == nil)
        #expect(agent.tick(now: 50 * second - 1) == nil)
        #expect(agent.consentDeadline == 50 * second)
        #expect(agent.tick(now: 50 * second) == .consentExpired)
    }

    @Test func checksFromOtherAddressesAndFailedChecksDoNotRefreshConsent() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        _ = agent.handle(check(), from: .host(2), now: 20 * second)
        _ = agent.handle(check(password: "wrong"), from: .host(1), now: 25 * second)
        #expect(agent.tick(now: 30 * second) == .consentExpired)
    }

    @Test func renominationMovesConsentToTheNewAddress() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        _ = agent.handle(check(useCandidate: true), from: .host(2), now: 20 * second)
        _ = agent.handle(check(), from: .host(1), now: 40 * second)  // the old address no longer counts
        #expect(agent.tick(now: 49 * second) == nil)
        #expect(agent.tick(now: 50 * second) == .consentExpired)
    }

    @Test func nothingExpiresBeforeNomination() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(), from: .host(1), now: 0)
        #expect(agent.consentDeadline == nil)
        #expect(agent.tick(now: 3_600 * second) == nil)
        #expect(agent.isVerified(.host(1)))
    }

    @Test func aClockBeforeTheLastRefreshDoesNotExpire() {
        var agent = ICELiteAgent<Endpoint>(local: local, consentTimeout: 5 * second)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 100 * second)
        #expect(agent.tick(now: 1) == nil)
        #expect(agent.tick(now: 105 * second) == .consentExpired)
    }

    // MARK: Restart

    @Test func restartKeepsOldAddressesUntilTheFirstCheckWithNewCredentials() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        _ = agent.handle(check(), from: .host(2), now: 1 * second)

        let newLocal = ICECredentials(usernameFragment: "lit2", password: "new-local-password-12345")
        let newRemote = ICECredentials(usernameFragment: "brw2", password: "new-remote-password-1234")
        agent.restart(local: newLocal, remote: newRemote, now: 10 * second)
        #expect(agent.localCredentials == newLocal)
        #expect(agent.localIntegrityKey == Array(newLocal.password.utf8))

        // Old credentials are refused at once, but media keeps flowing to the old addresses.
        #expect(agent.handle(check(), from: .host(1), now: 11 * second) == .drop(.unknownUsername))
        #expect(
            agent.handle(check(username: "lit2:brws", password: newLocal.password), from: .host(1))
                == .drop(.wrongRemoteUsername))
        #expect(agent.isVerified(.host(1)))
        #expect(agent.isVerified(.host(2)))
        #expect(agent.selected == .host(1))

        // The first check with the new credentials retires the old addresses and their nomination.
        let action = agent.handle(
            check(username: "lit2:brw2", password: newLocal.password), from: .host(3), now: 12 * second)
        #expect(action.response?.integrityKey == Array(newLocal.password.utf8))
        #expect(agent.verifiedAddresses == [.host(3)])
        #expect(agent.nominated == nil)
        #expect(agent.selected == .host(3))
        #expect(agent.tick(now: 1_000 * second) == nil)
    }

    @Test func restartKeepsTheNominationWhenTheNominatedAddressChecksFirst() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        _ = agent.handle(check(), from: .host(2), now: 1 * second)
        let newLocal = ICECredentials(usernameFragment: "lit2", password: "new-local-password-12345")
        agent.restart(
            local: newLocal, remote: ICECredentials(usernameFragment: "brw2", password: "x"), now: 10 * second)

        let action = agent.handle(
            check(username: "lit2:brw2", password: newLocal.password), from: .host(1), now: 12 * second)
        #expect(action.response != nil)
        #expect(agent.verifiedAddresses == [.host(1)])
        #expect(agent.nominated == .host(1))
        // That check refreshed consent.
        #expect(agent.consentDeadline == 42 * second)
    }

    @Test func restartGivesTheBrowserAWholeConsentTimeout() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        agent.restart(local: ICECredentials.random(), remote: nil, now: 25 * second)
        #expect(agent.tick(now: 30 * second) == nil)
        #expect(agent.consentDeadline == 55 * second)
        #expect(agent.tick(now: 55 * second) == .consentExpired)
    }

    @Test func restartWithoutRemoteAnswersAnyRemoteUfragUntilSetRemote() {
        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        _ = agent.handle(check(useCandidate: true), from: .host(1), now: 0)
        let newLocal = ICECredentials(usernameFragment: "lit2", password: "new-local-password-12345")
        agent.restart(local: newLocal, remote: nil, now: 1 * second)
        #expect(agent.remoteCredentials == nil)

        _ = agent.handle(check(username: "lit2:brw2", password: newLocal.password, useCandidate: true), from: .host(2))
        #expect(agent.nominated == .host(2))
        #expect(!agent.isVerified(.host(1)))
        agent.setRemote(ICECredentials(usernameFragment: "brw2", password: "y"))
        #expect(agent.nominated == .host(2))
        agent.setRemote(ICECredentials(usernameFragment: "brw3", password: "z"))
        #expect(agent.nominated == nil)
        #expect(agent.verifiedAddresses.isEmpty)
    }
}
