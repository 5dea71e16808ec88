import CSRTP

/// libsrtp2's process-wide state. `srtp_init` must run once before any session is created; a Swift
/// global is initialised exactly once, on first use, under the runtime's once-guard, which makes it
/// safe to reach from any thread.
public enum SRTPLibrary {
    private static let initialisationStatus: srtp_err_status_t = srtp_init()

    /// Runs libsrtp's one-time initialisation if it has not run yet.
    static func ensureInitialised() throws(SRTPError) {
        let status = initialisationStatus
        guard status == srtp_err_status_ok else {
            throw .library(operation: "srtp_init", status: Int32(status.rawValue))
        }
    }

    /// The libsrtp version string, for start-up logs and metrics.
    public static var version: String {
        String(cString: srtp_get_version_string())
    }

    /// Which build of libsrtp2 is linked: `openssl-static` (built by `scripts/build-libsrtp.sh`, crypto
    /// from OpenSSL) or `system` (the distribution's shared library; Debian's uses NSS).
    public static var build: String {
        String(cString: switchyard_srtp_build())
    }

    /// One line for start-up logs: version and build.
    public static var description: String {
        "\(version) (\(build == "openssl-static" ? "OpenSSL crypto, linked statically" : "system library"))"
    }
}
