import Foundation
import SignalingProtocol
import Testing

/// Keep-alive pings (docs/protocol.md): every `signaling.pingIntervalSeconds` the server pings each
/// client WebSocket, and closes with 1001 ("Ping timeout") one that has not answered the last ping
/// when the next is due; a client that answers stays.
@Suite struct WebSocketKeepaliveTests {
    @Test func aClientThatAnswersNoPingIsClosedWith1001AndOneThatAnswersStays() async throws {
        // Long enough that the answering client, on a machine busy with other tests, answers each
        // ping before the next is due.
        let harness = try await DaemonHarness.start { $0.signaling.pingInterval = .seconds(3) }
        let (answering, _) = try await harness.connect(session: "kept", role: .publisher)
        let silent = try RawTCPClient(port: harness.port)
        try await silent.upgradeToWebSocket()
        let token = try await harness.token(session: "kept", role: .subscriber)
        let connect = ClientMessage(id: 1, request: .connect(ConnectParameters(sessionId: "kept", token: token)))
        try silent.send(WebSocketFrameBytes.text(String(decoding: connect.encoded(), as: UTF8.self)))

        let (bytes, ending) = try await silent.readToEnd(seconds: 30)
        #expect(ending == .closed)
        let frames = WebSocketFrameBytes.frames(in: bytes)
        let ping: UInt8 = 0x9
        let firstPing = try #require(frames.firstIndex { $0.opcode == ping }, "never pinged: \(frames.map(\.opcode))")
        let close = try #require(frames.lastIndex { $0.opcode == WebSocketFrameBytes.close }, "not closed with a close frame")
        #expect(firstPing < close)
        #expect(WebSocketFrameBytes.closeCode(in: bytes) == 1001)
        #expect(String(decoding: frames[close].payload.dropFirst(2), as: UTF8.self) == "Ping timeout")
        guard case .connectionDestroyed(let left) = try await answering.event(.connectionDestroyed) else { return }
        #expect(left.reason == .networkDisconnected)

        // The client that answers every ping, pinged as often, is still served.
        _ = try await answering.call(.signal(SignalParameters(type: "still", data: "here")))
        try await harness.stop()
    }
}
