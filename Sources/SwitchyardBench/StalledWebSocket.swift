import Foundation
import Glibc

/// A client that joins a session over a WebSocket of its own and then never reads it: its receive
/// buffer is made small and nothing is taken out of it, so every event the server sends it piles up
/// on the server's side until the server cuts it off (`signaling.maxBacklogBytes`). Blocking socket
/// calls, on the caller's thread, only at the start and the end.
final class StalledWebSocket: Sendable {
    private let descriptor: Int32

    /// Opens the WebSocket to `url` (`ws://host:port/path`) and sends `connect` for `sessionId`
    /// with `token`; returns once the request is written.
    init(url: String, sessionId: String, token: String) throws(BenchError) {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw .setupFailed("slow reader: \(url) is not ws://host:port/path")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw .setupFailed("slow reader: socket: \(String(cString: strerror(errno)))") }
        var smallBuffer: Int32 = 4096
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &smallBuffer, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .setupFailed("slow reader: connect to \(host):\(port): \(reason)")
        }
        self.descriptor = descriptor
        let path = components.path.isEmpty ? "/" : components.path
        let upgrade =
            "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: c3dpdGNoeWFyZC1zdGFsbGVk\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try write(Array(upgrade.utf8))
        // The 101 answer, read byte by byte so nothing after it is taken.
        var head: [UInt8] = []
        while !head.ends(with: [13, 10, 13, 10]) {
            var byte: UInt8 = 0
            guard recv(descriptor, &byte, 1, 0) == 1 else { throw .setupFailed("slow reader: no answer to the WebSocket upgrade") }
            head.append(byte)
        }
        guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
            throw .setupFailed("slow reader: upgrade refused: \(String(decoding: head.prefix(80), as: UTF8.self))")
        }
        let request = #"{"v":1,"id":1,"method":"connect","params":{"sessionId":"\#(sessionId)","token":"\#(token)"}}"#
        try write(Self.maskedTextFrame(Array(request.utf8)))
    }

    deinit { close(descriptor) }

    /// Whether the server has closed or reset the socket: reads what is waiting, without blocking,
    /// up to 1 MB (a socket the server still writes to is open).
    func isClosedByServer() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<16 {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
        return false
    }

    private func write(_ bytes: [UInt8]) throws(BenchError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw .setupFailed("slow reader: send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// A client's text frame (RFC 6455 §5.2): FIN, opcode 1, masked.
    static func maskedTextFrame(_ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
