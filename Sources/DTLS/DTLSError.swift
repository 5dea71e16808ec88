/// What went wrong setting up DTLS or during a handshake.
public enum DTLSError: Error, Equatable, Sendable {
    /// OpenSSL refused an operation; `detail` is its error queue as text.
    case library(operation: String, detail: String)
    /// The peer's certificate does not hash to the fingerprint its SDP announced.
    case fingerprintMismatch(algorithm: String, expected: String, received: String)
    /// The SDP named a fingerprint hash OpenSSL does not know.
    case unsupportedFingerprintAlgorithm(String)
    /// The peer sent no certificate.
    case noPeerCertificate
    /// The peer negotiated no SRTP protection profile (`use_srtp`), or one Switchyard does not serve.
    case noSRTPProfile
    /// The handshake failed; `detail` is OpenSSL's reason.
    case handshakeFailed(detail: String)
    /// The handshake did not finish within its retransmission budget.
    case handshakeTimedOut
    /// The handshake produced more than the bounded buffers hold.
    case handshakeTooLarge(bytes: Int)
}

extension DTLSError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .library(let operation, let detail): "OpenSSL \(operation) failed: \(detail)"
        case .fingerprintMismatch(let algorithm, let expected, let received):
            "the peer's certificate has \(algorithm) fingerprint \(received), but its SDP announced \(expected)"
        case .unsupportedFingerprintAlgorithm(let name): "fingerprint algorithm \"\(name)\" is not supported"
        case .noPeerCertificate: "the peer sent no certificate"
        case .noSRTPProfile: "the peer negotiated no SRTP profile Switchyard serves (use_srtp)"
        case .handshakeFailed(let detail): "DTLS handshake failed: \(detail)"
        case .handshakeTimedOut: "DTLS handshake timed out"
        case .handshakeTooLarge(let bytes): "DTLS handshake flight of \(bytes) bytes exceeds the bound"
        }
    }
}
