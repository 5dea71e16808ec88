import Foundation
import Glibc
import Synchronization

/// A TCP listener on 127.0.0.1 that plays a broken cluster node: it reads what comes and answers
/// nothing, or answers bytes that are not HTTP and hangs up. Blocking sockets on threads of its own.
final class MisbehavingHTTPPeer: Sendable {
    enum Behaviour: String, Sendable {
        case silent, garbage
    }

    let port: Int
    private let listener: Int32
    private let behaviour: Behaviour
    private let accepted = Mutex<[Int32]>([])

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            Glibc.close(descriptor)
            throw RawTCPClient.Failure.connect(errno)
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            accepted.withLock { $0.append(connection) }
            if behaviour == .garbage {
                var request = [UInt8](repeating: 0, count: 4096)
                _ = recv(connection, &request, request.count, 0)
                let reply = Array("\u{1}\u{2}not http at all\r\n\r\n".utf8)
                _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(connection, Int32(SHUT_RDWR))
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        for connection in accepted.withLock({ $0 }) { Glibc.close(connection) }
    }
}
