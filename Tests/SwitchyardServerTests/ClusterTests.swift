import Cluster
import Foundation
import Glibc
import SignalingProtocol
import SwitchyardClient
import SwitchyardServer
import Testing

/// Three daemons on 127.0.0.2-4 sharing a private PostgreSQL: placement, clients and REST at any
/// node, signals across nodes, racing placements, drain, a killed node, the database going away.
@Suite(.serialized, .stopsWhatItStarts) struct ClusterTests {
    static let media: EncodedMedia = try! EncodedMedia(
        settings: MediaSettings(videoBitrate: 200_000, audioBitrate: 24_000, width: 256, height: 144, frameRate: 15, loopSeconds: 1))

    func join(_ url: String, _ sessionId: String, _ role: Role, token node: DaemonHarness, loop: MediaLoop) async throws -> Session {
        try await Session.connect(
            url: url, sessionId: sessionId, token: try await node.token(session: sessionId, role: role),
            options: SessionOptions(mediaLoop: loop, reconnectTimeout: .seconds(3)))
    }

    /// Polls `condition` every 50 ms until it holds or `timeout` passes.
    func eventually(_ timeout: Duration = .seconds(10), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test func sessionsArePlacedOnTheLeastLoadedNodeAndRESTAnswersFromAnyNode() async throws {
        let cluster = try await ClusterFixture.start(nodes: 3)
        let first = cluster.nodes[0]
        let rest = try await first.restToken()
        var created: [String] = []
        for name in ["one", "two", "three"] {
            let (status, body) = try await first.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"\#(name)"}"#)
            #expect(status == 201, "\(String(decoding: body, as: UTF8.self))")
            created.append(name)
        }
        // All empty: the first goes to the node asked; then to the emptiest, the lower id on a tie.
        #expect(try cluster.holder(of: "one") == "node-a")
        #expect(try cluster.holder(of: "two") == "node-b")
        #expect(try cluster.holder(of: "three") == "node-c")
        #expect(await cluster.nodes[1].daemon.signaling.directory.hosts("two"))
        #expect(await !first.daemon.signaling.directory.hosts("two"))
        // A generated id is placed too, and the answer names it.
        let (status, body) = try await cluster.nodes[2].http("POST", "/v1/sessions", token: rest, body: nil)
        #expect(status == 201)
        let generated = try JSONDecoder().decode([String: String].self, from: body)["sessionId"] ?? ""
        #expect(try cluster.holder(of: generated) != nil)

        for node in cluster.nodes {
            for sessionId in created {
                let (status, body) = try await node.http("GET", "/v1/sessions/\(sessionId)", token: rest)
                #expect(status == 200)
                let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: body)
                #expect(snapshot.sessionId == sessionId)
            }
            #expect(try await node.http("GET", "/v1/sessions/nowhere", token: rest).status == 404)
            // The token is checked where the request arrives, before it travels.
            #expect(try await node.http("GET", "/v1/sessions/two", token: "not-a-token").status == 401)
        }
        // WHIP at a node that does not serve the session: a 307 to the same path on the one that does
        // (on a raw socket: URLSession would follow it).
        let third = cluster.nodes[2]
        let whip = try RawTCPClient(host: third.configuration.host, port: third.port)
        let offer = "v=0\r\n"
        try whip.send(
            "POST /v1/whip/one HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(try await first.token(session: "one", role: .publisher))\r\n"
                + "Content-Type: application/sdp\r\nContent-Length: \(offer.utf8.count)\r\nConnection: close\r\n\r\n\(offer)")
        let answer = String(decoding: try await whip.readToEnd(seconds: 5).bytes, as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 307"), "\(answer)")
        #expect(answer.lowercased().contains("location: http://\(first.configuration.host):\(first.port)/v1/whip/one"), "\(answer)")

        let overview = try await cluster.overview(from: 1)
        #expect(overview.nodeId == "node-b")
        #expect(overview.nodes.map(\.nodeId) == ["node-a", "node-b", "node-c"])
        #expect(overview.nodes.allSatisfy { $0.live && $0.state == "active" })
        #expect(overview.nodes.first { $0.nodeId == "node-a" }?.sessionIds.contains("one") == true)
        #expect(overview.nodes.first { $0.nodeId == "node-c" }?.sessionIds.contains("three") == true)
        await cluster.stop()
    }

    @Test func aClientAtAnotherNodeJoinsTheSessionWhereItLivesAndNothingStaysBehind() async throws {
        let cluster = try await ClusterFixture.start(nodes: 3)
        let loop = try MediaLoop()
        let (a, b, c) = (cluster.nodes[0], cluster.nodes[1], cluster.nodes[2])
        let alice = try await join(b.webSocketURL, "meeting", .publisher, token: a, loop: loop)
        #expect(alice.serverURL == b.webSocketURL)
        #expect(try cluster.holder(of: "meeting") == "node-b")
        // Bob arrives at node C and is sent to B, where Alice is.
        let bob = try await join(c.webSocketURL, "meeting", .subscriber, token: a, loop: loop)
        #expect(bob.serverURL == b.webSocketURL)
        #expect(bob.connections.contains { $0.connectionId == alice.connection?.connectionId })
        #expect(await next(alice.events) { $0 == .connectionCreated(bob.connection!) } != nil)
        // A reconnect that reaches another node (through a load balancer) is sent to the session's node.
        let stray = try await WebSocketTestClient(url: c.webSocketURL)
        let answer = try await stray.send(
            .reconnect(
                ReconnectParameters(sessionId: "meeting", connectionId: bob.connection!.connectionId, reconnectSecret: "not-checked-here", lastEventSeq: 0)))
        guard case .error(_, let redirect) = answer else {
            Issue.record("reconnect at node C was answered \(answer)")
            return
        }
        #expect(redirect.code == .sessionOnOtherNode && redirect.location == b.webSocketURL)

        // Media goes straight to B: byte counts at the subscriber prove the path.
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        #expect(await eventually(.seconds(5)) { bob.streams.contains { $0.streamId == publisher.streamId } })
        let subscriber = try await bob.subscribe(to: publisher.streamId)
        #expect(await eventually(.seconds(5)) { await subscriber.statistics().video.packetsReceived > 10 })

        await bob.disconnect()
        await alice.disconnect()
        // The session ended with its last connection: its placement goes at once.
        #expect(try await eventually(.seconds(5)) { try cluster.holder(of: "meeting") == nil })
        await cluster.stop()
    }

    @Test func restOnOneNodeSignalsAndDisconnectsClientsOnAnother() async throws {
        let cluster = try await ClusterFixture.start(nodes: 3)
        let loop = try MediaLoop()
        let (a, c) = (cluster.nodes[0], cluster.nodes[2])
        let carol = try await join(a.webSocketURL, "signals", .publisher, token: a, loop: loop)
        let dave = try await join(a.webSocketURL, "signals", .publisher, token: a, loop: loop)
        #expect(try cluster.holder(of: "signals") == "node-a")
        let rest = try await c.restToken()
        let signal = try await c.http("POST", "/v1/sessions/signals/signal", token: rest, body: #"{"type":"chat","data":"from node c"}"#)
        #expect(signal.status == 204)
        let received = await next(carol.events) { if case .signalReceived = $0 { true } else { false } }
        #expect(received == .signalReceived(type: "chat", data: "from node c", from: nil))
        // A refusal comes back as the session's node said it.
        let unknown = try await c.http("POST", "/v1/sessions/signals/connections/c_unknown/signal", token: rest, body: #"{"type":"chat","data":"x"}"#)
        #expect(unknown.status == 404)
        let bad = try await c.http("POST", "/v1/sessions/signals/signal", token: rest, body: #"{"type":"no spaces allowed","data":"x"}"#)
        #expect(bad.status == 400)
        #expect(String(decoding: bad.body, as: UTF8.self).contains("type"))

        let kicked = try await c.http("DELETE", "/v1/sessions/signals/connections/\(dave.connection!.connectionId)", token: rest)
        #expect(kicked.status == 204)
        let gone = await next(dave.events) { if case .sessionDidDisconnect = $0 { true } else { false } }
        #expect(gone == .sessionDidDisconnect(reason: .forceDisconnected))
        await carol.disconnect()
        await cluster.stop()
    }

    /// An app backend retrying a REST signal under its `signalId` through whichever node it reaches:
    /// twice through one node and once through another, each answered 204, delivered once, since
    /// the session's node, where every copy lands, remembers the id.
    @Test func aRESTSignalResentThroughAnyNodeIsDeliveredOnce() async throws {
        let cluster = try await ClusterFixture.start(nodes: 3) { $0.signaling.reconnection.grace = .seconds(30) }
        defer { cluster.database.stop() }
        let loop = try MediaLoop()
        let (a, b, c) = (cluster.nodes[0], cluster.nodes[1], cluster.nodes[2])
        let erin = try await join(a.webSocketURL, "retried", .publisher, token: a, loop: loop)
        #expect(try cluster.holder(of: "retried") == "node-a")
        let rest = try await b.restToken()
        let body = #"{"type":"notice","data":"once","signalId":"rest-sig-1"}"#
        for node in [b, b, c] {
            #expect(try await node.http("POST", "/v1/sessions/retried/signal", token: rest, body: body).status == 204)
        }
        let after = #"{"type":"notice","data":"after","signalId":"rest-sig-2"}"#
        #expect(try await a.http("POST", "/v1/sessions/retried/signal", token: rest, body: after).status == 204)
        // Signals reach a connection in order: what follows "once" shows whether it came again.
        var received: [String] = []
        for _ in 0..<2 {
            let signal = await next(erin.events) { if case .signalReceived = $0 { true } else { false } }
            guard case .signalReceived(_, let data, _) = signal else { break }
            received.append(data)
        }
        #expect(received == ["once", "after"])
        await erin.disconnect()
        await cluster.stop()
    }

    @Test func twoNodesPlacingOneSessionAtOnceAgree() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2)
        let nodeA = try #require(cluster.nodes[0].daemon.cluster)
        let nodeB = try #require(cluster.nodes[1].daemon.cluster)
        for round in 0..<20 {
            let sessionId = "race-\(round)"
            async let fromA = nodeA.place(sessionId: sessionId)
            async let fromB = nodeB.place(sessionId: sessionId)
            let (answerA, answerB) = try await (fromA, fromB)
            let holderA = answerA == .here ? "node-a" : { if case .node(let node) = answerA { node.nodeId } else { "" } }()
            let holderB = answerB == .here ? "node-b" : { if case .node(let node) = answerB { node.nodeId } else { "" } }()
            #expect(holderA == holderB, "round \(round): \(answerA) vs \(answerB)")
            #expect(try cluster.holder(of: sessionId) == holderA)
        }
        let rows = try cluster.database.query("SELECT count(*) FROM switchyard_sessions WHERE session_id LIKE 'race-%'")
        #expect(rows == ["20"])
        await cluster.stop()
    }

    /// Alice publishes and Bob receives in a session on `node`, both having come in through `entry`.
    private func meeting(_ sessionId: String, entry: DaemonHarness, loop: MediaLoop) async throws -> (Session, Session, Publisher) {
        let alice = try await join(entry.webSocketURL, sessionId, .publisher, token: entry, loop: loop)
        let bob = try await join(entry.webSocketURL, sessionId, .subscriber, token: entry, loop: loop)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        #expect(await eventually(.seconds(5)) { bob.streams.contains { $0.streamId == publisher.streamId } })
        let subscriber = try await bob.subscribe(to: publisher.streamId)
        #expect(await eventually(.seconds(5)) { await subscriber.statistics().video.packetsReceived > 10 })
        return (alice, bob, publisher)
    }

    /// Waits for both clients to move and Bob to receive Alice's stream again; how long that took.
    private func moveAndReceiveAgain(_ alice: Session, _ bob: Session, _ publisher: Publisher, since start: ContinuousClock.Instant) async throws -> (moved: Duration, media: Duration) {
        let oldStreamId = publisher.streamId
        for client in [alice, bob] {
            let moved = await next(client.events, timeout: .seconds(15)) { if case .sessionDidMove = $0 { true } else { false } }
            #expect(moved != nil, "no sessionDidMove")
        }
        let movedAfter = ContinuousClock.now - start
        #expect(alice.serverURL == bob.serverURL)
        #expect(await eventually(.seconds(5)) { publisher.streamId != oldStreamId })
        #expect(await eventually(.seconds(5)) { bob.streams.contains { $0.streamId == publisher.streamId } })
        let subscriber = try await bob.subscribe(to: publisher.streamId)
        #expect(await eventually(.seconds(5)) { await subscriber.statistics().video.packetsReceived > 10 })
        return (movedAfter, ContinuousClock.now - start)
    }

    @Test func aDrainingNodeSendsItsClientsToAnotherNodeAndLeavesNothingBehind() async throws {
        let cluster = try await ClusterFixture.start(nodes: 3)
        let loop = try MediaLoop()
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        #expect(try await a.http("POST", "/v1/sessions", token: try await a.restToken(), body: #"{"sessionId":"drained","connectionEventsSuppressed":true}"#).status == 201)
        // The clients come in through node B (as through a load balancer) and are sent to A.
        let (alice, bob, publisher) = try await meeting("drained", entry: b, loop: loop)
        #expect(alice.serverURL == a.webSocketURL)

        let drainStarted = ContinuousClock.now
        let stopping = Task { try await a.stop() }
        let (moved, media) = try await moveAndReceiveAgain(alice, bob, publisher, since: drainStarted)
        let newHolder = try cluster.holder(of: "drained")
        #expect(newHolder == "node-b" || newHolder == "node-c")
        #expect(try await snapshot(of: "drained", at: newHolder == "node-b" ? b : cluster.nodes[2])?.connectionEventsSuppressed == true)
        try await stopping.value
        #expect(try cluster.database.query("SELECT count(*) FROM switchyard_nodes WHERE node_id = 'node-a'") == ["0"])
        #expect(try cluster.database.query("SELECT count(*) FROM switchyard_sessions WHERE node_id = 'node-a'") == ["0"])
        print("cluster drain: both clients on \(newHolder ?? "?") \(moved) after the drain began, media again after \(media)")
        await alice.disconnect()
        await bob.disconnect()
        await cluster.stop()
    }

    /// A draining node answers the sockets that open during its drain until its last moment: a
    /// `connect` with `sessionOnOtherNode`, and a socket still open when the drain ends with
    /// `sessionDisconnected` `nodeDraining` and 1001, never the bare 1000 of the HTTP server's stop.
    @Test func aDrainingNodeAnswersSocketsOpenedDuringItsDrainUntilItStops() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2)
        defer { cluster.database.stop() }
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        let token = try await a.token(session: "last-moment", role: .publisher)
        let (member, _) = try await WebSocketTestClient.connected(port: a.port, host: a.configuration.host, sessionId: "last-moment", token: token)
        #expect(try cluster.holder(of: "last-moment") == "node-a")
        let stopping = Task { try await a.stop() }
        guard case .sessionDisconnected(let told) = try await member.event(.sessionDisconnected) else { return }
        #expect(told.reason == .nodeDraining)
        // Node A has marked itself draining: the session goes to node B.
        let mover = try await WebSocketTestClient.open(port: a.port, host: a.configuration.host)
        let refusal = try await mover.refusal(.connect(ConnectParameters(sessionId: "last-moment", token: token)))
        #expect(refusal?.code == .sessionOnOtherNode && refusal?.location == b.webSocketURL, "\(String(describing: refusal))")
        // Neither socket is closed by its client: both are open when the drain ends.
        let idle = try await WebSocketTestClient.open(port: a.port, host: a.configuration.host)
        try await stopping.value
        for (name, client) in [("mover", mover), ("idle", idle)] {
            let close = try await client.closeFrame()
            #expect(close?.closeCode == .goingAway && close?.reason == "node draining", "\(name): \(String(describing: close))")
            let word = try? await client.event(.sessionDisconnected, timeout: .milliseconds(100))
            #expect(word == .sessionDisconnected(told), "\(name)")
        }
        await cluster.stop()
    }

    @Test func aKilledNodesSessionComesBackOnAnotherNodeWhenItsClientsReconnect() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2)
        let loop = try MediaLoop()
        let a = cluster.nodes[0]
        let k = try await KillableNode.start(nodeId: "node-k", host: "127.0.0.9", mediaPorts: 47700...47739, database: cluster.database)
        defer { k.stop() }
        let rest = try await a.restToken()
        #expect(await eventually(.seconds(20)) { (try? await DaemonHarness.http(
                "POST", url: k.baseURL + "/v1/sessions", token: rest, body: #"{"sessionId":"survivor","connectionEventsSuppressed":true}"#, contentType: "application/json"))?.status == 201 })
        #expect(try cluster.holder(of: "survivor") == "node-k")
        let (alice, bob, publisher) = try await meeting("survivor", entry: a, loop: loop)
        #expect(alice.serverURL == k.webSocketURL)

        let killedAt = ContinuousClock.now
        k.kill()
        // Until its heartbeat is stale the dead node still holds the session: a REST request for it
        // is refused as unavailable, naming the node, rather than hanging.
        let refused = try await a.http("GET", "/v1/sessions/survivor", token: rest)
        #expect(refused.status == 503)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("node-k"))
        let (moved, media) = try await moveAndReceiveAgain(alice, bob, publisher, since: killedAt)
        let newHolder = try cluster.holder(of: "survivor")
        #expect(newHolder == "node-a" || newHolder == "node-b")
        #expect(try await snapshot(of: "survivor", at: newHolder == "node-a" ? a : cluster.nodes[1])?.connectionEventsSuppressed == true)
        let overview = try await cluster.overview()
        #expect(overview.nodes.first { $0.nodeId == "node-k" }.map { !$0.live } ?? true)
        print("cluster failover: kill -9 to both clients on \(newHolder ?? "?") \(moved), media again after \(media) (node timeout 3 s)")
        await alice.disconnect()
        await bob.disconnect()
        await cluster.stop()
    }

    @Test func nodesServeWhatTheyHoldWhileTheDatabaseIsAwayAndPlaceAgainWhenItReturns() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2, databaseTimeout: .seconds(2))
        let loop = try MediaLoop()
        let (a, b) = (cluster.nodes[0], cluster.nodes[1])
        let gina = try await join(a.webSocketURL, "steady", .publisher, token: a, loop: loop)
        try cluster.database.pause()
        // What node A holds goes on: signals, a new connection to the session it hosts.
        let harry = try await join(a.webSocketURL, "steady", .publisher, token: a, loop: loop)
        try await harry.signal(type: "hello", data: "still here")
        let received = await next(gina.events) { if case .signalReceived = $0 { true } else { false } }
        #expect(received == .signalReceived(type: "hello", data: "still here", from: harry.connection?.connectionId))
        // A new session cannot be placed: refused in bounded time with unavailable.
        let started = ContinuousClock.now
        do {
            _ = try await join(b.webSocketURL, "newcomer", .publisher, token: b, loop: loop)
            Issue.record("a session was placed without the database")
        } catch {
            #expect((error as? SessionError)?.refusalCode == .unavailable, "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(6))
        let rest = try await b.restToken()
        #expect(try await b.http("GET", "/v1/sessions/steady", token: rest).status == 503)

        try cluster.database.resume()
        // The moment the database is back, before node A's next heartbeat: its session is still its
        // own (node B was away as long, so A's stale heartbeat is no sign that A died) ...
        let judy = try await join(b.webSocketURL, "steady", .publisher, token: b, loop: loop)
        #expect(judy.serverURL == a.webSocketURL)
        try await judy.signal(type: "hello", data: "back")
        let greeting = await next(gina.events) { if case .signalReceived(_, "back", _) = $0 { true } else { false } }
        #expect(greeting == .signalReceived(type: "hello", data: "back", from: judy.connection?.connectionId))
        // ... and a new session is placed at once.
        let ivan = try await join(b.webSocketURL, "newcomer", .publisher, token: b, loop: loop)
        #expect(ivan.connection != nil)
        // The database still has "steady" on node A, once: nothing lost or duplicated.
        #expect(try cluster.holder(of: "steady") == "node-a")
        #expect(try cluster.database.query("SELECT count(*) FROM switchyard_sessions WHERE session_id = 'steady'") == ["1"])
        #expect(try await eventually(.seconds(10)) { try await cluster.overview(from: 1).nodes.allSatisfy(\.live) })
        for client in [gina, harry, judy, ivan] { await client.disconnect() }
        await cluster.stop()
    }

    /// A node that goes silent, or answers garbage, when a REST request is forwarded to it costs the
    /// caller a 503 naming it within the database timeout, and the forwarding node serves on.
    @Test func aNodeThatAnswersGarbageOrNothingCostsABoundedRefusal() async throws {
        let cluster = try await ClusterFixture.start(nodes: 1, databaseTimeout: .seconds(2))
        let a = cluster.nodes[0]
        let rest = try await a.restToken()
        for behaviour in [MisbehavingHTTPPeer.Behaviour.silent, .garbage] {
            let peer = try MisbehavingHTTPPeer(behaviour)
            defer { peer.stop() }
            let node = "rogue-\(behaviour.rawValue)"
            // A live-looking node that holds a session, as its heartbeat would have written it.
            _ = try cluster.database.query(
                """
                INSERT INTO switchyard_nodes (node_id, instance, signaling_url, internal_url, state, started_at, heartbeat_at, max_sessions)
                VALUES ('\(node)', 'test', 'ws://127.0.0.1:\(peer.port)/v1/ws', 'http://127.0.0.1:\(peer.port)', 'active', now(), now(), 10);
                INSERT INTO switchyard_sessions (session_id, node_id) VALUES ('held-by-\(node)', '\(node)')
                """)
            let started = ContinuousClock.now
            let (status, body) = try await a.http("GET", "/v1/sessions/held-by-\(node)", token: rest)
            #expect(status == 503, "\(String(decoding: body, as: UTF8.self))")
            #expect(String(decoding: body, as: UTF8.self).contains(node))
            #expect(ContinuousClock.now - started < .seconds(4), "refused after \(ContinuousClock.now - started)")
            #expect(try await a.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"fine-\#(behaviour.rawValue)"}"#).status == 201)
        }
        await cluster.stop()
    }

    @Test func aDaemonAloneHasNoClusterView() async throws {
        let alone = try await DaemonHarness.start()
        let (status, body) = try await alone.http("GET", "/v1/cluster", token: try await alone.restToken())
        #expect(status == 404)
        #expect(String(decoding: body, as: UTF8.self).contains("does not run in a cluster"))
        try await alone.stop()
    }

    @Test func aNodeRefusesToStartWithoutItsDatabaseOrWithAnotherLiveNodesId() async throws {
        let nowhere = try DatabaseAddress(url: "postgres://switchyard@127.0.0.1:\(freeTCPPort())/postgres?sslmode=disable")
        var configuration = SwitchyardConfiguration.builtIn
        configuration.port = 0
        configuration.media.workerCount = 1
        configuration.cluster = ClusterConfiguration(
            database: nowhere, nodeId: "lonely", signalingURL: "ws://127.0.0.1:1/v1/ws", internalURL: "http://127.0.0.1:1", maxSessions: 10,
            databaseTimeout: .seconds(1))
        do {
            _ = try await SwitchyardDaemon(configuration: configuration, logger: .init(label: "test"))
            Issue.record("the daemon started without its database")
        } catch {
            #expect(error.description.contains("could not join the cluster"))
            #expect(error.description.contains(nowhere.description))
        }

        let cluster = try await ClusterFixture.start(nodes: 1)
        configuration.cluster?.database = try DatabaseAddress(url: cluster.database.url)
        configuration.cluster?.nodeId = "node-a"
        do {
            _ = try await SwitchyardDaemon(configuration: configuration, logger: .init(label: "test"))
            Issue.record("a second node-a joined")
        } catch {
            #expect(error.description.contains("\"node-a\" belongs to a live node"))
        }
        await cluster.stop()
    }
}
