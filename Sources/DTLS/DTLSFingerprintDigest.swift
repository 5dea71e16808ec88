import COpenSSL

/// Certificate fingerprints as SDP carries them (RFC 8122): a hash name and the digest of the DER form.
public enum DTLSFingerprintDigest {
    /// The hash names `a=fingerprint` may use and Switchyard checks.
    public static let supportedAlgorithms = ["sha-1", "sha-224", "sha-256", "sha-384", "sha-512"]

    static func digest(named algorithm: String) -> OpaquePointer? {
        switch algorithm.lowercased() {
        case "sha-1": EVP_sha1()
        case "sha-224": EVP_sha224()
        case "sha-256": EVP_sha256()
        case "sha-384": EVP_sha384()
        case "sha-512": EVP_sha512()
        default: nil
        }
    }

    /// The digest of `certificate` with the hash `algorithm` names.
    static func fingerprint(of certificate: OpaquePointer, algorithm: String) throws(DTLSError) -> [UInt8] {
        guard let digest = digest(named: algorithm) else { throw .unsupportedFingerprintAlgorithm(algorithm) }
        var bytes = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, digest, &bytes, &length) == 1 else { throw OpenSSLErrors.failure("X509_digest") }
        return Array(bytes.prefix(Int(length)))
    }

    /// Uppercase hex pairs joined by colons, as SDP writes them.
    public static func text(_ bytes: [UInt8]) -> String {
        let digits: [Character] = Array("0123456789ABCDEF")
        return bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]]) }.joined(separator: ":")
    }
}
