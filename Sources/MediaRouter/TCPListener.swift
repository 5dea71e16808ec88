import CSystemShims
import Glibc
import MediaControl

/// A non-blocking IPv4 TCP socket listening for ICE-TCP connections (RFC 6544 passive candidates) on
/// one port of a worker. Closing happens in `deinit`.
final class TCPListener {
    /// Connections the kernel completes before the worker accepts them; beyond it, it drops SYNs.
    static let backlog: Int32 = 512

    let descriptor: Int32
    let localPort: UInt16

    /// Listens on `address`:`port`; port 0 lets the kernel choose.
    init(address: String, port: UInt16) throws(MediaControlError) {
        guard var local = IPv4Address(address, port: port) else {
            throw .invalidParameters(reason: "listen address \"\(address)\" is not a dotted-quad IPv4 address")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard local.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EADDRINUSE { throw .noFreePort(lowest: port, highest: port) }
            throw .system(call: "bind", errno: failure)
        }
        guard listen(descriptor, Self.backlog) == 0 else {
            let failure = errno
            close(descriptor)
            throw .system(call: "listen", errno: failure)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local.storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        localPort = local.port
    }

    deinit {
        close(descriptor)
    }
}
