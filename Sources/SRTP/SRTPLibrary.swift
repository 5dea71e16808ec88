import CSRTP
import Glibc

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
    /// from OpenSSL) or `system` (the distribution's shared library; Debian's uses NSS). Read from
    /// what the process has mapped, not only from the header it was compiled against: a linker that
    /// finds the distribution's `libsrtp2.so` first links it whatever the header said.
    public static let build: String = isSharedLibraryMapped ? "system" : headerBuild

    /// The build the headers this module was compiled against belong to.
    static var headerBuild: String {
        String(cString: switchyard_srtp_build())
    }

    /// Whether a shared libsrtp2 is mapped into this process.
    static var isSharedLibraryMapped: Bool {
        let descriptor = open("/proc/self/maps", O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var maps: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = read(descriptor, &chunk, chunk.count), count > 0 { maps += chunk[0..<count] }
        let needle = Array("/libsrtp2.so".utf8)
        guard maps.count >= needle.count else { return false }
        return (0...(maps.count - needle.count)).contains { start in needle.indices.allSatisfy { maps[start + $0] == needle[$0] } }
    }

    /// One line for start-up logs: version and build.
    public static var description: String {
        "\(version) (\(build == "openssl-static" ? "OpenSSL crypto, linked statically" : "system library"))"
    }
}
