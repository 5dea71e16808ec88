import Foundation
import MediaTestSupport
import SignalingProtocol
import Testing

@testable import Signaling

/// Connection event suppression (docs/protocol.md): in a session created with
/// `connectionEventsSuppressed`, or for a client that asks at `connect`, others' joins and leaves
/// reach moderators only; the rest get the count, at most once a second, and a connect reply that
/// holds their own connection and the publishers'.
@Suite(.serialized) struct ConnectionEventSuppressionTests {
    private func message(_ body: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String) ?? String(decoding: body, as: UTF8.self)
    }

    private func connect(
        _ daemon: DaemonHarness, session: String, role: Role, suppressing: Bool = false, suppressedByToken: Bool = false
    ) async throws -> (WebSocketTestClient, ConnectResult) {
        let client = try await WebSocketTestClient.open(port: daemon.port, host: daemon.configuration.host)
        let token = try await daemon.daemon.signaling.tokens.mintClientToken(
            sessionId: session, role: role, connectionEventsSuppressed: suppressedByToken, lifetime: 600, now: Date())
        let parameters = ConnectParameters(sessionId: session, token: token, connectionEventsSuppressed: suppressing ? true : nil)
        guard case .connect(let result) = try await client.call(.connect(parameters)) else { throw WebSocketTestClient.Failure.timedOut("connect") }
        return (client, result)
    }

    /// The next `connectionCountChanged` with `count`, skipping older counts.
    private func count(_ count: Int, at client: WebSocketTestClient) async throws -> Bool {
        let message = try await client.message(timeout: .seconds(5), "connectionCountChanged \(count)") {
            $0 == .event(.connectionCountChanged(ConnectionCount(connectionCount: count)))
        }
        return message == .event(.connectionCountChanged(ConnectionCount(connectionCount: count)))
    }

    private func hasConnectionEvents(_ client: WebSocketTestClient) async -> Bool {
        let created = await client.receives(.connectionCreated, within: .milliseconds(1))
        let destroyed = await client.receives(.connectionDestroyed, within: .milliseconds(1))
        return created || destroyed
    }

    @Test func inASuppressedSessionOnlyModeratorsHearJoinsAndLeavesAndTheOthersHearTheCount() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        let created = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"stage","connectionEventsSuppressed":true}"#)
        #expect(created.status == 201)
        let (moderator, moderatorJoined) = try await connect(daemon, session: "stage", role: .moderator)
        #expect(moderatorJoined.session.connectionEventsSuppressed == true)
        let (host, hostJoined) = try await connect(daemon, session: "stage", role: .publisher)
        #expect(hostJoined.session.connectionCount == 2)
        #expect(hostJoined.session.connections.map(\.connectionId) == [hostJoined.connection.connectionId], "no publisher yet: only its own")
        let peer = try TestPeer()
        guard case .publish(let published) = try await host.call(.publish(peer.publishParameters())) else { return }

        let (viewer, viewerJoined) = try await connect(daemon, session: "stage", role: .subscriber)
        #expect(viewerJoined.session.connectionCount == 3)
        #expect(Set(viewerJoined.session.connections.map(\.connectionId)) == [viewerJoined.connection.connectionId, hostJoined.connection.connectionId])
        #expect(viewerJoined.session.streams.map(\.streamId) == [published.stream.streamId])

        let (late, lateJoined) = try await connect(daemon, session: "stage", role: .subscriber)
        // The moderator hears each join, with the joiner's connection; the others hear the count.
        for joined in [hostJoined, viewerJoined, lateJoined] {
            guard case .connectionCreated(let event) = try await moderator.event(.connectionCreated) else { return }
            #expect(event.connection.connectionId == joined.connection.connectionId)
        }
        #expect(try await count(4, at: host))
        #expect(try await count(4, at: viewer))
        let hostHeard = await hasConnectionEvents(host)
        let viewerHeard = await hasConnectionEvents(viewer)
        #expect(!hostHeard && !viewerHeard, "joins reach the moderator only")

        await late.close()
        guard case .connectionDestroyed(let left) = try await moderator.event(.connectionDestroyed) else { return }
        #expect(left.connection.connectionId == lateJoined.connection.connectionId)
        #expect(try await count(3, at: viewer))
        let viewerHeardTheLeave = await hasConnectionEvents(viewer)
        #expect(!viewerHeardTheLeave)

        // Stream events and signals reach everyone as before; the app's REST view lists everybody.
        _ = try await host.call(.signal(SignalParameters(type: "chat", data: "hi")))
        guard case .signal(let signal) = try await viewer.event(.signal) else { return }
        #expect(signal.data == "hi")
        let snapshot = try JSONDecoder().decode(SessionSnapshot.self, from: try await daemon.http("GET", "/v1/sessions/stage", token: rest).body)
        #expect(snapshot.connectionCount == 3 && snapshot.connections.count == 3)
        for client in [moderator, host, viewer] { await client.close() }
        try await daemon.stop()
    }

    @Test func aClientMayAskForTheCountInASessionThatSendsConnectionEvents() async throws {
        let daemon = try await DaemonHarness.start()
        let (member, _) = try await connect(daemon, session: "open", role: .publisher)
        let (quiet, quietJoined) = try await connect(daemon, session: "open", role: .subscriber, suppressing: true)
        #expect(quietJoined.session.connectionEventsSuppressed == nil)
        #expect(quietJoined.session.connectionCount == 2)
        #expect(quietJoined.session.connections.map(\.connectionId) == [quietJoined.connection.connectionId])
        guard case .connectionCreated(let heard) = try await member.event(.connectionCreated) else { return }
        #expect(heard.connection.connectionId == quietJoined.connection.connectionId, "the others still hear it join")

        let (third, _) = try await connect(daemon, session: "open", role: .subscriber)
        _ = try await member.event(.connectionCreated)
        #expect(try await count(3, at: quiet))
        let quietHeard = await hasConnectionEvents(quiet)
        #expect(!quietHeard)
        for client in [member, quiet, third] { await client.close() }
        try await daemon.stop()
    }

    /// The app's backend can suppress a connection through its token
    /// (`connection_events_suppressed`), whatever the client asks at `connect`: even a moderator's.
    @Test func theTokenSuppressesWhatTheClientDidNotAskToSuppress() async throws {
        let daemon = try await DaemonHarness.start()
        let (member, _) = try await connect(daemon, session: "told", role: .publisher)
        let (quiet, quietJoined) = try await connect(daemon, session: "told", role: .moderator, suppressedByToken: true)
        #expect(quietJoined.session.connections.map(\.connectionId) == [quietJoined.connection.connectionId])
        _ = try await member.event(.connectionCreated)
        let (third, _) = try await connect(daemon, session: "told", role: .subscriber)
        _ = try await member.event(.connectionCreated)
        #expect(try await count(3, at: quiet))
        let quietHeard = await hasConnectionEvents(quiet)
        #expect(!quietHeard, "the token's claim holds though connect did not ask")
        for client in [member, quiet, third] { await client.close() }
        try await daemon.stop()
    }

    /// The REST listing pages through a session's connections in id order; a page follows the last
    /// id of the one before, even once that connection has left.
    @Test func theRESTListingPagesThroughEveryConnection() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        var clients: [String: WebSocketTestClient] = [:]
        for _ in 0..<7 {
            let (client, joined) = try await connect(daemon, session: "audience", role: .subscriber)
            clients[joined.connection.connectionId] = client
        }
        func page(_ query: String) async throws -> ConnectionPage {
            let answer = try await daemon.http("GET", "/v1/sessions/audience/connections\(query)", token: rest)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            return try JSONDecoder().decode(ConnectionPage.self, from: answer.body)
        }
        let first = try await page("?limit=3")
        #expect(first.connections.count == 3 && first.connectionCount == 7)
        #expect(first.connections.map(\.connectionId) == first.connections.map(\.connectionId).sorted())
        let last = try #require(first.next)
        #expect(last == first.connections.last?.connectionId)
        // The connection the next page starts after leaves; the listing goes on from its id.
        await clients.removeValue(forKey: last)?.close()
        let leftBy = ContinuousClock.now + .seconds(10)
        while try await page("").connectionCount == 7, ContinuousClock.now < leftBy { try await Task.sleep(for: .milliseconds(20)) }
        let second = try await page("?limit=3&after=\(last)")
        #expect(second.connectionCount == 6)
        let third = try await page("?limit=3&after=\(try #require(second.next))")
        #expect(third.next == nil && third.connections.count == 1)
        let listed = (first.connections + second.connections + third.connections).map(\.connectionId)
        #expect(Set(listed) == Set(clients.keys).union([last]) && listed.count == 7, "each once, the one that left on the page it was on")
        #expect(try await page("").connections.count == 6, "100 by default")

        let badLimit = try await daemon.http("GET", "/v1/sessions/audience/connections?limit=0", token: rest)
        #expect(badLimit.status == 400)
        #expect(message(badLimit.body).contains("query.limit"), "\(message(badLimit.body))")
        #expect(try await daemon.http("GET", "/v1/sessions/nobody/connections", token: rest).status == 404)
        for client in clients.values { await client.close() }
        try await daemon.stop()
    }

    /// 5,000 joins and leaves in a suppressed session, and a crowd through a session that sends
    /// connection events: nothing stays behind, neither connections, nor listeners, nor the session
    /// a client's connect made.
    @Test func thousandsOfJoinsAndLeavesLeaveNothingBehind() async throws {
        let daemon = try await DaemonHarness.start { $0.signaling.limits.connectionsPerSession = 10_000 }
        let directory = daemon.daemon.signaling.directory
        _ = try await directory.createSession(id: "crowd", connectionEventsSuppressed: true)
        let expiry = Int64(Date().timeIntervalSince1970) + 600
        let moderator = try await directory.connect(
            grant: ClientGrant(sessionId: "crowd", role: .moderator, connectionData: "", expiresAt: expiry), outbox: ClientOutbox())
        var joined: [String] = []
        for index in 0..<5000 {
            let grant = ClientGrant(sessionId: "crowd", role: .subscriber, connectionData: "viewer \(index)", expiresAt: expiry)
            let result = try await directory.connect(grant: grant, outbox: ClientOutbox())
            #expect(result.session.connections.count == 1, "a viewer's reply does not list the crowd")
            joined.append(result.connection.connectionId)
        }
        #expect(await directory.sessions["crowd"]?.connectionEventListeners == [moderator.connection.connectionId])
        #expect(await directory.counts().connections == 5001)
        for connectionId in joined {
            await directory.disconnect(sessionId: "crowd", connectionId: connectionId, reason: .clientDisconnected)
        }
        await directory.disconnect(sessionId: "crowd", connectionId: moderator.connection.connectionId, reason: .clientDisconnected)
        #expect(await directory.counts().connections == 0)
        #expect(await directory.sessions["crowd"]?.connectionEventListeners.isEmpty == true)

        var open: [String] = []
        for _ in 0..<300 {
            let grant = ClientGrant(sessionId: "room", role: .publisher, connectionData: "", expiresAt: expiry)
            open.append(try await directory.connect(grant: grant, outbox: ClientOutbox()).connection.connectionId)
        }
        #expect(await directory.sessions["room"]?.connectionEventListeners.count == 300)
        for connectionId in open {
            await directory.disconnect(sessionId: "room", connectionId: connectionId, reason: .networkDisconnected)
        }
        #expect(await !directory.hosts("room"), "the session a connect made ends with its last connection")
        #expect(await directory.counts() == DirectoryCounts(sessions: 1))
        try await daemon.stop()
    }

    @Test func theOptionIsChosenAtCreationAndRefusedByNameOtherwise() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        let body = #"{"sessionId":"fixed","connectionEventsSuppressed":true}"#
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: body).status == 201)
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: body).status == 201)
        let changed = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"fixed","connectionEventsSuppressed":false}"#)
        #expect(changed.status == 400)
        #expect(message(changed.body).contains("body.connectionEventsSuppressed"), "\(message(changed.body))")
        #expect(message(changed.body).contains("exists already with connection events suppressed"))
        let malformed = try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"other","connectionEventsSuppressed":1}"#)
        #expect(malformed.status == 400)
        #expect(message(malformed.body).contains("connectionEventsSuppressed"), "\(message(malformed.body))")
        let client = try await WebSocketTestClient.open(port: daemon.port, host: daemon.configuration.host)
        let token = try await daemon.token(session: "fixed", role: .subscriber)
        try await client.sendText(#"{"v":1,"id":1,"method":"connect","params":{"sessionId":"fixed","token":"\#(token)","connectionEventsSuppressed":"yes"}}"#)
        guard case .error(_, let refusal) = try await client.message(where: { if case .error = $0 { true } else { false } }) else { return }
        #expect(refusal.code == .invalidParams)
        #expect(refusal.message.contains("connectionEventsSuppressed"), "\(refusal.message)")
        await client.close()
        try await daemon.stop()
    }
}
