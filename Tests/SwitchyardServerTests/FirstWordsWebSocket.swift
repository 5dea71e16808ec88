import Foundation
import SignalingProtocol

/// What the server says to a raw WebSocket that sends nothing, as it is on the wire, up to its close
/// frame: for a socket refused during a shutdown. (The NIO-based test client loses bytes that arrive
/// in the same read as the `101` response, frames and close alike, which is why the daemon waits for
/// the client's first message or a second.)
enum FirstWordsWebSocket {
    struct NoCloseFrame: Error, CustomStringConvertible {
        var received: Int
        var description: String { "no close frame within the timeout (\(received) bytes after the handshake)" }
    }

    /// The server's messages before its close frame, and the close frame's code and reason.
    struct Heard: Sendable {
        var messages: [ServerMessage]
        var closeCode: UInt16
        var closeReason: String
    }

    /// Opens a socket to `/v1/ws`, and returns what the server said until it closed.
    static func listen(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(5)) async throws -> Heard {
        let client = try RawTCPClient(host: host, port: port)
        try await client.upgradeToWebSocket()
        let closes = { @Sendable (bytes: [UInt8]) in WebSocketFrameBytes.frames(in: bytes).contains { $0.opcode == WebSocketFrameBytes.close } }
        let (bytes, _) = try await client.read(seconds: Double(timeout.components.seconds), until: closes)
        let frames = WebSocketFrameBytes.frames(in: bytes)
        guard let close = frames.first(where: { $0.opcode == WebSocketFrameBytes.close }) else { throw NoCloseFrame(received: bytes.count) }
        let messages = frames.filter { $0.opcode == WebSocketFrameBytes.text }.compactMap { try? JSONDecoder().decode(ServerMessage.self, from: Data($0.payload)) }
        return Heard(
            messages: messages,
            closeCode: close.payload.count >= 2 ? UInt16(close.payload[0]) << 8 | UInt16(close.payload[1]) : 1005,
            closeReason: close.payload.count > 2 ? String(decoding: close.payload[2...], as: UTF8.self) : "")
    }
}
