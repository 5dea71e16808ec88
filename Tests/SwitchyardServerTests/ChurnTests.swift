import Foundation
import SignalingProtocol
import Testing

/// Clients that come and go every way a client can (leaving cleanly, dropping their socket, never
/// connecting, sending garbage) leave nothing behind: every count of live objects the daemon keeps
/// goes back to where it started.
@Suite(.serialized) struct ChurnTests {
    private struct LiveObjects: Equatable, CustomStringConvertible {
        var httpConnections, webSockets, sessions, connections, routers, transports: Int
        var description: String {
            "http \(httpConnections), websockets \(webSockets), sessions \(sessions), connections \(connections), routers \(routers), transports \(transports)"
        }
    }

    private func liveObjects(_ harness: DaemonHarness) async -> LiveObjects {
        let counts = await harness.daemon.signaling.directory.counts()
        let plane = await harness.daemon.mediaStatistics()
        return LiveObjects(
            httpConnections: harness.daemon.openHTTPConnections, webSockets: harness.daemon.signaling.openWebSockets,
            sessions: counts.sessions, connections: counts.connections, routers: plane.routers, transports: plane.transports)
    }

    @Test func nothingIsLeftAfterClientsComeAndGo() async throws {
        let harness = try await DaemonHarness.start { configuration in
            // Short enough to keep the test quick, long enough that a loaded machine still completes
            // the handshakes of the clients that do send their heads.
            configuration.http.headerTimeout = .seconds(3)
            configuration.signaling.messagesPerSecond = 10_000
            configuration.signaling.messageBurst = 10_000
        }
        let baseline = await liveObjects(harness)
        #expect(baseline == LiveObjects(httpConnections: 0, webSockets: 0, sessions: 0, connections: 0, routers: 0, transports: 0))
        let data = String(repeating: "d", count: 2048)
        for round in 0..<5 {
            // Opened first, so their header timeout runs while the others come and go.
            let idle = try (0..<5).map { _ in try RawTCPClient(port: harness.port) }
            var leaving: [WebSocketTestClient] = []
            for index in 0..<20 {
                let (client, _) = try await harness.connect(session: "churn\(index % 4)", role: .publisher)
                _ = try await client.call(.signal(SignalParameters(type: "churn", data: data)))
                leaving.append(client)
            }
            var dropping: [RawTCPClient] = []
            for index in 0..<10 {
                let raw = try RawTCPClient(port: harness.port)
                try await raw.upgradeToWebSocket()
                let token = try await harness.token(session: "churn\(index % 4)", role: .publisher)
                let connect = ClientMessage(id: 1, request: .connect(ConnectParameters(sessionId: "churn\(index % 4)", token: token)))
                try raw.send(WebSocketFrameBytes.text(String(decoding: connect.encoded(), as: UTF8.self)))
                _ = try await raw.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("\"connectionId\"") }
                dropping.append(raw)
            }
            let garbage = try (0..<5).map { _ in try RawTCPClient(port: harness.port) }
            for client in garbage { try? client.send("HELLO WORLD \(round)\r\n\r\n") }
            for client in leaving { _ = try? await client.call(.disconnect) }
            for client in dropping { client.close() }
            for client in idle + garbage { _ = try await client.readToEnd(seconds: 10) }
        }
        var now = await liveObjects(harness)
        for _ in 0..<100 where now != baseline {
            try await Task.sleep(for: .milliseconds(100))
            now = await liveObjects(harness)
        }
        #expect(now == baseline, "left after churn: \(now)")
        try await harness.stop()
    }
}
