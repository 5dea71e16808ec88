import SignalingProtocol
import SwitchyardClient
import Testing

/// A session cascaded over a cluster node and a node a test can kill (`KillableNode`): a publisher
/// and two subscribers, the second served by the other node over a relay leg. Either the killable
/// node is the edge (the session on the cluster node) or it holds the session.
struct KillableCascade {
    enum KillableRole {
        case edge
        case sessionNode
    }

    let cluster: ClusterFixture
    /// The cluster's node: the session's node, or the edge when the killable node holds the session.
    let node: DaemonHarness
    let killable: KillableNode
    let loop: MediaLoop
    let publisherSession: Session
    let publisher: Publisher
    /// Near (on the session's node) and far (on the edge).
    let subscribers: [Subscriber]

    /// Starts it all; checks that the session is where it should be and that the far subscriber's
    /// media comes from the edge.
    static func start(
        _ tests: ClusterTests, session: String, killable role: KillableRole, nodeId: String, host: String, mediaPorts: ClosedRange<UInt16>
    ) async throws -> KillableCascade {
        let cluster = try await ClusterFixture.start(nodes: 1) { if role == .edge { $0.cluster?.subscribersBeforeCascading = 1 } }
        let node = cluster.nodes[0]
        let killable = try await KillableNode.start(
            nodeId: nodeId, host: host, mediaPorts: mediaPorts, database: cluster.database,
            subscribersBeforeCascading: role == .sessionNode ? 1 : nil)
        #expect(await tests.eventually(.seconds(20)) { (try? await cluster.overview())?.nodes.contains { $0.nodeId == nodeId && $0.live } == true })
        let loop = try MediaLoop()
        let entry = role == .edge ? node.webSocketURL : killable.webSocketURL
        let join = { (role: Role) in try await tests.join(entry, session, role, token: node, loop: loop) }
        let publisherSession = try await join(.publisher)
        #expect(try cluster.holder(of: session) == (role == .edge ? "node-a" : nodeId))
        let publisher = try await publisherSession.publish(PublisherSettings(name: "camera", media: ClusterTests.media))
        let subscribers = try await tests.receivingSubscribers(of: publisher, count: 2) { try await join(.subscriber) }
        let farOnKillable = tests.mediaPort(subscribers[1]).map(killable.mediaPorts.contains)
        #expect(farOnKillable == (role == .edge), "the second subscriber is served by the edge: \(subscribers[1].mediaServer)")
        return KillableCascade(
            cluster: cluster, node: node, killable: killable, loop: loop, publisherSession: publisherSession, publisher: publisher,
            subscribers: subscribers)
    }

    func stop() async {
        await publisherSession.disconnect()
        await loop.stop()
        killable.stop()
        await cluster.stop()
    }
}
