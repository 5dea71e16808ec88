#ifndef SWITCHYARD_COPENSSL_SHIM_H
#define SWITCHYARD_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/srtp.h>

// Function-like macros of OpenSSL do not import into Swift; each is wrapped here as it is.

/// A P-256 key (EVP_EC_gen is a variadic macro).
static inline EVP_PKEY *switchyard_generate_p256_key(void) {
    return EVP_EC_gen("P-256");
}

/// How long until the DTLS handshake's retransmission timer fires; 1 and the time when one is running.
static inline int switchyard_dtls_get_timeout(SSL *ssl, long *seconds, long *microseconds) {
    struct timeval timeout = {0, 0};
    int running = (int)DTLSv1_get_timeout(ssl, &timeout);
    *seconds = (long)timeout.tv_sec;
    *microseconds = (long)timeout.tv_usec;
    return running;
}

/// Retransmits the current flight when its timer has expired.
static inline int switchyard_dtls_handle_timeout(SSL *ssl) {
    return (int)DTLSv1_handle_timeout(ssl);
}

/// Makes an empty memory BIO report "retry" instead of EOF, as a datagram transport needs.
static inline void switchyard_bio_set_retry_on_empty(BIO *bio) {
    BIO_set_mem_eof_return(bio, -1);
}

static inline void switchyard_ssl_set_mtu(SSL *ssl, long mtu) {
    SSL_set_options(ssl, SSL_OP_NO_QUERY_MTU);
    SSL_set_mtu(ssl, mtu);
}

static inline long switchyard_bio_pending(BIO *bio) {
    return (long)BIO_ctrl_pending(bio);
}

/// DTLS 1.2 and nothing older.
static inline int switchyard_ssl_ctx_require_dtls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION);
}

#endif
