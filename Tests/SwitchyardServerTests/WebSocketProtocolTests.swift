import Foundation
import SignalingProtocol
import Testing

/// RFC 6455's rules for what a client sends, over a raw connection: each violation fails that
/// connection with the code the RFC names, and a connected bystander sees only that it left.
@Suite(.serialized) struct WebSocketProtocolTests {
    typealias Frame = WebSocketFrameBytes

    /// Sends `frames` on a fresh WebSocket and returns the code of the server's close frame.
    private func closeCode(after frames: [[UInt8]], harness: DaemonHarness) async throws -> UInt16? {
        let client = try RawTCPClient(port: harness.port)
        try await client.upgradeToWebSocket()
        for frame in frames { try? client.send(frame) }
        let answer = try await client.read(seconds: 10) { Frame.closeCode(in: $0) != nil }
        return Frame.closeCode(in: answer.bytes)
    }

    @Test func aFragmentedMessageOverTheLimitClosesWith1009() async throws {
        let harness = try await DaemonHarness.start()
        let fragment = Array(repeating: UInt8(ascii: "x"), count: 4096)
        let count = 131_072 / fragment.count
        let frames = (0..<count).map { index in
            Frame.frame(opcode: index == 0 ? Frame.text : Frame.continuation, payload: fragment, fin: index == count - 1)
        }
        #expect(try await closeCode(after: frames, harness: harness) == 1009)
        try await harness.stop()
    }

    @Test func protocolViolationsCloseWith1002() async throws {
        let harness = try await DaemonHarness.start()
        let signal = #"{"v":1,"id":1,"method":"disconnect"}"#
        #expect(try await closeCode(after: [Frame.text(signal, masked: false)], harness: harness) == 1002, "an unmasked frame")
        #expect(
            try await closeCode(after: [Frame.frame(opcode: Frame.continuation, payload: Array("{}".utf8))], harness: harness) == 1002,
            "a continuation without a start")
        #expect(
            try await closeCode(after: [Frame.text("{\"v\":", fin: false), Frame.text("1}")], harness: harness) == 1002,
            "a new text frame inside a fragmented one")
        #expect(
            try await closeCode(after: [Frame.frame(opcode: Frame.close, payload: [0x03, 0xE8, 0xC3, 0x28])], harness: harness) == 1002,
            "a close frame whose reason is not UTF-8")
        try await harness.stop()
    }

    @Test func invalidUTF8InTextClosesWith1007() async throws {
        let harness = try await DaemonHarness.start()
        #expect(try await closeCode(after: [Frame.frame(opcode: Frame.text, payload: [0x7B, 0xC3, 0x28, 0x7D])], harness: harness) == 1007)
        let split = [Frame.frame(opcode: Frame.text, payload: [0x22, 0xE2, 0x82], fin: false), Frame.frame(opcode: Frame.continuation, payload: [0x22])]
        #expect(try await closeCode(after: split, harness: harness) == 1007, "a character cut short at the end of the message")
        try await harness.stop()
    }

    @Test func anUnmaskedFrameFromAConnectedClientEndsOnlyThatConnection() async throws {
        let harness = try await DaemonHarness.start()
        let (bystander, _) = try await harness.connect(session: "frames", role: .publisher)
        let client = try RawTCPClient(port: harness.port)
        try await client.upgradeToWebSocket()
        let token = try await harness.token(session: "frames", role: .publisher)
        let connect = ClientMessage(id: 1, request: .connect(ConnectParameters(sessionId: "frames", token: token)))
        try client.send(Frame.text(String(decoding: connect.encoded(), as: UTF8.self)))
        guard case .connectionCreated = try await bystander.event(.connectionCreated) else { return }
        try client.send(Frame.text(#"{"v":1,"id":2,"method":"disconnect"}"#, masked: false))
        let answer = try await client.read(seconds: 10) { Frame.closeCode(in: $0) != nil }
        #expect(Frame.closeCode(in: answer.bytes) == 1002)
        guard case .connectionDestroyed(let destroyed) = try await bystander.event(.connectionDestroyed) else { return }
        #expect(destroyed.reason == .networkDisconnected, "the unmasked disconnect request was not acted on")
        _ = try await bystander.call(.signal(SignalParameters(type: "ping", data: "still here")))
        try await harness.stop()
    }
}
