import Foundation
import SignalingProtocol
import Testing

/// A session's settings outlive its node (docs/cluster.md, "Session settings"): made through REST,
/// they are kept in the database, and the node that makes the session again after a drain makes it
/// with them; they go when the session ends, or a day after no node holds it.
extension ClusterTests {
    func snapshot(of sessionId: String, at node: DaemonHarness) async throws -> SessionSnapshot? {
        let read = try await node.http("GET", "/v1/sessions/\(sessionId)", token: try await node.restToken())
        return read.status == 200 ? try JSONDecoder().decode(SessionSnapshot.self, from: read.body) : nil
    }

    @Test func aSessionMovedByADrainIsMadeAgainWithTheSettingsItWasMadeWith() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2)
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        let made = try await a.http(
            "POST", "/v1/sessions", token: try await a.restToken(),
            body: #"{"sessionId":"kept","e2ee":true,"connectionEventsSuppressed":true,"audio":{"forwardLoudest":2}}"#)
        #expect(made.status == 201)
        #expect(try cluster.holder(of: "kept") == "node-a")
        let (first, second) = (try await a.token(session: "kept", role: .subscriber), try await a.token(session: "kept", role: .publisher))
        _ = try await WebSocketTestClient.connected(port: a.port, host: a.configuration.host, sessionId: "kept", token: first)
        try await a.stop()
        #expect(try cluster.holder(of: "kept") == nil)
        #expect(try cluster.database.query("SELECT unplaced_at IS NOT NULL FROM switchyard_session_settings WHERE session_id = 'kept'") == ["t"])

        // Its clients come back through B, which makes it as it was made, not with defaults.
        let (viewer, viewerJoined) = try await WebSocketTestClient.connected(port: b.port, host: b.configuration.host, sessionId: "kept", token: first)
        #expect(try cluster.holder(of: "kept") == "node-b")
        #expect(viewerJoined.session.connectionEventsSuppressed == true)
        #expect(viewerJoined.session.e2ee == true)
        #expect(viewerJoined.session.audio?.forwardLoudest == 2)
        let (_, publisherJoined) = try await WebSocketTestClient.connected(port: b.port, host: b.configuration.host, sessionId: "kept", token: second)
        #expect(publisherJoined.session.connectionCount == 2)
        #expect(await !viewer.receives(.connectionCreated, within: .milliseconds(300)), "the viewer heard a join in a suppressed session")
        // Made through REST, it stays on B once its clients have left, as it would have on A.
        await viewer.close()
        #expect(try await snapshot(of: "kept", at: b)?.connectionEventsSuppressed == true)
        await cluster.stop()
    }

    @Test func keptSettingsGoWhenTheirSessionEndsAndADayAfterNoNodeHoldsIt() async throws {
        let cluster = try await ClusterFixture.start(nodes: 1)
        let a = cluster.nodes[0]
        let rest = try await a.restToken()
        // A session a client made, whose audio the backend then set: kept until it ends.
        let (client, _) = try await WebSocketTestClient.connected(
            port: a.port, host: a.configuration.host, sessionId: "brief", token: try await a.token(session: "brief", role: .publisher))
        #expect(try await a.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"brief","audio":{"forwardLoudest":3}}"#).status == 201)
        let kept = try cluster.database.query("SELECT settings FROM switchyard_session_settings WHERE session_id = 'brief'")
        #expect(kept.count == 1 && kept[0].contains(#""forwardLoudest":3"#) && kept[0].contains(#""createdThroughREST":false"#), "\(kept)")
        await client.close()
        #expect(try await eventually { try cluster.database.query("SELECT count(*) FROM switchyard_session_settings WHERE session_id = 'brief'") == ["0"] })

        // Settings no node has held for over a day go at a heartbeat; younger ones, and those of a
        // session placed again, stay.
        #expect(try await a.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"held","connectionEventsSuppressed":true}"#).status == 201)
        let settings = #"{"createdThroughREST":true,"e2ee":false,"connectionEventsSuppressed":true,"archiveMode":"manual"}"#
        _ = try cluster.database.query(
            """
            INSERT INTO switchyard_session_settings VALUES ('orphan', '\(settings)', now() - interval '25 hours'), ('recent', '\(settings)', now() - interval '23 hours');
            UPDATE switchyard_session_settings SET unplaced_at = now() - interval '25 hours' WHERE session_id = 'held'
            """)
        #expect(try await eventually { try cluster.database.query("SELECT count(*) FROM switchyard_session_settings WHERE session_id = 'orphan'") == ["0"] })
        #expect(try cluster.database.query("SELECT session_id FROM switchyard_session_settings ORDER BY session_id") == ["held", "recent"])
        await cluster.stop()
    }
}
