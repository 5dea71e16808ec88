import Foundation
import JWTKit
import SignalingProtocol
import Testing

@testable import Signaling

@Suite struct TokenAuthorityTests {
    static let secret = "test-secret-long-enough-for-every-HMAC-digest-jwt-kit-offers-0123456789"
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func authority(key: String = "key", secret: String = Self.secret) async -> TokenAuthority {
        await TokenAuthority(apiKey: key, apiSecret: secret, restTokenMaximumLifetime: 300)
    }

    private func refusal(_ body: () async throws(TokenError) -> Void) async -> TokenError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    /// Signs arbitrary claims with the test secret, for tokens the authority would never mint.
    private func sign(_ claims: TokenClaims, digest: DigestAlgorithm = .sha256) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Self.secret), digestAlgorithm: digest)
        return try await keys.sign(claims)
    }

    private func clientClaims(iat: Int64, exp: Int64, nbf: Int64? = nil, role: String = "publisher", data: String? = nil) -> TokenClaims {
        TokenClaims(
            iss: "key", iat: iat, exp: exp, nbf: nbf, scope: TokenClaims.connectScope, sessionId: "room-1", role: role,
            connectionData: data)
    }

    @Test func aMintedClientTokenGrantsItsSessionRoleAndData() async throws {
        let tokens = await authority()
        let token = try await tokens.mintClientToken(sessionId: "room-1", role: .moderator, connectionData: "name=Ann", lifetime: 60, now: now)
        let grant = try await tokens.verifyClientToken(token, now: now.addingTimeInterval(59))
        #expect(grant == ClientGrant(sessionId: "room-1", role: .moderator, connectionData: "name=Ann", expiresAt: 1_800_000_060))
    }

    /// The app's backend may keep a connection out of the others' joins and leaves through its token;
    /// a claim that is not a boolean is refused, and the refusal names it.
    @Test func aTokenMaySuppressConnectionEvents() async throws {
        let tokens = await authority()
        let suppressed = try await tokens.mintClientToken(sessionId: "room-1", role: .moderator, connectionEventsSuppressed: true, lifetime: 60, now: now)
        #expect(try await tokens.verifyClientToken(suppressed, now: now).connectionEventsSuppressed)
        let plain = try await tokens.mintClientToken(sessionId: "room-1", role: .moderator, lifetime: 60, now: now)
        #expect(try await tokens.verifyClientToken(plain, now: now).connectionEventsSuppressed == false)

        struct StringlyClaims: JWTPayload {
            var iss = "key"
            var iat: Int64 = 1_800_000_000
            var exp: Int64 = 1_800_000_060
            var scope = TokenClaims.connectScope
            var session_id = "room-1"
            var role = "subscriber"
            var connection_events_suppressed = "yes"
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Self.secret), digestAlgorithm: .sha256)
        let stringly = try await keys.sign(StringlyClaims())
        let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(stringly, now: now) }
        guard case .malformed(let reason) = error else { Issue.record("accepted: \(String(describing: error))"); return }
        #expect(reason.contains("connection_events_suppressed"), "\(reason)")
    }

    @Test func anExpiredTokenIsRefusedAfterTheSkew() async throws {
        let tokens = await authority()
        let token = try await tokens.mintClientToken(sessionId: "room-1", role: .publisher, lifetime: 60, now: now)
        let error = await refusal { () throws(TokenError) in
            _ = try await tokens.verifyClientToken(token, now: now.addingTimeInterval(60 + 31))
        }
        #expect(error == .expired(expiredAt: 1_800_000_060, now: 1_800_000_091))
        #expect(error?.code == .tokenExpired)
    }

    @Test func aTokenNotYetValidIsRefused() async throws {
        let tokens = await authority()
        let token = try await sign(clientClaims(iat: 1_800_000_000, exp: 1_800_001_000, nbf: 1_800_000_100))
        let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(token, now: now) }
        #expect(error == .notYetValid(validFrom: 1_800_000_100, now: 1_800_000_000))
    }

    @Test func aTokenSignedWithAnotherSecretIsRefused() async throws {
        let other = await authority(secret: "another-secret-that-is-also-32-bytes-long!")
        let token = try await other.mintClientToken(sessionId: "room-1", role: .publisher, lifetime: 60, now: now)
        let tokens = await authority()
        let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(token, now: now) }
        #expect(error == .badSignature)
    }

    @Test func algNoneIsRefusedBeforeAnyVerification() async throws {
        let tokens = await authority()
        let valid = try await tokens.mintClientToken(sessionId: "room-1", role: .moderator, lifetime: 60, now: now)
        let payload = valid.split(separator: ".")[1]
        let header = Data(#"{"alg":"none","typ":"JWT"}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken("\(header).\(payload).", now: now) }
        #expect(error == .algorithmNotAllowed("none"))
    }

    @Test func anotherHMACAlgorithmIsRefused() async throws {
        let tokens = await authority()
        let token = try await sign(clientClaims(iat: 1_800_000_000, exp: 1_800_000_060), digest: .sha512)
        let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(token, now: now) }
        #expect(error == .algorithmNotAllowed("HS512"))
    }

    @Test func anotherIssuerIsRefused() async throws {
        let other = await authority(key: "someone-else")
        let token = try await other.mintClientToken(sessionId: "room-1", role: .publisher, lifetime: 60, now: now)
        let error = await refusal { () throws(TokenError) in _ = try await authority().verifyClientToken(token, now: now) }
        #expect(error == .wrongIssuer("someone-else"))
    }

    @Test func aRESTTokenCannotConnectAndAClientTokenCannotCallREST() async throws {
        let tokens = await authority()
        let rest = try await tokens.mintRESTToken(lifetime: 60, now: now)
        let client = try await tokens.mintClientToken(sessionId: "room-1", role: .moderator, lifetime: 60, now: now)
        let asClient = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(rest, now: now) }
        #expect(asClient == .wrongKind(expected: "client (scope session.connect)"))
        let asREST = await refusal { () throws(TokenError) in try await tokens.verifyRESTToken(client, now: now) }
        #expect(asREST == .wrongKind(expected: "REST (ist project)"))
        try await tokens.verifyRESTToken(rest, now: now)
    }

    @Test func aLongLivedRESTTokenIsRefused() async throws {
        let tokens = await authority()
        let rest = try await tokens.mintRESTToken(lifetime: 3600, now: now)
        let error = await refusal { () throws(TokenError) in try await tokens.verifyRESTToken(rest, now: now) }
        #expect(error == .lifetimeTooLong(seconds: 3600, limit: 300))
    }

    @Test func oversizedClaimsAreRefused() async throws {
        let tokens = await authority()
        let longData = try await sign(clientClaims(iat: 1_800_000_000, exp: 1_800_000_060, data: String(repeating: "x", count: 1001)))
        let dataError = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(longData, now: now) }
        #expect(dataError == .invalidClaim(name: "connection_data", reason: "has 1001 characters; the limit is 1000"))

        let huge = try await sign(clientClaims(iat: 1_800_000_000, exp: 1_800_000_060, data: String(repeating: "y", count: 5000)))
        let sizeError = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(huge, now: now) }
        guard case .tooLong(_, let limit) = sizeError else { Issue.record("accepted \(String(describing: sizeError))"); return }
        #expect(limit == 4096)
    }

    @Test func anUnknownRoleIsNamed() async throws {
        let tokens = await authority()
        let token = try await sign(clientClaims(iat: 1_800_000_000, exp: 1_800_000_060, role: "admin"))
        let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(token, now: now) }
        #expect(error == .invalidClaim(name: "role", reason: "is \"admin\"; expected one of subscriber, publisher, publisheronly, moderator"))
    }

    @Test func garbageIsMalformed() async {
        let tokens = await authority()
        for garbage in ["", "abc", "a.b", "!!!.???.###", "e30.e30.sig"] {
            let error = await refusal { () throws(TokenError) in _ = try await tokens.verifyClientToken(garbage, now: now) }
            guard case .malformed = error else {
                Issue.record("\(garbage): \(String(describing: error))")
                continue
            }
        }
    }
}
