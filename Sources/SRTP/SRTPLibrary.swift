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
}
