import Foundation
import SignalingProtocol
import Testing

/// A client that connects and then stops reading while others send it signals: it is cut off,
/// either when its backlog overflows or when the server's writes to it stall past the ping interval,
/// and the others carry on.
@Suite(.serialized) struct SlowReaderTests {
    typealias Frame = WebSocketFrameBytes

    /// A raw WebSocket client connected to `session` that reads its connect reply and then nothing.
    /// Both its receive buffer and the server's send buffer toward it are pinned small, so the
    /// server's writes stall after some 100 KB whatever the kernel's buffer autotuning would allow.
    private func stuckReader(_ harness: DaemonHarness, session: String) async throws -> (RawTCPClient, String) {
        let client = try RawTCPClient(port: harness.port, receiveBuffer: 2048)
        try await client.upgradeToWebSocket()
        try client.pinServerSendBuffer(4096)
        let token = try await harness.token(session: session, role: .publisher)
        let connect = ClientMessage(id: 1, request: .connect(ConnectParameters(sessionId: session, token: token)))
        try client.send(Frame.text(String(decoding: connect.encoded(), as: UTF8.self)))
        let reply = try await client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\"connectionId\"") }
        let text = String(decoding: reply.bytes, as: UTF8.self)
        let id = try #require(text.firstRange(of: #/"connectionId":"(c_[A-Za-z0-9_-]+)"/#).map { String(text[$0]) })
        return (client, String(id.dropFirst(#""connectionId":""#.count).dropLast()))
    }

    /// Sends 8 KB signals to `target` in batches until the server reports it gone, at most `count`
    /// of them (16 MB for 2000: far more than the pinned buffers hold), then waits for that report.
    private func flood(_ target: String, from sender: WebSocketTestClient, count: Int) async throws -> Bool {
        let signal = ClientMessage(id: 2, request: .signal(SignalParameters(to: target, type: "bulk", data: String(repeating: "s", count: 8192))))
        let text = String(decoding: signal.encoded(), as: UTF8.self)
        for _ in stride(from: 0, to: count, by: 100) {
            for _ in 0..<100 { try await sender.sendText(text) }
            if await sender.receives(.connectionDestroyed, within: .milliseconds(1)) { return true }
        }
        return await sender.receives(.connectionDestroyed, within: .seconds(20))
    }

    @Test func aReaderThatFallsTooFarBehindIsCutOff() async throws {
        let harness = try await DaemonHarness.start { configuration in
            configuration.signaling.messagesPerSecond = 100_000
            configuration.signaling.messageBurst = 100_000
            configuration.signaling.backlog = .init(messages: 4096, bytes: 256 * 1024)
            // Long enough that only the backlog can end it within the test.
            configuration.signaling.pingInterval = .seconds(600)
            configuration.http.writeStallTimeout = .seconds(600)
        }
        let (sender, _) = try await harness.connect(session: "slow", role: .publisher)
        let (bystander, _) = try await harness.connect(session: "slow", role: .publisher)
        let (stuck, stuckID) = try await stuckReader(harness, session: "slow")
        #expect(try await flood(stuckID, from: sender, count: 2000), "the stuck reader was never removed")
        guard case .connectionDestroyed(let destroyed) = try await bystander.event(.connectionDestroyed) else { return }
        #expect(destroyed.connection.connectionId == stuckID)
        #expect(destroyed.reason == .networkDisconnected)
        let rest = try await stuck.readToEnd(seconds: 10)
        #expect(rest.ending == .reset, "cut off with a reset, its queued messages dropped")
        _ = try await bystander.call(.signal(SignalParameters(type: "ping", data: "still here")))
        try await harness.stop()
    }

    @Test func aReaderWhoseWritesStallIsResetAfterThePingInterval() async throws {
        let harness = try await DaemonHarness.start { configuration in
            configuration.signaling.messagesPerSecond = 100_000
            configuration.signaling.messageBurst = 100_000
            // Long enough for the flood to fill every buffer before the first ping is due, so the
            // ping and its close frame are stuck behind the blocked writes as well.
            configuration.signaling.pingInterval = .seconds(3)
            configuration.http.writeStallTimeout = .seconds(3)
            // Room for everything sent: only the stalled writes (the ping's close frame among them) can end it.
            configuration.signaling.backlog = .init(messages: 100_000, bytes: 1 << 30)
        }
        let (sender, _) = try await harness.connect(session: "stall", role: .publisher)
        let (stuck, stuckID) = try await stuckReader(harness, session: "stall")
        // Far more than the pinned socket buffers between the two hold, so the server's writes block.
        #expect(try await flood(stuckID, from: sender, count: 2000), "the stuck reader was never removed")
        #expect(try await stuck.readToEnd(seconds: 10).ending == .reset)
        try await harness.stop()
    }
}
