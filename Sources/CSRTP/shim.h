#ifndef SWITCHYARD_CSRTP_SHIM_H
#define SWITCHYARD_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#if __has_include(<srtp2/switchyard_build.h>)
#include <srtp2/switchyard_build.h>
#endif

/// Which libsrtp2 build this binary links. scripts/build-libsrtp.sh installs srtp2/switchyard_build.h,
/// which defines SWITCHYARD_SRTP_OPENSSL, beside the headers of its build; a distribution's package
/// has no such header.
static inline const char *switchyard_srtp_build(void) {
#ifdef SWITCHYARD_SRTP_OPENSSL
    return "openssl-static";
#else
    return "system";
#endif
}
#endif
