import Foundation
import SwitchyardClient
import Synchronization
import Testing

extension ClusterTests {
    /// A client of a cluster that loses its network tries to resume on its node and, finding it
    /// unreachable, to connect afresh elsewhere; those attempts fail while the network is down. When
    /// it returns and the client resumes, the server replays what came after the last event the
    /// client had: nothing received before the outage may come again. (A failed move reset the
    /// client's last `seq` to 0, and every signal of the last 30 s was delivered a second time: the
    /// chaos run found it.)
    @Test func aClientBackFromAnOutageGetsNoEventTwice() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { $0.signaling.reconnection.grace = .seconds(20) }
        let loop = try MediaLoop(name: "cluster-resume")
        defer { Task { await loop.stop() } }
        let node = cluster.nodes[0]
        let url = "ws://\(node.configuration.host):\(node.port)/v1/ws"
        func member() async throws -> Session {
            try await Session.connect(
                url: url, sessionId: "outage", token: try await node.token(session: "outage", role: .publisher),
                options: SessionOptions(mediaLoop: loop, reconnectTimeout: .seconds(20)))
        }
        let traveller = try await member()
        let sender = try await member()
        let received = Mutex<[String: Int]>([:])
        let listener = Task {
            for await event in traveller.events {
                if case .signalReceived(_, let data, _) = event { received.withLock { $0[data, default: 0] += 1 } }
            }
        }
        defer { listener.cancel() }
        let to = traveller.connection?.connectionId
        for index in 0..<5 { try await sender.signal(type: "before", data: "before-\(index)", to: to) }
        #expect(await eventually { received.withLock { $0.count } == 5 })

        traveller.simulateNetworkOutage(for: .seconds(3))
        try await sender.signal(type: "during", data: "during", to: to)
        #expect(await eventually(.seconds(15)) { traveller.connectionStatus == .connected && received.withLock { $0["during"] } != nil })
        try await Task.sleep(for: .milliseconds(500))
        let counts = received.withLock { $0 }
        #expect(counts.count == 6, "\(counts)")
        #expect(counts.values.allSatisfy { $0 == 1 }, "delivered more than once: \(counts.filter { $0.value > 1 })")
        #expect(traveller.eventSequenceGaps == 0)
        await traveller.disconnect()
        await sender.disconnect()
        await cluster.stop()
    }

    /// A client that loses its network while one of its alternative entries is down resumes its own
    /// connection when the network returns, rather than joining as a second one: the moves it tried
    /// meanwhile must not leave its resume aimed at the dead entry. (The chaos run found publishers
    /// back from an outage as new connections on their own node, while their old connections, held
    /// for the grace, kept a stream their subscribers stayed on without media.)
    @Test func aClientBackFromAnOutageWithAnEntryDownResumesItsOwnConnection() async throws {
        let cluster = try await ClusterFixture.start(nodes: 1) { $0.signaling.reconnection.grace = .seconds(20) }
        let loop = try MediaLoop(name: "cluster-resume-entry-down")
        defer { Task { await loop.stop() } }
        let node = cluster.nodes[0]
        let down = "ws://127.0.0.1:\(freeTCPPort())/v1/ws"
        let traveller = try await Session.connect(
            url: node.webSocketURL, sessionId: "entry-down", token: try await node.token(session: "entry-down", role: .publisher),
            options: SessionOptions(mediaLoop: loop, reconnectTimeout: .seconds(20), alternativeURLs: [down]))
        let connectionId = traveller.connection?.connectionId
        let moved = Mutex(false)
        let listener = Task {
            for await event in traveller.events {
                if case .sessionDidMove = event { moved.withLock { $0 = true } }
            }
        }
        defer { listener.cancel() }

        traveller.simulateNetworkOutage(for: .seconds(2))
        try await Task.sleep(for: .seconds(2))
        #expect(await eventually(.seconds(10)) { traveller.connectionStatus == .connected })
        #expect(traveller.connection?.connectionId == connectionId, "came back as a new connection")
        #expect(!moved.withLock { $0 })
        await traveller.disconnect()
        await cluster.stop()
    }
}
