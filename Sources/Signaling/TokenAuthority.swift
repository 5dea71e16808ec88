import Foundation
import JWTKit
import SignalingProtocol

/// Mints and verifies Switchyard's JWTs with the project's API key and secret. HS256 only: the
/// algorithm in a token's header is checked before its signature, so `alg: none` or an asymmetric
/// algorithm never reaches a verifier.
public struct TokenAuthority: Sendable {
    /// Longest token accepted, in bytes.
    public static let maximumTokenBytes = 4096
    /// Longest `connection_data`, in characters (the reference platform's limit).
    public static let maximumConnectionDataCharacters = 1000
    /// Tolerated difference between the issuer's clock and ours, in seconds.
    public static let clockSkewSeconds: Int64 = 30

    public let apiKey: String
    /// Longest lifetime (`exp - iat`) a REST token may have.
    public let restTokenMaximumLifetime: Int64
    private let keys: JWTKeyCollection

    public init(apiKey: String, apiSecret: String, restTokenMaximumLifetime: Int64 = 300) async {
        self.apiKey = apiKey
        self.restTokenMaximumLifetime = restTokenMaximumLifetime
        keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: apiSecret), digestAlgorithm: .sha256)
    }

    /// Whether a session id is one this server accepts (1 to 128 characters of A-Z a-z 0-9 - _).
    public static func isValidSessionId(_ sessionId: String) -> Bool {
        SessionIdentifier.isValid(sessionId)
    }

    /// What `isValidSessionId` requires, to finish an error message: "must be 1 to 128 characters of ...".
    public static let sessionIdRule = SessionIdentifier.rule

    /// A client token for one session; `connectionEventsSuppressed` keeps the connection from
    /// hearing the others' joins and leaves, whatever its `connect` asks.
    public func mintClientToken(
        sessionId: String, role: Role, connectionData: String = "", connectionEventsSuppressed: Bool = false, lifetime: Int64, now: Date
    ) async throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let claims = TokenClaims(
            iss: apiKey, iat: issuedAt, exp: issuedAt + lifetime, jti: UUID().uuidString,
            scope: TokenClaims.connectScope, sessionId: sessionId, role: role.rawValue,
            connectionData: connectionData.isEmpty ? nil : connectionData,
            connectionEventsSuppressed: connectionEventsSuppressed ? true : nil)
        return try await keys.sign(claims)
    }

    /// A token for the REST API.
    public func mintRESTToken(lifetime: Int64, now: Date) async throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let claims = TokenClaims(
            iss: apiKey, iat: issuedAt, exp: issuedAt + lifetime, jti: UUID().uuidString, ist: TokenClaims.projectIssuerType)
        return try await keys.sign(claims)
    }

    /// Checks a client token and returns what it grants.
    public func verifyClientToken(_ token: String, now: Date) async throws(TokenError) -> ClientGrant {
        let claims = try await verifiedClaims(token, now: now)
        guard claims.scope == TokenClaims.connectScope else { throw .wrongKind(expected: "client (scope session.connect)") }
        guard let sessionId = claims.sessionId else { throw .missingClaim("session_id") }
        guard SessionIdentifier.isValid(sessionId) else {
            throw .invalidClaim(name: "session_id", reason: SessionIdentifier.rule)
        }
        guard let roleName = claims.role else { throw .missingClaim("role") }
        guard let role = Role(rawValue: roleName) else {
            let known = Role.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidClaim(name: "role", reason: "is \"\(roleName)\"; expected one of \(known)")
        }
        let data = claims.connectionData ?? ""
        guard data.count <= Self.maximumConnectionDataCharacters else {
            throw .invalidClaim(
                name: "connection_data", reason: "has \(data.count) characters; the limit is \(Self.maximumConnectionDataCharacters)")
        }
        return ClientGrant(
            sessionId: sessionId, role: role, connectionData: data, expiresAt: claims.exp,
            connectionEventsSuppressed: claims.connectionEventsSuppressed == true)
    }

    /// Checks the REST token of an `Authorization: Bearer <token>` header, as the REST API and the
    /// cluster's node-to-node requests take it.
    public func verifyRESTAuthorization(_ header: String?, now: Date) async throws(SignalingError) {
        guard let header, header.hasPrefix("Bearer ") else {
            throw SignalingError(.invalidToken, "missing \"Authorization: Bearer <REST token>\" header")
        }
        do {
            try await verifyRESTToken(String(header.dropFirst("Bearer ".count)), now: now)
        } catch {
            throw SignalingError(error.code, error.description)
        }
    }

    /// Checks a REST token.
    public func verifyRESTToken(_ token: String, now: Date) async throws(TokenError) {
        let claims = try await verifiedClaims(token, now: now)
        guard claims.ist == TokenClaims.projectIssuerType else { throw .wrongKind(expected: "REST (ist project)") }
        let lifetime = claims.exp - claims.iat
        guard lifetime <= restTokenMaximumLifetime else {
            throw .lifetimeTooLong(seconds: lifetime, limit: restTokenMaximumLifetime)
        }
    }

    private func verifiedClaims(_ token: String, now: Date) async throws(TokenError) -> TokenClaims {
        let bytes = token.utf8.count
        guard bytes <= Self.maximumTokenBytes else { throw .tooLong(bytes: bytes, limit: Self.maximumTokenBytes) }
        let algorithm = try Self.headerAlgorithm(of: token)
        guard algorithm == "HS256" else { throw .algorithmNotAllowed(algorithm) }
        let claims: TokenClaims
        do {
            claims = try await keys.verify(token, as: TokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw .badSignature
        } catch {
            throw .malformed("claims are not readable: \(error)")
        }
        guard claims.iss == apiKey else { throw .wrongIssuer(claims.iss) }
        let seconds = Int64(now.timeIntervalSince1970)
        guard seconds < claims.exp + Self.clockSkewSeconds else { throw .expired(expiredAt: claims.exp, now: seconds) }
        if let notBefore = claims.nbf, seconds + Self.clockSkewSeconds < notBefore {
            throw .notYetValid(validFrom: notBefore, now: seconds)
        }
        guard claims.iat <= seconds + Self.clockSkewSeconds else { throw .notYetValid(validFrom: claims.iat, now: seconds) }
        return claims
    }

    /// The `alg` of a token's header, read before anything is verified.
    private static func headerAlgorithm(of token: String) throws(TokenError) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts, found \(parts.count)") }
        guard let header = Data(base64URLEncoded: parts[0]),
            let object = try? JSONSerialization.jsonObject(with: header) as? [String: Any]
        else { throw .malformed("header is not base64url-encoded JSON") }
        guard let algorithm = object["alg"] as? String else { throw .malformed("header has no \"alg\"") }
        return algorithm
    }
}

extension Data {
    /// Decodes unpadded base64url (RFC 4648 §5), as JWTs use it.
    init?(base64URLEncoded text: Substring) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
