import Cluster
import Foundation
import SignalingProtocol
import SwitchyardClient
import Testing

/// A node killed and started again under its id at once, as a supervisor restarts a crashed process:
/// its new process holds nothing of what the killed one held, and the other nodes must not wait for
/// the node timeout (which the new process's heartbeats never let pass) to find that out.
extension ClusterTests {
    /// The edge serving a cascaded subscriber is back under its id before the session's node saw it
    /// dead: the session's node takes the new instance for what it is at its next heartbeat, fails
    /// the subscriber, and the client subscribes again and gets media.
    @Test func aCascadedSubscriberComesBackWhenItsEdgeIsRestartedAtOnceUnderItsId() async throws {
        let cluster = try await ClusterFixture.start(nodes: 1) { $0.cluster?.subscribersBeforeCascading = 1 }
        let origin = cluster.nodes[0]
        let edge = try await KillableNode.start(nodeId: "node-r", host: "127.0.0.13", mediaPorts: 47860...47899, database: cluster.database)
        defer { edge.stop() }
        #expect(await eventually(.seconds(20)) { (try? await cluster.overview())?.nodes.contains { $0.nodeId == "node-r" && $0.live } == true })
        let loop = try MediaLoop()
        func join(_ role: Role) async throws -> Session { try await self.join(origin.webSocketURL, "reborn-edge", role, token: origin, loop: loop) }
        let alice = try await join(.publisher)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let subscribers = try await receivingSubscribers(of: publisher, count: 2) { try await join(.subscriber) }
        let far = subscribers[1]
        #expect(mediaPort(far).map(edge.mediaPorts.contains) == true, "the second subscriber is served by the other node")

        let killedAt = ContinuousClock.now
        edge.kill()
        // Within the node timeout (3 s): the killed process's heartbeat still looks live.
        try await edge.restart()
        let restarted = ContinuousClock.now - killedAt
        #expect(restarted < .seconds(3), "started again within the node timeout: \(restarted)")
        #expect(await next(far.events, timeout: .seconds(5)) { $0 == .subscriberDidReconnectToStream } != nil)
        let back = ContinuousClock.now - killedAt
        let received = await far.statistics().video.packetsReceived
        #expect(await eventually(.seconds(5)) { await far.statistics().video.packetsReceived > received + 10 })
        print("edge restarted under its id \(restarted) after kill -9; its cascaded subscriber subscribed again \(back) after (node timeout 3 s)")
        await alice.disconnect()
        await loop.stop()
        await cluster.stop()
    }

    /// The session's node is back under its id before the edge saw it dead: the edge drops the
    /// routes it served for the killed process (whose router ids the new process will hand out
    /// again) at its next heartbeat, without waiting for a node timeout that never comes.
    @Test func anEdgeDropsWhatItServedForASessionsNodeRestartedAtOnceUnderItsId() async throws {
        let cluster = try await ClusterFixture.start(nodes: 1)
        let edge = cluster.nodes[0]
        let origin = try await KillableNode.start(
            nodeId: "node-q", host: "127.0.0.14", mediaPorts: 47900...47939, database: cluster.database, subscribersBeforeCascading: 1)
        defer { origin.stop() }
        #expect(await eventually(.seconds(20)) { (try? await cluster.overview())?.nodes.contains { $0.nodeId == "node-q" && $0.live } == true })
        let loop = try MediaLoop()
        func join(_ role: Role) async throws -> Session { try await self.join(origin.webSocketURL, "reborn-origin", role, token: edge, loop: loop) }
        let alice = try await join(.publisher)
        #expect(try cluster.holder(of: "reborn-origin") == "node-q")
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let subscribers = try await receivingSubscribers(of: publisher, count: 2) { try await join(.subscriber) }
        #expect(mediaPort(subscribers[1]).map { !origin.mediaPorts.contains($0) } == true, "the second subscriber is served by the edge")
        #expect(await edge.daemon.mediaStatistics().transports == 2, "the leg's ingress and the far subscriber's transport")

        let killedAt = ContinuousClock.now
        origin.kill()
        try await origin.restart()
        let restarted = ContinuousClock.now - killedAt
        #expect(restarted < .seconds(3), "started again within the node timeout: \(restarted)")
        #expect(try cluster.holder(of: "reborn-origin") == nil, "the killed process's placements went with it")
        #expect(await eventually(.seconds(3)) { await edge.daemon.mediaStatistics().transports == 0 })
        let dropped = ContinuousClock.now - killedAt
        print("session's node restarted under its id \(restarted) after kill -9; its edge held nothing for it \(dropped) after (node timeout 3 s)")
        await alice.disconnect()
        await loop.stop()
        await cluster.stop()
    }
}
