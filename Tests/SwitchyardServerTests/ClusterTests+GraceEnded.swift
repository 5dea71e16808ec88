import Foundation
import SignalingProtocol
import SwitchyardClient
import Testing

/// A cascaded subscriber whose client stays away past the reconnection grace: its transport on the
/// edge and the relay leg are closed. The chaos run lost two of three nodes within 15 minutes to a
/// trap in Foundation's URLSession (a request's task cancelled as it ended), each just after such a
/// connection ended; the session's node closes the edge's transport from the grace timer's task,
/// which ending the connection cancelled.
extension ClusterTests {
    @Test func aCascadedSubscriberAwayPastTheGraceHasItsTransportOnTheEdgeClosed() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { configuration in
            configuration.cluster?.subscribersBeforeCascading = 1
            configuration.signaling.reconnection.grace = .seconds(1)
        }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let loop = try MediaLoop()
        func join(_ role: Role) async throws -> Session { try await self.join(origin.webSocketURL, "away", role, token: origin, loop: loop) }
        let alice = try await join(.publisher)
        #expect(try cluster.holder(of: "away") == "node-a")
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        var sessions: [Session] = []
        _ = try await receivingSubscribers(of: publisher, count: 2) {
            sessions.append(try await join(.subscriber))
            return sessions.last!
        }
        #expect(await edge.daemon.mediaStatistics().transports == 2, "the leg's ingress and the far subscriber's transport")

        // Its client's network goes for longer than the grace (and than its own reconnect timeout,
        // 3 s): the connection ends at the session's node, which must close what the edge serves.
        sessions[1].simulateNetworkOutage(for: .seconds(8))
        #expect(await eventually(.seconds(6)) { await edge.daemon.mediaStatistics().transports == 0 })
        #expect(await eventually(.seconds(2)) { await origin.daemon.mediaStatistics().transports == 2 }, "the publisher's and the near subscriber's; the leg is closed")
        await alice.disconnect()
        await loop.stop()
        await cluster.stop()
    }
}
