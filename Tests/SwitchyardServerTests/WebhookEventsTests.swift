import Foundation
import MediaControl
import MediaTestSupport
import Signaling
import SignalingProtocol
import SwitchyardServer
import Testing
import Webhooks

/// A real daemon telling real receivers what happens in its sessions: every kind it can tell,
/// signed, numbered in order per session, with the data the protocol's events carry.
@Suite struct WebhookEventsTests {
    private func start(
        _ receivers: [(WebhookTestReceiver, Set<SessionActivity.Kind>?)], adjust: @escaping (inout WebhookConfiguration) -> Void = { _ in }
    ) async throws -> DaemonHarness {
        try await DaemonHarness.start { configuration in
            configuration.signaling.reconnection.grace = .seconds(10)
            var webhooks = WebhookConfiguration(
                endpoints: receivers.enumerated().map { index, entry in
                    WebhookEndpoint(name: "backend-\(index)", url: entry.0.url, secret: entry.0.secret, events: entry.1)
                })
            adjust(&webhooks)
            configuration.webhooks = webhooks
        }
    }

    private func decode<Value: Decodable>(_ type: Value.Type, from attempt: WebhookTestReceiver.Attempt) throws -> Value {
        let data = try JSONSerialization.data(withJSONObject: try #require(attempt.json["data"]))
        return try JSONDecoder().decode(type, from: data)
    }

    @Test func everyKindOfASessionsLifeArrivesSignedInOrderWithTheProtocolsData() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        let harness = try await start([(receiver, nil)])
        let (alice, aliceConnect) = try await harness.connect(session: "hooks", role: .publisher, data: "alice")
        let peer = try TestPeer()
        guard case .publish(let published) = try await alice.call(.publish(peer.publishParameters())) else { return }
        let (bob, bobConnect) = try await harness.connect(session: "hooks", role: .subscriber, data: "bob")
        guard case .connectionCreated(let bobSeenByAlice) = try await alice.event(.connectionCreated) else { return }
        let bobPeer = try TestPeer()
        guard case .subscribe(let subscribed) = try await bob.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: bobPeer.transportOffer)))
        else { return }
        _ = try await bob.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscribed.subscriberId, subscribeToVideo: false)))
        _ = try await bob.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscribed.subscriberId, subscribeToVideo: true)))
        bob.drop()
        try await receiver.wait { $0.contains { $0.event == "connectionReconnecting" } }
        let returned = try await WebSocketTestClient.open(port: harness.port)
        let reply = try await returned.send(
            .reconnect(
                ReconnectParameters(
                    sessionId: "hooks", connectionId: bobConnect.connection.connectionId,
                    reconnectSecret: try #require(bobConnect.reconnection?.secret), lastEventSeq: 0)))
        guard case .reply(_, .reconnect) = reply else {
            Issue.record("reconnect refused: \(reply)")
            return
        }
        _ = try await alice.call(.unpublish(StreamReference(streamId: published.stream.streamId)))
        _ = try await returned.call(.disconnect)
        _ = try await alice.call(.disconnect)
        try await receiver.wait { $0.contains { $0.event == "sessionDestroyed" } }

        let delivered = receiver.delivered
        #expect(delivered.allSatisfy { $0.signatureValid }, "every delivery verifies under the endpoint's secret")
        #expect(
            delivered.map(\.event) == [
                "sessionCreated", "connectionCreated", "streamCreated", "connectionCreated", "videoDisabled", "videoEnabled",
                "connectionReconnecting", "connectionReconnected", "streamDestroyed", "connectionDestroyed", "connectionDestroyed",
                "sessionDestroyed",
            ])
        #expect(delivered.map(\.sequence) == (1...12).map { Int64($0) }, "numbered from 1 in the session, in the order they happened")
        #expect(delivered.allSatisfy { $0.sessionId == "hooks" })
        #expect(Set(delivered.map(\.id)).count == delivered.count)
        #expect(try decode(SessionCreation.self, from: delivered[0]) == SessionCreation(origin: .connect))
        #expect(try decode(ConnectionEvent.self, from: delivered[1]) == ConnectionEvent(connection: aliceConnect.connection))
        #expect(try decode(StreamEvent.self, from: delivered[2]) == StreamEvent(stream: published.stream))
        #expect(try decode(ConnectionEvent.self, from: delivered[3]) == bobSeenByAlice, "the same data alice's client was sent")
        let disabled = try decode(SubscriberVideoChange.self, from: delivered[4])
        #expect(disabled == SubscriberVideoChange(subscriberId: subscribed.subscriberId, streamId: published.stream.streamId, reason: .subscriberPropertyChanged))
        #expect(delivered[4].json["connectionId"] as? String == bobConnect.connection.connectionId, "addressed to the subscriber's connection")
        #expect(try decode(ConnectionEvent.self, from: delivered[6]).connection.status == .reconnecting)
        #expect(try decode(ConnectionEvent.self, from: delivered[7]).connection.status == .connected)
        #expect(try decode(StreamEvent.self, from: delivered[8]).reason == .clientDisconnected)
        #expect(try decode(ConnectionEvent.self, from: delivered[10]).reason == .clientDisconnected)
        #expect(try decode(SessionDestruction.self, from: delivered[11]) == SessionDestruction(reason: .lastConnectionLeft))
        let time = try #require(delivered[0].json["time"] as? NSNumber).int64Value
        #expect(abs(time - Int64(Date().timeIntervalSince1970 * 1000)) < 60_000, "the time the event happened, in epoch milliseconds")
    }

    /// The audio-fallback policy's moves reach the directory as media events; this hands it the ones
    /// the policy sends for a publisher's uplink, for every transport id the plane can have made so far
    /// (the directory ignores those it does not know), as `MediaEventRelay` would.
    @Test func theAudioFallbackPolicysMovesArriveForThePublisherAndEachSubscriber() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        let harness = try await start([(receiver, [.publisherVideoDisabled, .publisherVideoEnabled, .videoDisabled, .videoEnabled])])
        let (alice, aliceConnect) = try await harness.connect(session: "uplink", role: .publisher)
        let peer = try TestPeer()
        guard case .publish(let published) = try await alice.call(.publish(peer.publishParameters())) else { return }
        let (bob, bobConnect) = try await harness.connect(session: "uplink", role: .subscriber)
        guard case .subscribe(let subscribed) = try await bob.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: try TestPeer().transportOffer)))
        else { return }
        let directory = harness.daemon.signaling.directory
        for transition in [AudioFallbackTransition.videoDisabled, .videoEnabled] {
            for raw in UInt64(1)...200 { await directory.handle(.audioFallback(TransportID(rawValue: raw), side: .publisher, transition)) }
        }
        try await receiver.wait { $0.count == 4 }
        let delivered = receiver.delivered
        #expect(delivered.map(\.event) == ["publisherVideoDisabled", "videoDisabled", "publisherVideoEnabled", "videoEnabled"])
        #expect(try decode(PublisherVideoChange.self, from: delivered[0]) == PublisherVideoChange(streamId: published.stream.streamId, reason: .quality))
        #expect(delivered[0].json["connectionId"] as? String == aliceConnect.connection.connectionId)
        #expect(
            try decode(SubscriberVideoChange.self, from: delivered[1])
                == SubscriberVideoChange(subscriberId: subscribed.subscriberId, streamId: published.stream.streamId, reason: .quality))
        #expect(delivered[1].json["connectionId"] as? String == bobConnect.connection.connectionId)
        #expect(delivered.map(\.sequence) == [1, 2, 3, 4], "numbered among the events some endpoint takes: here only these")
    }

    /// Overload shedding's moves reach the directory as media events, for every transport id the
    /// plane can have made so far: the subscriber alone hears, with reason `overload`.
    @Test func overloadSheddingTellsTheSubscriberWhyItsVideoWentOffAndCameBack() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        let harness = try await start([(receiver, [.publisherVideoDisabled, .videoDisabled, .videoEnabled])])
        let (alice, _) = try await harness.connect(session: "overload", role: .publisher)
        guard case .publish(let published) = try await alice.call(.publish(try TestPeer().publishParameters())) else { return }
        let (bob, bobConnect) = try await harness.connect(session: "overload", role: .subscriber)
        guard case .subscribe(let subscribed) = try await bob.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: try TestPeer().transportOffer)))
        else { return }
        let directory = harness.daemon.signaling.directory
        for videoOff in [true, false] {
            for raw in UInt64(1)...200 { await directory.handle(.overloadShedding(TransportID(rawValue: raw), videoOff: videoOff)) }
        }
        try await receiver.wait { $0.count == 2 }
        let delivered = receiver.delivered
        #expect(delivered.map(\.event) == ["videoDisabled", "videoEnabled"], "the subscriber's, and no publisher's")
        let change = SubscriberVideoChange(subscriberId: subscribed.subscriberId, streamId: published.stream.streamId, reason: .overload)
        #expect(try decode(SubscriberVideoChange.self, from: delivered[0]) == change)
        #expect(try decode(SubscriberVideoChange.self, from: delivered[1]) == change)
        #expect(delivered.allSatisfy { $0.json["connectionId"] as? String == bobConnect.connection.connectionId })
    }

    @Test func anEndpointGetsOnlyTheKindsItChoseAndASessionMadeThroughRESTStartsAtOne() async throws {
        let everything = WebhookTestReceiver()
        let joins = WebhookTestReceiver()
        try await everything.start()
        try await joins.start()
        defer { Task { await everything.stop(); await joins.stop() } }
        let harness = try await start([(everything, nil), (joins, [.connectionCreated])])
        let rest = try await harness.restToken()
        #expect(try await harness.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"made"}"#).status == 201)
        let (client, _) = try await harness.connect(session: "made", role: .publisher)
        _ = try await client.call(.disconnect)
        try await everything.wait { $0.filter { $0.event == "connectionDestroyed" }.count == 1 }
        try await joins.wait { $0.count == 1 }
        #expect(everything.delivered.map(\.event) == ["sessionCreated", "connectionCreated", "connectionDestroyed"])
        #expect(everything.delivered.map(\.sequence) == [1, 2, 3])
        #expect(try decode(SessionCreation.self, from: everything.delivered[0]) == SessionCreation(origin: .rest))
        #expect(joins.delivered.map(\.event) == ["connectionCreated"])
        #expect(joins.delivered[0].id == everything.delivered[1].id, "one event, one id, whichever endpoint receives it")
        try await Task.sleep(for: .milliseconds(300))
        #expect(joins.attempts.count == 1)
    }

    @Test func anArchivesStartAndEndReachTheBackendAndItsEndComesBeforeTheSessions() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        let harness = try await start([(receiver, [.archiveStarted, .archiveStopped, .sessionDestroyed])])
        let (client, _) = try await harness.connect(session: "recorded", role: .publisher)
        let rest = try await harness.restToken()
        let started = try JSONDecoder().decode(
            ArchiveInfo.self, from: try await harness.http("POST", "/v1/sessions/recorded/archives", token: rest, body: #"{"name": "minutes"}"#).body)
        _ = try await client.call(.disconnect)
        try await receiver.wait { $0.contains { $0.event == "sessionDestroyed" } }
        #expect(receiver.delivered.map(\.event) == ["archiveStarted", "archiveStopped", "sessionDestroyed"])
        let begun = try decode(ArchiveInfo.self, from: receiver.delivered[0])
        #expect(begun.id == started.id && begun.name == "minutes" && begun.status == .started)
        let ended = try decode(ArchiveInfo.self, from: receiver.delivered[1])
        #expect(ended.id == started.id && ended.status == .available, "the last connection left, so the archive ended: \(ended)")
    }

    @Test func theStatusAndTheMetricsShowEachEndpoint() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        let harness = try await start([(receiver, nil)])
        let (client, _) = try await harness.connect(session: "counted", role: .publisher)
        _ = try await client.call(.disconnect)
        try await receiver.wait { $0.count == 4 }
        _ = try await #require(harness.daemon.webhooks).status { $0.endpoints[0].delivered == 4 }
        #expect(try await harness.http("GET", "/v1/webhooks/status", token: nil).status == 401)
        let answer = try await harness.http("GET", "/v1/webhooks/status", token: try await harness.restToken())
        #expect(answer.status == 200)
        let status = try JSONDecoder().decode(WebhookStatus.self, from: answer.body)
        #expect(status.outbox == "memory")
        #expect(status.endpoints.map(\.name) == ["backend-0"])
        #expect(status.endpoints[0].delivered == 4 && status.endpoints[0].queued == 0)
        #expect(status.endpoints[0].latencyP99Seconds != nil)
        let metrics = String(decoding: try await harness.http("GET", "/metrics", token: nil).body, as: UTF8.self)
        #expect(metrics.contains(#"switchyard_webhook_deliveries_total{endpoint="backend-0"} 4"#), "\(metrics.split(separator: "\n").filter { $0.contains("webhook") })")
        #expect(metrics.contains(#"switchyard_webhook_queued_events{endpoint="backend-0"} 0"#))
    }

    @Test func aReceiverThatNeverAnswersCostsSignalingNothingAndHoldsAtMostItsBound() async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.start()
        defer { Task { await receiver.stop() } }
        receiver.script([], otherwise: .silence)
        let harness = try await start([(receiver, nil)]) { webhooks in
            webhooks.maximumQueuedEvents = 20
            webhooks.requestTimeout = .seconds(30)
        }
        for index in 0..<30 {
            let (client, connected) = try await harness.connect(session: "busy", role: .publisher, data: "\(index)")
            #expect(connected.session.connections.count == 1, "every join and leave went through while the receiver held its requests")
            _ = try await client.call(.disconnect)
        }
        let dispatcher = try #require(harness.daemon.webhooks)
        let status = try await dispatcher.status { ($0.endpoints[0].dropped["queueFull"] ?? 0) + $0.droppedAtIntake + UInt64($0.endpoints[0].queued) == 120 }
        #expect(status.endpoints[0].queued <= 20)
        #expect(status.endpoints[0].delivered == 0)
        #expect((status.endpoints[0].dropped["queueFull"] ?? 0) + status.droppedAtIntake == 30 * 4 - UInt64(status.endpoints[0].queued))
    }

    @Test func aServerWithoutWebhooksSaysSo() async throws {
        let harness = try await DaemonHarness.start()
        let answer = try await harness.http("GET", "/v1/webhooks/status", token: try await harness.restToken())
        #expect(answer.status == 404)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("no \\\"webhooks\\\""))
    }
}
