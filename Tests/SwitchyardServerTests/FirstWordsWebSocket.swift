import Dispatch
import Foundation
import Glibc
import SignalingProtocol

/// A WebSocket client on a plain TCP socket that sends nothing and reads what the server says, as
/// it is on the wire, up to its close frame: for a socket refused during a shutdown. (The NIO-based
/// test client loses bytes that arrive in the same read as the `101` response, frames and close
/// alike, which is why the daemon waits for the client's first message or a second.)
struct FirstWordsWebSocket {
    enum Failure: Error, CustomStringConvertible {
        case socket(String)
        case handshake(String)
        case timedOut(received: Int)

        var description: String {
            switch self {
            case .socket(let what): "socket: \(what)"
            case .handshake(let response): "no 101 response: \(response)"
            case .timedOut(let received): "no close frame within the timeout (\(received) bytes after the handshake)"
            }
        }
    }

    /// The server's messages before its close frame, and the close frame's code and reason.
    struct Heard: Sendable {
        var messages: [ServerMessage]
        var closeCode: UInt16
        var closeReason: String
    }

    /// Opens a socket to `/v1/ws`, and returns what the server said until it closed.
    static func listen(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(5)) async throws -> Heard {
        try await withCheckedThrowingContinuation { continuation in
            // Blocking reads, so off the cooperative pool.
            DispatchQueue.global().async {
                continuation.resume(with: Result { try listenBlocking(port: port, host: host, timeout: timeout) })
            }
        }
    }

    private static func listenBlocking(port: Int, host: String, timeout: Duration) throws -> Heard {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.socket("socket() failed, errno \(errno)") }
        defer { close(descriptor) }
        var receiveTimeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &receiveTimeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure.socket("connect() failed, errno \(errno)") }
        let handshake =
            "GET /v1/ws HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        let bytes = Array(handshake.utf8)
        guard send(descriptor, bytes, bytes.count, 0) == bytes.count else { throw Failure.socket("send() failed, errno \(errno)") }

        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var frames: Int?
        var messages: [ServerMessage] = []
        while ContinuousClock.now < deadline {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { break }
            if count > 0 { received += chunk[0..<count] }
            if frames == nil, let end = headerEnd(received) {
                let response = String(decoding: received[0..<end], as: UTF8.self)
                guard response.hasPrefix("HTTP/1.1 101") else { throw Failure.handshake(response) }
                frames = end
            }
            guard var offset = frames else { continue }
            while let frame = nextFrame(received, at: offset) {
                offset = frame.end
                frames = offset
                switch frame.opcode {
                case 0x1:
                    if let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(frame.payload)) { messages.append(message) }
                case 0x8:
                    let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : 1005
                    let reason = frame.payload.count > 2 ? String(decoding: frame.payload[2...], as: UTF8.self) : ""
                    return Heard(messages: messages, closeCode: code, closeReason: reason)
                default:
                    continue
                }
            }
        }
        throw Failure.timedOut(received: received.count - (frames ?? received.count))
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<index + 4].elementsEqual([13, 10, 13, 10]) {
            return index + 4
        }
        return nil
    }

    /// A whole unmasked frame from the server starting at `offset`, or nil until all of it arrived.
    private static func nextFrame(_ bytes: [UInt8], at offset: Int) -> (opcode: UInt8, payload: [UInt8], end: Int)? {
        guard bytes.count >= offset + 2 else { return nil }
        var length = Int(bytes[offset + 1] & 0x7F)
        var start = offset + 2
        if length == 126 {
            guard bytes.count >= start + 2 else { return nil }
            length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
            start += 2
        } else if length == 127 {
            guard bytes.count >= start + 8 else { return nil }
            length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }
            start += 8
        }
        guard bytes.count >= start + length else { return nil }
        return (bytes[offset] & 0x0F, Array(bytes[start..<start + length]), start + length)
    }
}
