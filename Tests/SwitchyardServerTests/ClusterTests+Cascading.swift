import Cluster
import Foundation
import MediaControl
import MediaTestSupport
import RTPWire
import SignalingProtocol
import SwitchyardClient
import Testing

/// A session past its node's share of subscribers: the next subscriber's media comes from another
/// node, fed over one relay leg.
extension ClusterTests {
    /// The router port a subscriber's media comes from, which names the node serving it.
    func mediaPort(_ subscriber: Subscriber) -> UInt16? {
        subscriber.mediaServer.split(separator: ":").last.flatMap { UInt16($0) }
    }

    /// `count` subscribers of `publisher`, each in a session of its own from `join`, each receiving
    /// video before the next arrives, so placement sees them in turn.
    func receivingSubscribers(of publisher: Publisher, count: Int, joining join: () async throws -> Session) async throws -> [Subscriber] {
        var subscribers: [Subscriber] = []
        for _ in 0..<count {
            let session = try await join()
            #expect(await eventually(.seconds(5)) { session.streams.contains { $0.streamId == publisher.streamId } })
            let subscriber = try await session.subscribe(to: publisher.streamId)
            #expect(await eventually(.seconds(5)) { await subscriber.statistics().video.packetsReceived > 10 })
            subscribers.append(subscriber)
        }
        return subscribers
    }

    @Test func aSubscriberPastItsNodesShareGetsByteIdenticalMediaFromAnotherNodeWithNACKAndPLIUpstream() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { configuration in
            configuration.cluster?.subscribersBeforeCascading = 1
            configuration.media.faultInjection = true
        }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let (publisher, _) = try await origin.connect(session: "webinar", role: .publisher)
        let (near, _) = try await origin.connect(session: "webinar", role: .subscriber)
        let (far, _) = try await origin.connect(session: "webinar", role: .subscriber)
        #expect(try cluster.holder(of: "webinar") == "node-a")
        let publisherPeer = try TestPeer()
        let nearPeer = try TestPeer()
        let farPeer = try TestPeer(profile: .aesCM128HMACSHA1_80)

        guard case .publish(let published) = try await publisher.call(.publish(publisherPeer.publishParameters())) else { return }
        try publisherPeer.accept(try #require(published.transport))
        let streamId = published.stream.streamId
        guard case .subscribe(let nearSubscribed) = try await near.call(.subscribe(SubscribeParameters(streamId: streamId, transport: nearPeer.transportOffer)))
        else { return }
        try nearPeer.accept(try #require(nearSubscribed.transport))
        guard case .subscribe(let farSubscribed) = try await far.call(.subscribe(SubscribeParameters(streamId: streamId, transport: farPeer.transportOffer)))
        else { return }
        let farAnswer = try #require(farSubscribed.transport)
        try farPeer.accept(farAnswer)
        #expect(origin.configuration.media.portRange.contains(try #require(nearSubscribed.transport).local.port))
        #expect(edge.configuration.media.portRange.contains(farAnswer.local.port), "the second subscriber's media comes from the other node")

        // Byte-identical media at both subscribers, the far one's through the relay leg.
        try publisherPeer.sendMedia(startingAt: 0, count: 10, keyFrameFirst: true)
        let nearMedia = try await onOwnThread { nearPeer.receiveRTP(count: 20) }
        let farMedia = try await onOwnThread { farPeer.receiveRTP(count: 20) }
        let farVideoSSRC = try #require(farSubscribed.video?.ssrc)
        let farAudioSSRC = try #require(farSubscribed.audio?.ssrc)
        let nearVideo = nearMedia.filter { $0.ssrc == nearSubscribed.video?.ssrc }.map(\.payload)
        #expect(nearVideo.count == 10)
        #expect(farMedia.filter { $0.ssrc == farVideoSSRC }.map(\.payload) == nearVideo)
        #expect(farMedia.filter { $0.ssrc == farAudioSSRC }.map(\.payload) == nearMedia.filter { $0.ssrc == nearSubscribed.audio?.ssrc }.map(\.payload))
        #expect(nearVideo.first == VP8TestPayload.make(index: 0, keyFrame: true, size: 400))
        // The edge holds the leg's ingress with a copy of each track, and the far subscriber's transport.
        let edgePlane = await edge.daemon.mediaStatistics()
        #expect(edgePlane.transports == 2 && edgePlane.producers == 2 && edgePlane.consumers == 2)
        #expect(await origin.daemon.mediaStatistics().transports == 3, "publisher, near subscriber, relay leg")
        #expect(try await metric("switchyard_cluster_relay_legs", at: origin) == 1)
        #expect(try await metric("switchyard_cluster_subscribers_served_elsewhere", at: origin) == 1)
        #expect(try await metric("switchyard_cluster_cascaded_subscribers", at: edge) == 1)

        // The far subscriber's statistics come from the edge, under the origin's names.
        guard case .getStats(let statistics) = try await far.call(.getStats(SubscriberReference(subscriberId: farSubscribed.subscriberId))) else {
            return
        }
        #expect(statistics.video?.packetsSent == 10 && statistics.audio?.packetsSent == 10)

        // A key-frame request from the far subscriber reaches the publisher through both routers.
        _ = try await onOwnThread { publisherPeer.receiveRTCP(for: 1200) }
        #expect(pictureLossIndications(in: try await onOwnThread { publisherPeer.receiveRTCP(for: 300) }) == 0)
        try farPeer.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x7777, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: 0x7777, mediaSSRC: farVideoSSRC, into: &writer)
        }
        #expect(pictureLossIndications(in: try await onOwnThread { publisherPeer.receiveRTCP(for: 1500) }) >= 1)

        // A fifth of what the leg carries is lost: the edge NACKs the origin, and the far subscriber
        // still gets every video packet.
        let rest = try await edge.restToken()
        let fault = String(decoding: try JSONEncoder().encode(CascadeRequest.relayFault(dropShare: 0.2)), as: UTF8.self)
        let (faultStatus, faultReply) = try await edge.http("POST", CascadingMediaControl.path, token: rest, body: fault)
        #expect(faultStatus == 200, "\(String(decoding: faultReply, as: UTF8.self))")
        try publisherPeer.sendMedia(startingAt: 10, count: 40, keyFrameFirst: false)
        let repaired = try await onOwnThread { farPeer.receivePackets(for: 2000) }.compactMap { received -> [UInt8]? in
            guard case .rtp(_, _, let ssrc, _, let payload) = received, ssrc == farVideoSSRC else { return nil }
            return payload
        }
        // The third payload byte is the packet's index (VP8TestPayload).
        let indices = Set(repaired.map { Int($0[2]) })
        #expect(indices == Set(10..<50), "missing \(Set(10..<50).subtracting(indices).sorted()): the lost ones are resent from the origin")
        #expect(repaired.allSatisfy { $0 == VP8TestPayload.make(index: Int($0[2]), keyFrame: false, size: 400) })
        #expect(await edge.daemon.mediaStatistics().drops["faultInjected", default: 0] >= 8)

        // The far subscriber leaves: the edge's route and the origin's leg go with it.
        _ = try await far.call(.unsubscribe(SubscriberReference(subscriberId: farSubscribed.subscriberId)))
        #expect(await eventually { await edge.daemon.mediaStatistics().transports == 0 })
        #expect(await eventually { await origin.daemon.mediaStatistics().transports == 2 })
        await cluster.stop()
    }

    @Test func aCascadedSubscribersDownlinkIsJudgedWhereItIsServedAndItComesBackWhenThatNodeGoes() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { configuration in
            configuration.cluster?.subscribersBeforeCascading = 1
            configuration.media.faultInjection = true
        }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let loop = try MediaLoop()
        func join(_ role: Role) async throws -> Session { try await self.join(origin.webSocketURL, "lecture", role, token: origin, loop: loop) }
        let alice = try await join(.publisher)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media, subscriberAudioFallbackEnabled: true))
        let subscribers = try await receivingSubscribers(of: publisher, count: 2) { try await join(.subscriber) }
        let (near, far) = (subscribers[0], subscribers[1])
        #expect(await edge.daemon.mediaStatistics().consumers == 2, "the second subscriber is served by the other node")

        // Half of the far subscriber's downlink is lost on the edge: its own policy there turns its
        // video off, and the event reaches its client through the session's node.
        let rest = try await origin.restToken()
        let (status, _) = try await origin.http(
            "PUT", "/v1/sessions/lecture/subscribers/\(far.subscriberId)/fault", token: rest, body: #"{"dropShare":0.5}"#)
        #expect(status == 204)
        let disabled = await next(far.events, timeout: .seconds(10)) {
            if case .subscriberVideoDisabled(.quality) = $0 { true } else { false }
        }
        #expect(disabled != nil, "the edge's audio fallback turned the far subscriber's video off")
        let quality = try await far.serverStatistics().quality
        #expect(quality?.audioFallbackState == "videoOff" && (quality?.lossFraction ?? 0) > 0.2, "\(String(describing: quality))")
        #expect(near.isVideoExpected, "the near subscriber's downlink is clean")

        // The edge goes away: the far subscription's media connection goes with it, and the client
        // subscribes again by itself, served by the session's node now (no other is left); the near
        // one goes on.
        let (farId, farServer) = (far.subscriberId, far.mediaServer)
        try await edge.stop()
        #expect(await next(far.events, timeout: .seconds(10)) { $0 == .subscriberDidDisconnectFromStream } != nil)
        #expect(await next(far.events, timeout: .seconds(10)) { $0 == .subscriberDidReconnectToStream } != nil)
        #expect(far.subscriberId != farId && far.mediaServer != farServer, "\(far.mediaServer)")
        #expect(far.isVideoExpected, "the new subscription starts with video on")
        let farReceived = await far.statistics().video.packetsReceived
        #expect(await eventually(.seconds(5)) { await far.statistics().video.packetsReceived > farReceived + 10 })
        #expect(await eventually { await origin.daemon.mediaStatistics().transports == 3 }, "publisher, near and far subscriber; the leg is closed")
        let received = await near.statistics().video.packetsReceived
        #expect(await eventually(.seconds(5)) { await near.statistics().video.packetsReceived > received + 10 })
        await alice.disconnect()
        await cluster.stop()
    }

    /// An edge killed outright (no drain, no goodbye): the session's node finds it dead within the
    /// node timeout, fails its cascaded subscriber and closes the leg; the client subscribes again by
    /// itself and gets its media from the session's node.
    @Test func aKilledEdgesSubscriberComesBackThroughTheSessionsNode() async throws {
        let cascade = try await KillableCascade.start(
            self, session: "outlived", killable: .edge, nodeId: "node-e", host: "127.0.0.10", mediaPorts: 47740...47779)
        defer { cascade.killable.stop() }
        let (origin, edge, far) = (cascade.node, cascade.killable, cascade.subscribers[1])

        let killedAt = ContinuousClock.now
        edge.kill()
        #expect(await next(far.events, timeout: .seconds(15)) { $0 == .subscriberDidReconnectToStream } != nil)
        let back = ContinuousClock.now - killedAt
        #expect(mediaPort(far).map { !edge.mediaPorts.contains($0) } == true, "\(far.mediaServer)")
        let received = await far.statistics().video.packetsReceived
        #expect(await eventually(.seconds(5)) { await far.statistics().video.packetsReceived > received + 10 })
        #expect(await eventually { await origin.daemon.mediaStatistics().transports == 3 }, "publisher and two subscribers; the leg is closed")
        print("cascade failover: kill -9 of the edge to its subscriber's media from the session's node \(back) (node timeout 3 s)")
        await cascade.stop()
    }

    /// The session's node killed outright: the edge, finding it dead within the node timeout, drops
    /// the leg's ingress and the subscriber transports it served for it.
    @Test func anEdgeDropsWhatItServedForAKilledSessionsNode() async throws {
        let cascade = try await KillableCascade.start(
            self, session: "orphaned", killable: .sessionNode, nodeId: "node-o", host: "127.0.0.11", mediaPorts: 47780...47819)
        defer { cascade.killable.stop() }
        let edge = cascade.node
        #expect(await edge.daemon.mediaStatistics().transports == 2, "the leg's ingress and the far subscriber's transport")

        let killedAt = ContinuousClock.now
        cascade.killable.kill()
        #expect(await eventually(.seconds(10)) { await edge.daemon.mediaStatistics().transports == 0 })
        let dropped = ContinuousClock.now - killedAt
        #expect(try await metric("switchyard_cluster_cascaded_subscribers", at: edge) == 0)
        print("cascade: kill -9 of the session's node to its edge holding nothing for it \(dropped) (node timeout 3 s)")
        await cascade.stop()
    }

    /// A simulcast stream crosses the leg layer by layer, so subscribers on the edge each decode the
    /// layer their preference allows and move between layers there, as on the session's node.
    @Test func cascadedSubscribersChooseAmongEverySimulcastLayer() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { $0.cluster?.subscribersBeforeCascading = 2 }
        let origin = cluster.nodes[0]
        let loop = try MediaLoop()
        func join(_ role: Role) async throws -> Session { try await self.join(origin.webSocketURL, "layered", role, token: origin, loop: loop) }
        func decoded(_ subscriber: Subscriber, width: Int, timeout: Duration = .seconds(8)) async -> SubscriberMediaStatistics {
            _ = await eventually(timeout) { await subscriber.statistics().decodedWidth == width }
            return await subscriber.statistics()
        }
        let alice = try await join(.publisher)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: SimulcastEndToEndTests.media))
        let viewers = try await join(.subscriber)
        #expect(await eventually(.seconds(5)) { viewers.streams.contains { $0.streamId == publisher.streamId } })
        // The session's node serves two; the edge the next two.
        let near = try await viewers.subscribe(to: publisher.streamId)
        _ = try await viewers.subscribe(to: publisher.streamId)
        let best = try await viewers.subscribe(to: publisher.streamId, settings: SubscriberSettings(decodes: true))
        let small = try await viewers.subscribe(
            to: publisher.streamId, settings: SubscriberSettings(decodes: true, preferredResolution: VideoDimensions(width: 320, height: 240)))
        let edgePorts = cluster.nodes[1].configuration.media.portRange
        #expect(mediaPort(near).map { !edgePorts.contains($0) } == true)
        #expect([best, small].allSatisfy { mediaPort($0).map(edgePorts.contains) == true }, "both served by the other node")

        #expect(await decoded(best, width: 768, timeout: .seconds(15)).decodedWidth == 768)
        #expect(await decoded(small, width: 256).decodedWidth == 256)
        // One copy of the video on the edge, with every layer: its two subscribers take different ones.
        #expect(await cluster.nodes[1].daemon.mediaStatistics().producers == 2, "audio and one layered video copy")
        #expect(try await small.serverStatistics().video?.layer == VideoLayerInfo(width: 256, height: 144, frameRate: 30))

        try await small.setPreferredResolution(VideoDimensions(width: 640, height: 360))
        #expect(await decoded(small, width: 512, timeout: .seconds(15)).decodedWidth == 512)
        try await Task.sleep(for: .seconds(1))
        for (subscriber, label) in [(best, "best"), (small, "small")] {
            let statistics = await subscriber.statistics()
            #expect(statistics.decodeErrors == 0 && statistics.pictureIDGaps == 0 && statistics.freezeCount == 0, "\(label): \(statistics)")
        }
        await viewers.disconnect()
        await alice.disconnect()
        await loop.stop()
        await cluster.stop()
    }

    @Test func subscribersArrivingAtOnceSpreadAsIfTheyCameInTurn() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { $0.cluster?.subscribersBeforeCascading = 4 }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let (publisher, _) = try await origin.connect(session: "crowd", role: .publisher)
        let publisherPeer = try TestPeer()
        guard case .publish(let published) = try await publisher.call(.publish(publisherPeer.publishParameters())) else { return }
        let streamId = published.stream.streamId
        // Eight subscribe at once: four are served here, four by the other node, as if they came in turn.
        let ports = try await withThrowingTaskGroup(of: UInt16.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let (viewer, _) = try await origin.connect(session: "crowd", role: .subscriber)
                    let peer = try TestPeer()
                    guard case .subscribe(let subscribed) = try await viewer.call(.subscribe(SubscribeParameters(streamId: streamId, transport: peer.transportOffer)))
                    else { throw WebSocketTestClient.Failure.timedOut("subscribe reply") }
                    return try #require(subscribed.transport).local.port
                }
            }
            return try await group.reduce(into: [UInt16]()) { $0.append($1) }
        }
        #expect(ports.filter { origin.configuration.media.portRange.contains($0) }.count == 4, "\(ports)")
        #expect(ports.filter { edge.configuration.media.portRange.contains($0) }.count == 4, "\(ports)")
        await cluster.stop()
    }

    /// Cascading by capacity, not only by count: far below its share of subscribers, a node whose
    /// media worker forwards most of its budget sends the next subscriber to another node, where a
    /// node alone would refuse it with `limitReached`.
    @Test func aNodeAtItsForwardingBudgetSendsTheNextSubscriberToAnotherNodeInsteadOfRefusingIt() async throws {
        let cluster = try await ClusterFixture.start(nodes: 2) { configuration in
            configuration.cluster?.subscribersBeforeCascading = 100
            // One subscriber of the test's stream (about 68 packets/s: 50 of audio, 15-20 of video)
            // fits; two do not.
            configuration.media.overloadShedding.enabled = true
            configuration.media.overloadShedding.forwardingBudget = 70
        }
        let (origin, edge) = (cluster.nodes[0], cluster.nodes[1])
        let loop = try MediaLoop()
        let host = try await join(origin.webSocketURL, "budget", .publisher, token: origin, loop: loop)
        let publisher = try await host.publish(PublisherSettings(name: "camera", media: Self.media))
        let joinAtOrigin = { try await self.join(origin.webSocketURL, "budget", .subscriber, token: origin, loop: loop) }
        let first = try await receivingSubscribers(of: publisher, count: 1, joining: joinAtOrigin)
        #expect(origin.configuration.media.portRange.contains(mediaPort(first[0]) ?? 0), "the first subscriber fits the origin's budget")
        #expect(try await eventually(.seconds(10)) {
            (try await metric("switchyard_media_worker_forwarded_packets_per_second", at: origin) ?? 0) >= 60
        }, "the origin's worker never forwarded most of its budget")
        let next = try await receivingSubscribers(of: publisher, count: 1, joining: joinAtOrigin)
        #expect(edge.configuration.media.portRange.contains(mediaPort(next[0]) ?? 0), "served from \(next[0].mediaServer)")
        await cluster.stop()
    }

    /// The value of the gauge `name` on the node's `/metrics`: the largest, when it has labels
    /// (one per media worker).
    private func metric(_ name: String, at node: DaemonHarness) async throws -> Double? {
        let (_, body) = try await node.http("GET", "/metrics", token: nil)
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix(name + "{") }
        return lines.compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.max()
    }

    @Test func aCascadingRequestWithoutTokenOrSenseIsRefusedAndNamesWhy() async throws {
        let cluster = try await ClusterFixture.start(nodes: 1)
        let node = cluster.nodes[0]
        let rest = try await node.restToken()
        let (unauthorized, _) = try await node.http("POST", CascadingMediaControl.path, token: nil, body: "{}")
        #expect(unauthorized == 401)
        let (garbage, garbageBody) = try await node.http("POST", CascadingMediaControl.path, token: rest, body: #"{"openLeg":7}"#)
        #expect(garbage == 400 && String(decoding: garbageBody, as: UTF8.self).contains("not a cascading request"))
        let (tooLarge, tooLargeBody) = try await node.http("POST", CascadingMediaControl.path, token: rest, body: String(repeating: " ", count: 1 << 21))
        #expect(tooLarge == 413 && String(decoding: tooLargeBody, as: UTF8.self).contains("larger than 1048576 bytes"))
        let (forged, forgedBody) = try await node.http("POST", CascadingMediaControl.path, token: "not.a.token", body: "{}")
        #expect(forged == 401 && String(decoding: forgedBody, as: UTF8.self).contains("invalidToken"), "\(String(decoding: forgedBody, as: UTF8.self))")
        let unknown = String(decoding: try JSONEncoder().encode(CascadeRequest.closeConsumer(ConsumerID(rawValue: 99))), as: UTF8.self)
        let (status, body) = try await node.http("POST", CascadingMediaControl.path, token: rest, body: unknown)
        #expect(status == 200)
        let reply = try CascadingMediaControl.decoder.decode(CascadeReply.self, from: body)
        guard case .done = reply else {
            Issue.record("closing what this node does not serve is a no-op, not \(reply)")
            return
        }
        let pause = String(decoding: try JSONEncoder().encode(CascadeRequest.pauseConsumer(ConsumerID(rawValue: 99), .quality)), as: UTF8.self)
        let (_, refusedBody) = try await node.http("POST", CascadingMediaControl.path, token: rest, body: pause)
        guard case .refused(.unknownConsumer(let consumer)) = try CascadingMediaControl.decoder.decode(CascadeReply.self, from: refusedBody) else {
            Issue.record("a request about a consumer this node does not serve is refused")
            return
        }
        #expect(consumer.rawValue == 99)
        await cluster.stop()
    }
}
