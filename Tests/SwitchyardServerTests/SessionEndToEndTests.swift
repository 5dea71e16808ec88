import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import MediaControl
import MediaTestSupport
import SRTP
import SignalingProtocol
import Testing

/// Whole sessions over real sockets: the daemon on an ephemeral port, WebSocket clients, and media
/// through plain SRTP transports.
@Suite(.serialized) struct SessionEndToEndTests {
    @Test func clientsSeeEachOtherSignalAndLeave() async throws {
        let harness = try await DaemonHarness.start()
        let (ann, annConnect) = try await harness.connect(session: "room", role: .publisher, data: "name=Ann")
        #expect(annConnect.session.connectionCount == 1)
        #expect(annConnect.capabilities == Capabilities(role: .publisher))
        let (bob, bobConnect) = try await harness.connect(session: "room", role: .subscriber, data: "name=Bob")
        #expect(bobConnect.session.connectionCount == 2)
        #expect(Set(bobConnect.session.connections.map(\.data)) == ["name=Ann", "name=Bob"])
        guard case .connectionCreated(let created) = try await ann.event(.connectionCreated) else { return }
        #expect(created.connection == bobConnect.connection)

        _ = try await bob.call(.signal(SignalParameters(type: "chat", data: "hello all")))
        for client in [ann, bob] {
            guard case .signal(let delivery) = try await client.event(.signal) else { continue }
            #expect(delivery == SignalDelivery(from: bobConnect.connection.connectionId, type: "chat", data: "hello all"))
        }
        _ = try await ann.call(.signal(SignalParameters(to: bobConnect.connection.connectionId, type: "dm", data: "just you")))
        guard case .signal(let direct) = try await bob.event(.signal) else { return }
        #expect(direct.from == annConnect.connection.connectionId)
        #expect(await ann.receives(.signal, within: .milliseconds(200)) == false)

        #expect(try await ann.refusal(.signal(SignalParameters(type: "no spaces", data: "")))?.code == .invalidParams)
        #expect(try await ann.refusal(.signal(SignalParameters(to: "c_nobody", type: "t", data: "")))?.code == .notFound)

        _ = try await bob.call(.disconnect)
        guard case .sessionDisconnected(let goodbye) = try await bob.event(.sessionDisconnected) else { return }
        #expect(goodbye.reason == .clientDisconnected)
        #expect(try await bob.closeFrame()?.closeCode == .normalClosure)
        guard case .connectionDestroyed(let destroyed) = try await ann.event(.connectionDestroyed) else { return }
        #expect(destroyed.reason == .clientDisconnected)
        #expect(destroyed.connection.connectionId == bobConnect.connection.connectionId)

        await ann.close()
        let (_, carolConnect) = try await harness.connect(session: "room", role: .subscriber)
        #expect(carolConnect.session.connectionCount == 1)
        try await harness.stop()
    }

    @Test func mediaFlowsAndVideoFollowsBothPeoplesChoices() async throws {
        let harness = try await DaemonHarness.start()
        let (publisher, _) = try await harness.connect(session: "media", role: .publisher)
        let (subscriber, _) = try await harness.connect(session: "media", role: .subscriber)
        let publisherPeer = try TestPeer()
        let subscriberPeer = try TestPeer(profile: .aesCM128HMACSHA1_80)

        guard case .publish(let published) = try await publisher.call(.publish(publisherPeer.publishParameters())) else { return }
        try publisherPeer.accept(try #require(published.transport))
        #expect(published.stream.hasAudio && published.stream.hasVideo)
        guard case .streamCreated(let created) = try await subscriber.event(.streamCreated) else { return }
        #expect(created.stream == published.stream)

        guard case .subscribe(let subscribed) = try await subscriber.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: subscriberPeer.transportOffer)))
        else { return }
        try subscriberPeer.accept(try #require(subscribed.transport))
        #expect(subscribed.videoEnabled)
        let audioSSRC = try #require(subscribed.audio?.ssrc)
        let videoSSRC = try #require(subscribed.video?.ssrc)

        try publisherPeer.sendMedia(startingAt: 0, count: 10, keyFrameFirst: true)
        let first = try await onOwnThread { subscriberPeer.receiveRTP(count: 20) }
        #expect(first.filter { $0.ssrc == videoSSRC }.count == 10)
        #expect(first.filter { $0.ssrc == audioSSRC }.count == 10)
        #expect(first.first { $0.ssrc == videoSSRC }?.payload == VP8TestPayload.make(index: 0, keyFrame: true, size: 400))

        _ = try await publisher.call(.updateStream(StreamUpdate(streamId: published.stream.streamId, publishVideo: false)))
        guard case .streamPropertyChanged(let change) = try await subscriber.event(.streamPropertyChanged) else { return }
        #expect(change.changedProperty == .hasVideo && change.newValue == .flag(false))
        guard case .videoDisabled(let disabled) = try await subscriber.event(.videoDisabled) else { return }
        #expect(disabled == SubscriberVideoChange(subscriberId: subscribed.subscriberId, streamId: published.stream.streamId, reason: .publisherPropertyChanged))
        try publisherPeer.sendMedia(startingAt: 10, count: 10, keyFrameFirst: false)
        let whileOff = try await onOwnThread { subscriberPeer.receiveRTP(count: 10) }
        #expect(whileOff.count == 10)
        #expect(whileOff.allSatisfy { $0.ssrc == audioSSRC })

        _ = try await publisher.call(.updateStream(StreamUpdate(streamId: published.stream.streamId, publishVideo: true)))
        guard case .videoEnabled(let enabled) = try await subscriber.event(.videoEnabled) else { return }
        #expect(enabled.reason == .publisherPropertyChanged)
        try publisherPeer.sendMedia(startingAt: 20, count: 5, keyFrameFirst: true)
        let resumed = try await onOwnThread { subscriberPeer.receiveRTP(count: 10) }
        let resumedVideo = resumed.filter { $0.ssrc == videoSSRC }
        #expect(resumedVideo.count == 5)
        let lastVideoBeforePause = try #require(first.last { $0.ssrc == videoSSRC })
        #expect(resumedVideo.first?.sequenceNumber == lastVideoBeforePause.sequenceNumber &+ 1)

        _ = try await subscriber.call(.updateSubscriber(SubscriberUpdate(subscriberId: subscribed.subscriberId, subscribeToVideo: false)))
        guard case .videoDisabled(let choice) = try await subscriber.event(.videoDisabled) else { return }
        #expect(choice.reason == .subscriberPropertyChanged)
        try publisherPeer.sendMedia(startingAt: 25, count: 5, keyFrameFirst: true)
        #expect(try await onOwnThread { subscriberPeer.receiveRTP(count: 5) }.allSatisfy { $0.ssrc == audioSSRC })

        guard case .getStats(let statistics) = try await subscriber.call(.getStats(SubscriberReference(subscriberId: subscribed.subscriberId))) else {
            return
        }
        #expect(statistics.video?.packetsSent == 15)
        #expect(statistics.audio?.packetsSent == 30)
        #expect(statistics.audio?.bytesReceived == statistics.audio?.bytesSent, "no loss reported, so everything sent counts as received")
        #expect(statistics.quality?.samples == 0, "this subscriber sends no receiver reports")
        #expect(statistics.quality?.audioFallbackState == "suspended", "camera video on by default, but the subscriber chose no video")
        let types = statistics.rtcStatsReport.map(\.type)
        #expect(types.filter { $0 == "outbound-rtp" }.count == 2 && types.filter { $0 == "remote-inbound-rtp" }.count == 2)
        #expect(types.filter { $0 == "codec" }.count == 2 && types.filter { $0 == "transport" }.count == 1)
        let outboundVideo = try #require(statistics.rtcStatsReport.first { $0.type == "outbound-rtp" && $0.kind == "video" })
        #expect(outboundVideo.ssrc == videoSSRC && outboundVideo.packetsSent == 15)
        #expect(statistics.rtcStatsReport.contains { $0.id == outboundVideo.codecId && $0.mimeType == "video/VP8" && $0.clockRate == 90_000 })

        guard case .getPublisherStats(let publisherStatistics) = try await publisher.call(
            .getPublisherStats(StreamReference(streamId: published.stream.streamId)))
        else { return }
        #expect(publisherStatistics.audio?.packetsReceived == 30 && publisherStatistics.video?.packetsReceived == 30)
        #expect(publisherStatistics.rtcStatsReport.filter { $0.type == "inbound-rtp" }.count == 2)
        #expect(publisherStatistics.quality?.audioFallbackState == nil, "publisher audio fallback is off by default")
        #expect(try await subscriber.refusal(.getPublisherStats(StreamReference(streamId: published.stream.streamId)))?.code == .notOwner)

        let rest = try await harness.restToken()
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(harness.port)/v1/sessions/media/subscribers/\(subscribed.subscriberId)/stats")!)
        request.setValue("Bearer \(rest)", forHTTPHeaderField: "Authorization")
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let overREST = try JSONDecoder().decode(SubscriberStatistics.self, from: body)
        #expect(overREST.video?.packetsSent == 15 && overREST.rtcStatsReport.count == statistics.rtcStatsReport.count)

        #expect(try await publisher.refusal(.getStats(SubscriberReference(subscriberId: subscribed.subscriberId)))?.code == .notOwner)
        _ = try await publisher.call(.unpublish(StreamReference(streamId: published.stream.streamId)))
        guard case .streamDestroyed(let destroyed) = try await subscriber.event(.streamDestroyed) else { return }
        #expect(destroyed.reason == .clientDisconnected)
        #expect(try await subscriber.refusal(.getStats(SubscriberReference(subscriberId: subscribed.subscriberId)))?.code == .notFound)
        try await harness.stop()
    }

    @Test func rolesAndOwnershipAreEnforced() async throws {
        let harness = try await DaemonHarness.start()
        let (owner, _) = try await harness.connect(session: "roles", role: .publisher)
        let (viewer, _) = try await harness.connect(session: "roles", role: .subscriber)
        let (broadcaster, _) = try await harness.connect(session: "roles", role: .publisheronly)
        let peer = try TestPeer()

        #expect(try await viewer.refusal(.publish(peer.publishParameters())) == SignalingError(.forbidden, "role subscriber cannot publish"))
        guard case .publish(let published) = try await owner.call(.publish(peer.publishParameters())) else { return }
        let streamId = published.stream.streamId
        #expect(try await broadcaster.refusal(.subscribe(SubscribeParameters(streamId: streamId, transport: peer.transportOffer)))?.code == .forbidden)
        #expect(try await broadcaster.refusal(.signal(SignalParameters(type: "t", data: "")))?.code == .forbidden)
        #expect(try await viewer.refusal(.unpublish(StreamReference(streamId: streamId)))?.code == .notOwner)
        #expect(try await viewer.refusal(.updateStream(StreamUpdate(streamId: streamId, publishVideo: false)))?.code == .notOwner)
        let badDimensions = StreamUpdate(streamId: streamId, videoDimensions: VideoDimensions(width: 0, height: -5))
        #expect(try await owner.refusal(.updateStream(badDimensions))?.code == .invalidParams)
        #expect(try await owner.refusal(.forceUnpublish(StreamReference(streamId: streamId)))?.code == .forbidden)
        #expect(try await viewer.refusal(.forceDisconnect(ConnectionReference(connectionId: "c_x")))?.code == .forbidden)
        #expect(try await viewer.refusal(.subscribe(SubscribeParameters(streamId: "st_missing", transport: peer.transportOffer)))?.code == .notFound)
        #expect(try await viewer.refusal(.unsubscribe(SubscriberReference(subscriberId: "sb_missing")))?.code == .notFound)
        try await harness.stop()
    }

    @Test func moderatorsForceUnpublishAndDisconnect() async throws {
        let harness = try await DaemonHarness.start()
        let (moderator, _) = try await harness.connect(session: "mod", role: .moderator)
        let (publisher, _) = try await harness.connect(session: "mod", role: .publisher)
        let (viewer, viewerConnect) = try await harness.connect(session: "mod", role: .subscriber)
        let peer = try TestPeer()
        guard case .publish(let published) = try await publisher.call(.publish(peer.publishParameters())) else { return }

        _ = try await moderator.call(.forceUnpublish(StreamReference(streamId: published.stream.streamId)))
        for client in [moderator, publisher, viewer] {
            guard case .streamDestroyed(let destroyed) = try await client.event(.streamDestroyed) else { continue }
            #expect(destroyed.reason == .forceUnpublished)
        }

        _ = try await moderator.call(.forceDisconnect(ConnectionReference(connectionId: viewerConnect.connection.connectionId)))
        guard case .sessionDisconnected(let disconnection) = try await viewer.event(.sessionDisconnected) else { return }
        #expect(disconnection.reason == .forceDisconnected)
        #expect(try await viewer.closeFrame() != nil)
        for client in [moderator, publisher] {
            guard case .connectionDestroyed(let destroyed) = try await client.event(.connectionDestroyed) else { continue }
            #expect(destroyed.reason == .forceDisconnected)
        }
        try await harness.stop()
    }

    @Test func aPublisherWhoseSocketDropsTakesItsStreamsWithIt() async throws {
        let harness = try await DaemonHarness.start()
        let (publisher, _) = try await harness.connect(session: "drop", role: .publisher)
        let (viewer, _) = try await harness.connect(session: "drop", role: .subscriber)
        let peer = try TestPeer()
        _ = try await publisher.call(.publish(peer.publishParameters()))
        _ = try await viewer.event(.streamCreated)
        await publisher.close()
        guard case .streamDestroyed(let stream) = try await viewer.event(.streamDestroyed) else { return }
        #expect(stream.reason == .networkDisconnected)
        guard case .connectionDestroyed(let connection) = try await viewer.event(.connectionDestroyed) else { return }
        #expect(connection.reason == .networkDisconnected)
        try await harness.stop()
    }

    @Test func gracefulShutdownTellsClientsWhy() async throws {
        let harness = try await DaemonHarness.start()
        let (client, _) = try await harness.connect(session: "bye", role: .publisher)
        let started = ContinuousClock.now
        try await harness.stop()
        #expect(ContinuousClock.now - started < .seconds(5))
        guard case .sessionDisconnected(let disconnection) = try await client.event(.sessionDisconnected) else { return }
        #expect(disconnection.reason == .serverShutdown)
        #expect(try await client.closeFrame()?.closeCode == .goingAway)
    }

    /// A draining node takes WebSockets while its clients leave. One that opened during the drain
    /// (taken, or refused if the drain already found no socket open) and one that opens after it
    /// (before the HTTP server stops) hear `nodeDraining` and are closed 1001, never with the bare
    /// 1000 of the HTTP server's stop.
    @Test func socketsOpenedDuringADrainHearNodeDrainingBeforeTheServerStops() async throws {
        let harness = try await DaemonHarness.start()
        let (member, _) = try await harness.connect(session: "drained", role: .publisher)
        let signaling = harness.daemon.signaling
        let draining = Task { await signaling.shutdown(drainTime: .seconds(3), reason: .nodeDraining) }
        guard case .sessionDisconnected(let told) = try await member.event(.sessionDisconnected) else { return }
        #expect(told.reason == .nodeDraining)
        let drainingWord = ServerMessage.event(.sessionDisconnected(told))
        // Sends nothing, so if taken it is still open at the end of the drain.
        let port = harness.port
        let during = Task { try await FirstWordsWebSocket.listen(port: port, timeout: .seconds(10)) }
        await draining.value
        // Heard before the daemon's own shutdown below, which would speak of a shutdown instead.
        let after = try await FirstWordsWebSocket.listen(port: harness.port)
        try await harness.stop()
        for (name, heard) in [("during", try await during.value), ("after", after)] {
            #expect(heard.messages == [drainingWord], "\(name)")
            #expect(heard.closeCode == 1001 && heard.closeReason == "node draining", "\(name): \(heard.closeCode) \(heard.closeReason)")
        }
        let close = try await member.closeFrame()
        #expect(close?.closeCode == .goingAway && close?.reason == "node draining", "member: \(String(describing: close))")
    }
}
