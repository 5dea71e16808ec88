import Foundation
import MediaTestSupport
import SignalingProtocol
import Testing

/// A connection whose WebSocket drops comes back with `reconnect` within the grace period: the others
/// see nothing, its streams and subscriptions carry on, and it receives every event it missed, in
/// order, none twice. Real daemon, real sockets; drops are sockets closed without `disconnect`.
@Suite(.serialized) struct ReconnectionTests {
    private func start(grace: Duration = .seconds(10), replayMessages: Int = 1024) async throws -> DaemonHarness {
        try await DaemonHarness.start { configuration in
            configuration.signaling.reconnection.grace = grace
            configuration.signaling.reconnection.replayMessages = replayMessages
        }
    }

    /// Every event already in `client`'s inbox, waiting `quiet` for more.
    private func drain(_ client: WebSocketTestClient, quiet: Duration = .milliseconds(200)) async -> [(event: SessionEvent, sequence: UInt64?)] {
        var events: [(event: SessionEvent, sequence: UInt64?)] = []
        while let next = try? await client.nextEvent(timeout: quiet) { events.append(next) }
        return events
    }

    private func status(of connectionId: String, in sessionId: String, _ harness: DaemonHarness) async -> ConnectionStatus? {
        await harness.daemon.signaling.directory.snapshot(of: sessionId)?.connections.first { $0.connectionId == connectionId }?.status
    }

    /// Waits until the server has noticed the drop.
    private func waitUntilReconnecting(_ connectionId: String, in sessionId: String, _ harness: DaemonHarness) async throws {
        for _ in 0..<500 where await status(of: connectionId, in: sessionId, harness) != .reconnecting {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await status(of: connectionId, in: sessionId, harness) == .reconnecting)
    }

    private func reconnect(_ connected: ConnectResult, sessionId: String, lastEventSeq: UInt64, _ harness: DaemonHarness) async throws -> (
        WebSocketTestClient, ServerMessage
    ) {
        let client = try await WebSocketTestClient.open(port: harness.port)
        let reply = try await client.send(
            .reconnect(
                ReconnectParameters(
                    sessionId: sessionId, connectionId: connected.connection.connectionId,
                    reconnectSecret: try #require(connected.reconnection?.secret), lastEventSeq: lastEventSeq)))
        return (client, reply)
    }

    @Test func aShortDropIsInvisibleToTheOthersAndWhatWasMissedIsReplayedInOrder() async throws {
        let harness = try await start()
        let (alice, aliceConnect) = try await harness.connect(session: "blip", role: .publisher)
        #expect(aliceConnect.reconnection?.graceSeconds == 10)
        let (bob, bobConnect) = try await harness.connect(session: "blip", role: .moderator)
        let alicePeer = try TestPeer()
        let bobPeer = try TestPeer()
        guard case .publish(let published) = try await alice.call(.publish(alicePeer.publishParameters())) else { return }
        try alicePeer.accept(try #require(published.transport))
        _ = try await bob.event(.streamCreated)
        guard case .subscribe(let subscribed) = try await bob.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: bobPeer.transportOffer)))
        else { return }
        try bobPeer.accept(try #require(subscribed.transport))
        let seen = await drain(alice)
        #expect(seen.map(\.sequence) == (0..<seen.count).map { UInt64($0 + 1) }, "events are numbered from 1 without gaps")
        let lastSeen = seen.last?.sequence ?? 0

        alice.drop()
        try await waitUntilReconnecting(aliceConnect.connection.connectionId, in: "blip", harness)
        let aliceId = aliceConnect.connection.connectionId
        _ = try await bob.call(.signal(SignalParameters(to: aliceId, type: "first", data: "1")))
        _ = try await bob.call(.signal(SignalParameters(to: aliceId, type: "second", data: "2")))
        let (carol, carolConnect) = try await harness.connect(session: "blip", role: .subscriber)

        let (returned, reply) = try await reconnect(aliceConnect, sessionId: "blip", lastEventSeq: lastSeen, harness)
        guard case .reply(_, .reconnect(let resumed)) = reply else {
            Issue.record("reconnect was not accepted: \(reply)")
            return
        }
        #expect(resumed.connection.connectionId == aliceId)
        #expect(resumed.connection.status == .connected)
        #expect(resumed.reconnection != nil && resumed.reconnection?.secret != aliceConnect.reconnection?.secret, "each reply has a new secret")
        #expect(resumed.session.streams.map(\.streamId) == [published.stream.streamId])
        let missed = await drain(returned)
        #expect(missed.map(\.sequence) == [lastSeen + 1, lastSeen + 2, lastSeen + 3])
        guard missed.count == 3 else { return }
        #expect(missed[0].event == .signal(SignalDelivery(from: bobConnect.connection.connectionId, type: "first", data: "1")))
        #expect(missed[1].event == .signal(SignalDelivery(from: bobConnect.connection.connectionId, type: "second", data: "2")))
        #expect(missed[2].event == .connectionCreated(ConnectionEvent(connection: carolConnect.connection)))

        // The others saw nothing, the subscription is still there, and the media still flows.
        for event in await drain(bob) + drain(carol) {
            #expect(![.connectionDestroyed, .streamDestroyed, .subscriberDestroyed].contains(event.event.name), "\(event.event)")
        }
        #expect(await harness.daemon.signaling.directory.counts().subscribers == 1)
        try alicePeer.sendMedia(startingAt: 0, count: 5, keyFrameFirst: true)
        #expect(try await onOwnThread { bobPeer.receiveRTP(count: 10) }.count == 10)

        // The next events go on from where the replay stopped.
        _ = try await bob.call(.signal(SignalParameters(to: aliceId, type: "third", data: "3")))
        let next = try await returned.nextEvent()
        #expect(next.sequence == lastSeen + 4)
        try await harness.stop()
    }

    @Test func aSignalResentUnderTheSameIdIsDeliveredOnce() async throws {
        let harness = try await start()
        let (alice, _) = try await harness.connect(session: "once", role: .publisher)
        let (bob, bobConnect) = try await harness.connect(session: "once", role: .publisher)
        let signal = SignalParameters(to: bobConnect.connection.connectionId, type: "chat", data: "hi", retryAfterReconnect: true, signalId: "s-1")
        _ = try await alice.call(.signal(signal))
        _ = try await alice.call(.signal(signal))
        var other = signal
        other.signalId = "s-2"
        _ = try await alice.call(.signal(other))
        let delivered = await drain(bob).filter { $0.event.name == .signal }
        #expect(delivered.count == 2)
        #expect(try await alice.refusal(.signal(SignalParameters(type: "chat", data: "", signalId: "not valid!")))?.message.contains("params.signalId") == true)
        #expect(try await alice.refusal(.signal(SignalParameters(type: "chat", data: "", signalId: "")))?.code == .invalidParams)
        try await harness.stop()
    }

    @Test func aDropLongerThanTheGraceEndsTheConnectionForEveryone() async throws {
        let harness = try await start(grace: .seconds(1))
        let (alice, aliceConnect) = try await harness.connect(session: "gone", role: .publisher)
        let (bob, _) = try await harness.connect(session: "gone", role: .subscriber)
        let peer = try TestPeer()
        _ = try await alice.call(.publish(peer.publishParameters()))
        _ = try await bob.event(.streamCreated)
        alice.drop()
        guard case .streamDestroyed(let stream) = try await bob.event(.streamDestroyed, timeout: .seconds(10)) else { return }
        #expect(stream.reason == .networkDisconnected)
        guard case .connectionDestroyed(let connection) = try await bob.event(.connectionDestroyed) else { return }
        #expect(connection.reason == .networkDisconnected)
        #expect(connection.connection.connectionId == aliceConnect.connection.connectionId)
        let (_, reply) = try await reconnect(aliceConnect, sessionId: "gone", lastEventSeq: 0, harness)
        guard case .error(_, let error) = reply else {
            Issue.record("a connection past its grace came back: \(reply)")
            return
        }
        #expect(error.code == .notFound)
        try await harness.stop()
    }

    @Test func aSecondSocketTakesOverAndTheFirstIsClosedWith4000() async throws {
        let harness = try await start()
        let (alice, aliceConnect) = try await harness.connect(session: "takeover", role: .publisher)
        let (bob, bobConnect) = try await harness.connect(session: "takeover", role: .publisher)
        let lastSeen = await drain(alice).last?.sequence ?? 0
        let (second, reply) = try await reconnect(aliceConnect, sessionId: "takeover", lastEventSeq: lastSeen, harness)
        guard case .reply(_, .reconnect) = reply else {
            Issue.record("takeover refused: \(reply)")
            return
        }
        guard case .sessionDisconnected(let goodbye) = try await alice.event(.sessionDisconnected) else { return }
        #expect(goodbye.reason == .replaced)
        #expect(try await alice.closeFrame()?.closeCode == .unknown(4000))
        _ = try await second.call(.signal(SignalParameters(to: bobConnect.connection.connectionId, type: "back", data: "")))
        guard case .signal(let delivery) = try await bob.event(.signal) else { return }
        #expect(delivery.from == aliceConnect.connection.connectionId)
        #expect(await bob.receives(.connectionDestroyed, within: .milliseconds(300)) == false)
        #expect(await status(of: aliceConnect.connection.connectionId, in: "takeover", harness) == .connected)
        try await harness.stop()
    }

    @Test func wrongForeignAndReplayedSecretsAreRefusedAndAGuesserIsCutOff() async throws {
        let harness = try await start()
        let (_, aliceConnect) = try await harness.connect(session: "secret", role: .publisher)
        let (_, strangerConnect) = try await harness.connect(session: "elsewhere", role: .publisher)
        let aliceId = aliceConnect.connection.connectionId
        let guesser = try await WebSocketTestClient.open(port: harness.port)
        let wrong = try await guesser.refusal(
            .reconnect(ReconnectParameters(sessionId: "secret", connectionId: aliceId, reconnectSecret: "rs_guess", lastEventSeq: 0)))
        #expect(wrong?.code == .invalidToken)
        let foreign = try await guesser.refusal(
            .reconnect(
                ReconnectParameters(
                    sessionId: "secret", connectionId: strangerConnect.connection.connectionId,
                    reconnectSecret: try #require(strangerConnect.reconnection?.secret), lastEventSeq: 0)))
        #expect(foreign?.code == .notFound)
        _ = try await guesser.refusal(
            .reconnect(ReconnectParameters(sessionId: "secret", connectionId: aliceId, reconnectSecret: "rs_again", lastEventSeq: 0)))
        guard case .sessionDisconnected(let cutOff) = try await guesser.event(.sessionDisconnected) else { return }
        #expect(cutOff.reason == .rateLimitExceeded)
        #expect(try await guesser.closeFrame()?.closeCode == .policyViolation)

        let (first, _) = try await reconnect(aliceConnect, sessionId: "secret", lastEventSeq: 0, harness)
        let (_, replayed) = try await reconnect(aliceConnect, sessionId: "secret", lastEventSeq: 0, harness)
        guard case .error(_, let error) = replayed else {
            Issue.record("a secret already used was accepted again")
            return
        }
        #expect(error.code == .invalidToken)
        #expect(try await first.refusal(.reconnect(ReconnectParameters(sessionId: "secret", connectionId: aliceId, reconnectSecret: "x", lastEventSeq: 0)))?.code == .alreadyConnected)

        try await harness.stop()
    }

    @Test func aClientThatMissedMoreThanIsKeptIsRefusedAndEndedAtOnce() async throws {
        let harness = try await start(replayMessages: 16)
        let (alice, aliceConnect) = try await harness.connect(session: "overflow", role: .publisher)
        let (bob, _) = try await harness.connect(session: "overflow", role: .publisher)
        let lastSeen = await drain(alice).last?.sequence ?? 0
        alice.drop()
        try await waitUntilReconnecting(aliceConnect.connection.connectionId, in: "overflow", harness)
        for index in 0..<20 {
            _ = try await bob.call(.signal(SignalParameters(to: aliceConnect.connection.connectionId, type: "m\(index)", data: "")))
        }
        let (_, reply) = try await reconnect(aliceConnect, sessionId: "overflow", lastEventSeq: lastSeen, harness)
        guard case .error(_, let error) = reply else {
            Issue.record("resumed without the events that fell out: \(reply)")
            return
        }
        #expect(error.code == .reconnectRefused)
        #expect(error.message.contains("connect afresh"))
        guard case .connectionDestroyed(let destroyed) = try await bob.event(.connectionDestroyed) else { return }
        #expect(destroyed.reason == .networkDisconnected)
        let (_, ahead) = try await reconnect(aliceConnect, sessionId: "overflow", lastEventSeq: 0, harness)
        if case .error(_, let gone) = ahead { #expect(gone.code == .notFound) } else { Issue.record("the ended connection came back") }
        try await harness.stop()
    }

    @Test func theFaultRouteDropsAWebSocketOnlyWhenFaultInjectionIsOn() async throws {
        let harness = try await DaemonHarness.start { configuration in
            configuration.signaling.reconnection.grace = .seconds(10)
            configuration.media.faultInjection = true
        }
        let (alice, aliceConnect) = try await harness.connect(session: "fault", role: .publisher)
        let path = "/v1/sessions/fault/connections/\(aliceConnect.connection.connectionId)/fault"
        let token = try await harness.restToken()
        #expect(try await harness.http("PUT", path, token: token, body: #"{"dropWebSocket": true}"#).status == 204)
        #expect(try await alice.closeFrame() == nil, "reset without a close handshake")
        try await waitUntilReconnecting(aliceConnect.connection.connectionId, in: "fault", harness)
        #expect(try await harness.http("PUT", "/v1/sessions/fault/connections/c_none/fault", token: token, body: #"{"dropWebSocket": true}"#).status == 404)
        #expect(try await harness.http("PUT", path, token: token, body: #"{"dropWebSocket": "yes"}"#).status == 400)
        try await harness.stop()

        let production = try await start()
        let (_, bobConnect) = try await production.connect(session: "fault", role: .publisher)
        let refused = try await production.http(
            "PUT", "/v1/sessions/fault/connections/\(bobConnect.connection.connectionId)/fault", token: try await production.restToken(),
            body: #"{"dropWebSocket": true}"#)
        #expect(refused.status == 400)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("fault injection is off"))
        try await production.stop()
    }

    @Test func aClaimedEventTheServerNeverSentIsNamed() async throws {
        let harness = try await start()
        let (_, aliceConnect) = try await harness.connect(session: "ahead", role: .publisher)
        let (_, reply) = try await reconnect(aliceConnect, sessionId: "ahead", lastEventSeq: 99, harness)
        guard case .error(_, let error) = reply else {
            Issue.record("accepted an event from the future")
            return
        }
        #expect(error.code == .invalidParams)
        #expect(error.message.contains("params.lastEventSeq"))
        try await harness.stop()
    }
}
