import Foundation
import Signaling
import SignalingProtocol
import Testing

/// A `connect` in flight when a node's drain closes its sessions. The chaos run found one drain in
/// nineteen taking 10.7 s, its session whole again only once the drained node had exited after its
/// full drain time. This race explains it: a `connect` (a visitor's, sent as the drain began) found
/// its session on the draining node just before the drain closed every session, and joined after
/// it, which made the session again there; the session's publisher, coming back through that node,
/// joined it too, while its subscribers went to the node placement chose, without the publisher.
/// The node kept their sockets until its drain's end and refused the publisher's retries until it
/// exited, 10 s after the SIGTERM.
extension ClusterTests {
    @Test func aConnectThatFoundItsSessionJustBeforeTheDrainClosedItMakesNoSessionThere() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2)
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        let token = try await a.token(session: "raced", role: .publisher)
        _ = try await WebSocketTestClient.connected(port: a.port, host: a.configuration.host, sessionId: "raced", token: token)
        #expect(try cluster.holder(of: "raced") == "node-a")
        let directory = a.daemon.signaling.directory
        let grant = try await a.daemon.signaling.tokens.verifyClientToken(token, now: Date())
        #expect(await directory.hosts("raced"), "the connect's check finds the session here")

        // The drain's steps (SignalingShutdownService), then the join the check let through.
        await a.daemon.cluster?.beginDrain()
        let word = "this node is draining; connect again to continue the session on another node"
        await directory.closeAll(reason: .nodeDraining, message: word)
        do {
            _ = try await directory.connect(grant: grant, outbox: ClientOutbox())
            Issue.record("a connect after the drain closed every session made the session again on the draining node")
        } catch {
            #expect(error == SignalingError(.unavailable, word))
        }
        #expect(await !directory.hosts("raced"))
        await #expect(throws: SignalingError(.unavailable, word)) { try await directory.createSession(id: "raced-rest") }
        // A client coming back through the draining node is sent to the session's new node.
        let mover = try await WebSocketTestClient.open(port: a.port, host: a.configuration.host)
        let refusal = try await mover.refusal(.connect(ConnectParameters(sessionId: "raced", token: token)))
        #expect(refusal?.code == .sessionOnOtherNode && refusal?.location == b.webSocketURL, "\(String(describing: refusal))")
        await cluster.stop()
    }
}
