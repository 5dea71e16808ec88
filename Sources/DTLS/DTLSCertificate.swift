import COpenSSL

/// The daemon's DTLS identity: a P-256 key and a self-signed certificate made at start-up, whose
/// SHA-256 fingerprint every SDP answer and offer carries (RFC 8827 lets each run use a fresh one).
public final class DTLSCertificate: @unchecked Sendable {
    let key: OpaquePointer
    let certificate: OpaquePointer
    /// SHA-256 of the certificate's DER form.
    public let sha256Fingerprint: [UInt8]

    /// Generates a key and a certificate valid from a day ago for `validityDays` days. Peers check the
    /// fingerprint, not the dates, but a long-running daemon must not present an expired certificate.
    public init(commonName: String = "switchyard", validityDays: Int = 3650) throws(DTLSError) {
        guard let key = switchyard_generate_p256_key() else { throw OpenSSLErrors.failure("EVP_EC_gen") }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw OpenSSLErrors.failure("X509_new")
        }
        self.key = key
        self.certificate = certificate
        let serial = UInt64.random(in: 1...UInt64(Int64.max))
        let built =
            X509_set_version(certificate, 2) == 1
            && ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serial) == 1
            && X509_gmtime_adj(X509_getm_notBefore(certificate), -86_400) != nil
            && X509_gmtime_adj(X509_getm_notAfter(certificate), validityDays * 86_400) != nil
            && X509_set_pubkey(certificate, key) == 1
            && X509_NAME_add_entry_by_txt(X509_get_subject_name(certificate), "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1
            && X509_set_issuer_name(certificate, X509_get_subject_name(certificate)) == 1
            && X509_sign(certificate, key, EVP_sha256()) > 0
        guard built else { throw OpenSSLErrors.failure("building the self-signed certificate") }
        sha256Fingerprint = try DTLSFingerprintDigest.fingerprint(of: certificate, algorithm: "sha-256")
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    /// Makes `context` (an `SSL_CTX`) present this certificate and key.
    public func install(on context: OpaquePointer) throws(DTLSError) {
        guard SSL_CTX_use_certificate(context, certificate) == 1 else { throw OpenSSLErrors.failure("SSL_CTX_use_certificate") }
        guard SSL_CTX_use_PrivateKey(context, key) == 1 else { throw OpenSSLErrors.failure("SSL_CTX_use_PrivateKey") }
    }

    /// The fingerprint as `a=fingerprint` writes it: `sha-256 AB:CD:...`.
    public var sdpFingerprint: String { "sha-256 " + DTLSFingerprintDigest.text(sha256Fingerprint) }
}
