import Crypto
import Foundation

/// The headers that let a receiver check a delivery came from this server and is fresh, after the
/// Standard Webhooks scheme: `webhook-id` (the event id, the same on every retry),
/// `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature`
/// (`v1,` + base64 of HMAC-SHA256 over `id.timestamp.body`, keyed by the endpoint's secret).
/// docs/webhooks.md says why a per-endpoint HMAC rather than a JWT under the API secret.
public enum WebhookSignature {
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"
    /// How far a timestamp may be from the receiver's clock before `verify` calls it stale.
    public static let tolerance: Int64 = 300

    public static func sign(id: String, timestamp: Int64, body: some Collection<UInt8>, secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: signedContent(id: id, timestamp: timestamp, body: body), using: key(secret))
        return "v1," + Data(code).base64EncodedString()
    }

    private static func signedContent(id: String, timestamp: Int64, body: some Collection<UInt8>) -> [UInt8] {
        var content = Array("\(id).\(timestamp).".utf8)
        content.append(contentsOf: body)
        return content
    }

    private static func key(_ secret: String) -> SymmetricKey {
        SymmetricKey(data: Array(secret.utf8))
    }

    public enum Failure: Error, Equatable, Sendable {
        /// The timestamp is more than `tolerance` seconds from the receiver's clock: a replay or a
        /// clock far off.
        case stale(timestamp: Int64, now: Int64)
        /// No `v1` signature in the header matches the body under this secret: forged or altered.
        case mismatch
    }

    /// What a receiver does with a delivery: refuses a stale one and one whose signature does not
    /// match. The header may hold several space-separated signatures (one per secret while a secret
    /// is being changed); one match is enough.
    public static func verify(
        id: String, timestamp: Int64, signatureHeader: String, body: some Collection<UInt8>, secret: String, now: Int64
    ) throws(Failure) {
        guard abs(now - timestamp) <= tolerance else { throw .stale(timestamp: timestamp, now: now) }
        let content = signedContent(id: id, timestamp: timestamp, body: body)
        let matches = signatureHeader.split(separator: " ").contains { candidate in
            guard candidate.hasPrefix("v1,"), let code = Data(base64Encoded: String(candidate.dropFirst(3))) else { return false }
            // Compared in constant time by swift-crypto.
            return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: content, using: key(secret))
        }
        guard matches else { throw .mismatch }
    }
}
