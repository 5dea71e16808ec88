import COpenSSL

/// The server side of DTLS-SRTP for every transport of the daemon: DTLS 1.2, the daemon's certificate,
/// a peer certificate required (checked against the SDP fingerprint once the handshake ends, since
/// WebRTC certificates are self-signed), and `use_srtp` with the GCM profiles preferred.
public final class DTLSContext: @unchecked Sendable {
    /// OpenSSL's names, in our order of preference; OpenSSL picks the first the client also offers.
    public static let srtpProfiles = "SRTP_AEAD_AES_128_GCM:SRTP_AEAD_AES_256_GCM:SRTP_AES128_CM_SHA1_80:SRTP_AES128_CM_SHA1_32"
    static let cipherList =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:"
        + "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA"

    let context: OpaquePointer
    public let certificate: DTLSCertificate

    public init(certificate: DTLSCertificate, srtpProfiles: String = DTLSContext.srtpProfiles) throws(DTLSError) {
        guard let context = SSL_CTX_new(DTLS_server_method()) else { throw OpenSSLErrors.failure("SSL_CTX_new") }
        self.context = context
        self.certificate = certificate
        guard switchyard_ssl_ctx_require_dtls12(context) == 1 else { throw OpenSSLErrors.failure("DTLS 1.2 minimum") }
        try certificate.install(on: context)
        guard SSL_CTX_set_cipher_list(context, Self.cipherList) == 1 else { throw OpenSSLErrors.failure("SSL_CTX_set_cipher_list") }
        // SSL_CTX_set_tlsext_use_srtp returns 0 on success.
        guard SSL_CTX_set_tlsext_use_srtp(context, srtpProfiles) == 0 else { throw OpenSSLErrors.failure("use_srtp") }
        // Self-signed peers: accept the chain here, and compare the fingerprint after the handshake.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
    }

    deinit {
        SSL_CTX_free(context)
    }
}
