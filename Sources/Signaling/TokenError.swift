import SignalingProtocol

/// Why a token was refused. Each case names the claim or part that was wrong.
public enum TokenError: Error, Equatable, Sendable, CustomStringConvertible {
    case malformed(String)
    case tooLong(bytes: Int, limit: Int)
    case algorithmNotAllowed(String)
    case badSignature
    case wrongIssuer(String)
    case wrongKind(expected: String)
    case missingClaim(String)
    case invalidClaim(name: String, reason: String)
    case expired(expiredAt: Int64, now: Int64)
    case notYetValid(validFrom: Int64, now: Int64)
    case lifetimeTooLong(seconds: Int64, limit: Int64)
    case wrongSession(tokenSession: String, requested: String)

    public var description: String {
        switch self {
        case .malformed(let reason): "token is malformed: \(reason)"
        case .tooLong(let bytes, let limit): "token is \(bytes) bytes; the limit is \(limit)"
        case .algorithmNotAllowed(let algorithm): "token algorithm \"\(algorithm)\" is not accepted; tokens must be HS256"
        case .badSignature: "token signature does not verify with this server's API secret"
        case .wrongIssuer(let issuer): "token issuer \"\(issuer)\" is not this server's API key"
        case .wrongKind(let expected): "token is not a \(expected) token"
        case .missingClaim(let name): "token has no \"\(name)\" claim"
        case .invalidClaim(let name, let reason): "token claim \"\(name)\" \(reason)"
        case .expired(let expiredAt, let now): "token expired at \(expiredAt) (now \(now))"
        case .notYetValid(let validFrom, let now): "token is not valid before \(validFrom) (now \(now))"
        case .lifetimeTooLong(let seconds, let limit): "token lifetime \(seconds) s exceeds the limit of \(limit) s"
        case .wrongSession(let tokenSession, let requested): "token is for session \"\(tokenSession)\", not \"\(requested)\""
        }
    }

    /// The error code a client sees.
    public var code: SignalingErrorCode {
        switch self {
        case .expired, .notYetValid: .tokenExpired
        default: .invalidToken
        }
    }
}
