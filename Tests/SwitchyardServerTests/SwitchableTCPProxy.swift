import Foundation
import Glibc
import Synchronization

/// A TCP relay on loopback in front of the daemon's HTTP port: a client's network that the test can
/// cut (every relayed connection is reset and new ones are closed at once, as when the path to the
/// server is gone) and restore. Blocking sockets on threads of its own, never on the cooperative pool.
final class SwitchableTCPProxy: Sendable {
    private struct State {
        var isCut = false
        var isStopped = false
        /// Relayed connections whose path went silent: their bytes are swallowed.
        var frozen: Set<Int32> = []
        /// Both descriptors of each relayed connection.
        var relayed: [Int32: Int32] = [:]
    }

    let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let state = Mutex(State())

    init(to targetPort: Int) throws {
        self.targetPort = targetPort
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            Glibc.close(descriptor)
            throw RawTCPClient.Failure.connect(errno)
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop(descriptor) }
    }

    /// The network goes away: every relayed connection is reset, new ones are closed on arrival.
    func cut() {
        let descriptors = state.withLock { state in
            state.isCut = true
            return state.relayed.flatMap { [$0.key, $0.value] }
        }
        for descriptor in descriptors { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Every relayed connection's path goes silent (bytes are swallowed both ways, nothing is closed),
    /// as when a network dies without a word; new connections are relayed as usual.
    func freeze() {
        state.withLock { $0.frozen.formUnion($0.relayed.keys) }
    }

    /// The network is back: new connections are relayed again.
    func restore() {
        state.withLock { $0.isCut = false }
    }

    func stop() {
        cut()
        state.withLock { $0.isStopped = true }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop(_ listener: Int32) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if state.withLock({ $0.isStopped }) { break }
                continue
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: UInt16(targetPort))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.isCut, !state.isStopped, connected == 0 else { return false }
                state.relayed[client] = server
                return true
            }
            guard admitted else {
                Glibc.close(client)
                Glibc.close(server)
                if state.withLock({ $0.isStopped }) { break }
                continue
            }
            Thread.detachNewThread { [self] in relay(client, server) }
        }
        Glibc.close(listener)
    }

    /// Copies bytes both ways until either side ends or the network is cut.
    private func relay(_ client: Int32, _ server: Int32) {
        var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 65_536)
        relaying: while poll(&descriptors, 2, -1) > 0 {
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let count = read(descriptor.fd, &buffer, buffer.count)
                guard count > 0 else { break relaying }
                if state.withLock({ $0.frozen.contains(client) }) { continue }
                let destination = index == 0 ? server : client
                var written = 0
                while written < count {
                    let result = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + written, count - written) }
                    guard result > 0 else { break relaying }
                    written += result
                }
            }
        }
        state.withLock { state in
            state.relayed.removeValue(forKey: client)
            state.frozen.remove(client)
        }
        Glibc.close(client)
        Glibc.close(server)
    }
}
