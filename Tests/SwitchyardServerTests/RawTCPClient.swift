import Glibc
import MediaTestSupport

/// A TCP connection to the daemon driven byte by byte, for input no well-behaved client library
/// would send: broken HTTP, unmasked or malformed WebSocket frames, a reader that stops reading.
/// Blocking calls run on threads of their own (`onOwnThread`), never on the cooperative pool.
final class RawTCPClient: @unchecked Sendable {
    enum Failure: Error {
        case connect(Int32)
        case send(Int32)
        case handshake(String)
        /// The server's end of the connection was not found among this process's descriptors.
        case serverEnd(Int32)
    }

    /// How a read that waited for the server's answer ended.
    enum Ending: Equatable {
        /// The server closed the connection (FIN).
        case closed
        /// The server reset the connection.
        case reset
        /// Nothing more came within the time allowed, and the connection is still open.
        case stillOpen
    }

    private var descriptor: Int32

    /// Connects to `host`:`port`; `receiveBuffer` shrinks the socket's receive buffer (set before
    /// connecting, so the TCP window stays small), for a client that is slow to read.
    init(host: String = "127.0.0.1", port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(descriptor)
            throw Failure.connect(error)
        }
    }

    deinit {
        close()
    }

    /// Closes the connection from this side; later calls do nothing.
    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Sends every byte; a send the server refuses (it closed or reset) throws.
    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard result > 0 else { throw Failure.send(errno) }
            sent += result
        }
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Pins the send buffer of the server's end of this connection to `bytes` (the kernel doubles it
    /// and stops tuning it), so how much the server can write before its writes stall no longer
    /// depends on the machine's `net.ipv4.tcp_wmem`, which lets it grow to megabytes. The daemon
    /// under test runs in this process: its end is the descriptor whose peer is this socket.
    func pinServerSendBuffer(_ bytes: Int32) throws {
        let local = try Self.address(of: descriptor, peer: false)
        let directory = opendir("/proc/self/fd")
        defer { if let directory { closedir(directory) } }
        while let directory, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let candidate = Int32(name), candidate != descriptor,
                let peer = try? Self.address(of: candidate, peer: true), peer.port == local.port, peer.host == local.host
            else { continue }
            var size = bytes
            guard setsockopt(candidate, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw Failure.serverEnd(errno)
            }
            return
        }
        throw Failure.serverEnd(ENOENT)
    }

    private static func address(of descriptor: Int32, peer: Bool) throws -> (host: UInt32, port: UInt16) {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(descriptor, $0, &length) : getsockname(descriptor, $0, &length) }
        }
        guard result == 0, address.sin_family == sa_family_t(AF_INET) else { throw Failure.serverEnd(errno) }
        return (address.sin_addr.s_addr, address.sin_port)
    }

    /// Reads everything the server sends until it closes the connection or `seconds` pass.
    func readToEnd(seconds: Double) async throws -> (bytes: [UInt8], ending: Ending) {
        try await onOwnThread { self.blockingRead(seconds: seconds, until: { _ in false }) }
    }

    /// Reads until `complete` says the bytes so far are enough, the server closes, or `seconds` pass.
    func read(seconds: Double, until complete: @escaping @Sendable ([UInt8]) -> Bool) async throws -> (bytes: [UInt8], ending: Ending) {
        try await onOwnThread { self.blockingRead(seconds: seconds, until: complete) }
    }

    /// Sends a WebSocket upgrade request for `/v1/ws` and reads the server's answer head.
    func upgradeToWebSocket() async throws {
        try send("GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        let answer = try await read(seconds: 5) { $0.count >= 4 && $0.suffix(4) == Array("\r\n\r\n".utf8) }
        let head = String(decoding: answer.bytes, as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else { throw Failure.handshake(head) }
    }

    private func blockingRead(seconds: Double, until complete: ([UInt8]) -> Bool) -> (bytes: [UInt8], ending: Ending) {
        let deadline = Self.now() + seconds
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline - Self.now()
            guard left > 0 else { return (received, .stillOpen) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, left * 1000))) > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (received, .closed) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return (received, .reset)
            }
            received += chunk[..<count]
            if complete(received) { return (received, .stillOpen) }
        }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// WebSocket frames as a test client writes them (RFC 6455 section 5.2), masked unless told not to.
enum WebSocketFrameBytes {
    static let continuation: UInt8 = 0x0, text: UInt8 = 0x1, close: UInt8 = 0x8

    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(maskBit | UInt8(payload.count))
        case ..<65_536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static func text(_ text: String, fin: Bool = true, masked: Bool = true) -> [UInt8] {
        frame(opcode: Self.text, payload: Array(text.utf8), fin: fin, masked: masked)
    }

    /// The close code of the first close frame among frames a server sent (unmasked), if any.
    static func closeCode(in bytes: [UInt8]) -> UInt16? {
        guard let close = frames(in: bytes).first(where: { $0.opcode == Self.close }), close.payload.count >= 2 else { return nil }
        return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
    }

    /// The whole frames at the start of what a server sent (unmasked), in order; a frame not yet
    /// complete ends the list.
    static func frames(in bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
        var frames: [(opcode: UInt8, payload: [UInt8])] = []
        var index = 0
        while index + 2 <= bytes.count {
            var length = Int(bytes[index + 1] & 0x7F)
            var header = 2
            if length == 126 {
                guard index + 4 <= bytes.count else { break }
                length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                header = 4
            } else if length == 127 {
                guard index + 10 <= bytes.count else { break }
                length = bytes[(index + 2)..<(index + 10)].reduce(0) { $0 << 8 | Int($1) }
                header = 10
            }
            let start = index + header
            guard start + length <= bytes.count else { break }
            frames.append((bytes[index] & 0x0F, Array(bytes[start..<(start + length)])))
            index = start + length
        }
        return frames
    }
}
