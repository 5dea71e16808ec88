import Glibc
import SRTP

/// Why the client's media side could not be set up.
public enum MediaClientError: Error, CustomStringConvertible {
    case invalidAddress(String)
    case system(call: String, errno: Int32)
    case srtp(SRTPError)

    public var description: String {
        switch self {
        case .invalidAddress(let host): "\"\(host)\" is not a dotted-quad IPv4 address"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .srtp(let error): "SRTP: \(error)"
        }
    }
}
