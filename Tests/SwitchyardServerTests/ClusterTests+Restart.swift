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
        let cascade = try await KillableCascade.start(
            self, session: "reborn-edge", killable: .edge, nodeId: "node-r", host: "127.0.0.13", mediaPorts: 47860...47899)
        defer { cascade.killable.stop() }
        let (edge, far) = (cascade.killable, cascade.subscribers[1])

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
        await cascade.stop()
    }

    /// The session's node is back under its id before the edge saw it dead: the edge drops the
    /// routes it served for the killed process (whose router ids the new process will hand out
    /// again) at its next heartbeat, without waiting for a node timeout that never comes.
    @Test func anEdgeDropsWhatItServedForASessionsNodeRestartedAtOnceUnderItsId() async throws {
        let cascade = try await KillableCascade.start(
            self, session: "reborn-origin", killable: .sessionNode, nodeId: "node-q", host: "127.0.0.14", mediaPorts: 47900...47939)
        defer { cascade.killable.stop() }
        let (edge, origin) = (cascade.node, cascade.killable)
        #expect(await edge.daemon.mediaStatistics().transports == 2, "the leg's ingress and the far subscriber's transport")

        let killedAt = ContinuousClock.now
        origin.kill()
        try await origin.restart()
        let restarted = ContinuousClock.now - killedAt
        #expect(restarted < .seconds(3), "started again within the node timeout: \(restarted)")
        #expect(try cascade.cluster.holder(of: "reborn-origin") == nil, "the killed process's placements went with it")
        #expect(await eventually(.seconds(3)) { await edge.daemon.mediaStatistics().transports == 0 })
        let dropped = ContinuousClock.now - killedAt
        print("session's node restarted under its id \(restarted) after kill -9; its edge held nothing for it \(dropped) after (node timeout 3 s)")
        await cascade.stop()
    }
}
