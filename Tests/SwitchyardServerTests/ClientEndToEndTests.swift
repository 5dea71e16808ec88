import Foundation
import Glibc
import SignalingProtocol
import SwitchyardClient
import Testing

/// SwitchyardClient against a real daemon: real WebSockets, real UDP and SRTP, libopus and libvpx.
@Suite(.serialized) struct ClientEndToEndTests {
    static let media: EncodedMedia = try! EncodedMedia(
        settings: MediaSettings(videoBitrate: 300_000, audioBitrate: 24_000, width: 256, height: 144, frameRate: 30, loopSeconds: 2))

    @Test func publishesAndSubscribesDecodableOpusAndVP8() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("client-media", .publisher, loop: loop, data: "name=alice", reconnectTimeout: .seconds(5))
        let bob = try await harness.client("client-media", .subscriber, loop: loop, data: "name=bob", reconnectTimeout: .seconds(5))
        #expect(await next(alice.events) { $0 == .connectionCreated(bob.connection!) } != nil)

        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        guard case .streamCreated(let stream) = await next(bob.events, where: { if case .streamCreated = $0 { true } else { false } }) else {
            Issue.record("no streamCreated")
            return
        }
        #expect(stream.streamId == publisher.streamId)
        #expect(stream.videoDimensions == VideoDimensions(width: 256, height: 144))
        let subscriber = try await bob.subscribe(to: stream.streamId, settings: SubscriberSettings(decodes: true))
        try await Task.sleep(for: .seconds(2.5))

        let received = await subscriber.statistics()
        #expect(received.framesDecoded >= 45)
        #expect(received.decodeErrors == 0)
        #expect(received.counterMismatches == 0)
        #expect(received.audioFramesDecoded >= 80)
        #expect(received.audio.packetsLost == 0 && received.video.packetsLost == 0)
        #expect(received.receiverReportsSent >= 3)
        #expect(received.senderReportsReceived >= 1)
        #expect(received.estimatedBitrate ?? 0 > 100_000)
        let latency = await subscriber.takeLatency()
        #expect(latency.count >= received.audio.packetsReceived)
        #expect(try #require(latency.percentileMilliseconds(0.5)) < 50)

        let sent = await publisher.statistics()
        #expect(sent.framesSent >= 60)
        #expect(sent.receiverReports >= 1)
        let server = try await subscriber.serverStatistics()
        #expect(server.video?.packetsSent ?? 0 > 0)
        #expect(try await subscriber.rtcStatsReport().contains { $0.type == "outbound-rtp" })
        #expect(try await publisher.serverStatistics().video?.packetsReceived ?? 0 > 0)

        await bob.disconnect()
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aSubscriberThatSendsTransportWideFeedbackGetsTheRoutersSendSideEstimate() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let alice = try await harness.client("client-twcc", .publisher, loop: loop, reconnectTimeout: .seconds(5))
        let bob = try await harness.client("client-twcc", .subscriber, loop: loop, reconnectTimeout: .seconds(5))
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: Self.media))
        let withFeedback = try await bob.subscribe(to: publisher.streamId, settings: SubscriberSettings(feedback: .transportWide))
        let withREMB = try await bob.subscribe(to: publisher.streamId)
        try await Task.sleep(for: .seconds(2.5))

        let received = await withFeedback.statistics()
        #expect(received.transportFeedbackSent >= 10, "one every 50 ms while packets arrive")
        #expect(received.estimatedBitrate == nil, "no REMB beside transport-wide feedback")
        #expect(received.video.packetsLost == 0 && received.framesReceived >= 45)
        let quality = try #require(try await withFeedback.serverStatistics().quality)
        #expect(quality.availableBitrateSource == "transportFeedback")
        #expect(quality.availableBitrate ?? 0 >= 200_000, "a clean loopback carries the 300 kbps stream: \(quality)")
        let other = try #require(try await withREMB.serverStatistics().quality)
        #expect(other.availableBitrateSource == "receiverEstimate")
        #expect(await withREMB.statistics().transportFeedbackSent == 0)

        await bob.disconnect()
        await alice.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func everySessionSubscriberAndPublisherEventArrives() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let host = try await harness.client("client-events", .moderator, loop: loop, reconnectTimeout: .seconds(5))
        let guest = try await harness.client("client-events", .publisher, loop: loop, reconnectTimeout: .seconds(5))
        #expect(await next(host.events) { if case .connectionCreated = $0 { true } else { false } } != nil)
        #expect(guest.connectReplyTime.map { $0 > .zero } == true, "the connect's round trip is timed")

        try await guest.signal(type: "chat", data: "hello", to: host.connection!.connectionId)
        #expect(await next(host.events) { $0 == .signalReceived(type: "chat", data: "hello", from: guest.connection!.connectionId) } != nil)

        let publisher = try await guest.publish(PublisherSettings(media: Self.media))
        #expect(await next(host.events) { if case .streamCreated = $0 { true } else { false } } != nil)
        let subscriber = try await host.subscribe(to: publisher.streamId)
        try await publisher.setPublishVideo(false)
        #expect(await next(host.events) { if case .streamPropertyChanged(let change) = $0 { change.changedProperty == .hasVideo } else { false } } != nil)
        #expect(await next(subscriber.events) { $0 == .subscriberVideoDisabled(reason: .publisherPropertyChanged) } != nil)
        #expect(!subscriber.isVideoExpected)
        try await publisher.setPublishVideo(true)
        #expect(await next(subscriber.events) { $0 == .subscriberVideoEnabled(reason: .publisherPropertyChanged) } != nil)
        try await subscriber.setSubscribeToVideo(false)
        #expect(await next(subscriber.events) { $0 == .subscriberVideoDisabled(reason: .subscriberPropertyChanged) } != nil)
        try await subscriber.setSubscribeToVideo(true)
        #expect(await next(subscriber.events) { $0 == .subscriberVideoEnabled(reason: .subscriberPropertyChanged) } != nil)

        try await host.forceDisconnect(connectionId: guest.connection!.connectionId)
        #expect(await next(guest.events) { $0 == .sessionDidDisconnect(reason: .forceDisconnected) } != nil)
        #expect(await next(host.events) { if case .connectionDestroyed(_, .forceDisconnected) = $0 { true } else { false } } != nil)

        await host.disconnect()
        #expect(await next(host.events) { $0 == .sessionDidDisconnect(reason: .clientDisconnected) } != nil)
        await loop.stop()
        try await harness.stop()
    }

    /// Every event `events` delivers until none comes for `quiet`.
    private func drain(_ events: AsyncStream<SessionClientEvent>, quiet: Duration = .milliseconds(300)) async -> [SessionClientEvent] {
        var drained: [SessionClientEvent] = []
        while let event = await next(events, timeout: quiet, where: { _ in true }) { drained.append(event) }
        return drained
    }

    /// A session reaching the daemon through a relay the test can cut.
    private func session(
        through proxy: SwitchableTCPProxy, _ harness: DaemonHarness, _ id: String, loop: MediaLoop, reconnectTimeout: Duration,
        pingInterval: Duration = .seconds(10)
    ) async throws -> Session {
        try await Session.connect(
            url: "ws://127.0.0.1:\(proxy.port)/v1/ws", sessionId: id, token: try await harness.token(session: id, role: .publisher),
            options: SessionOptions(mediaLoop: loop, reconnectTimeout: reconnectTimeout, pingInterval: pingInterval))
    }

    @Test func aWebSocketThatDiesSilentlyIsNoticedByItsPingsAndTakenOver() async throws {
        let harness = try await DaemonHarness.start { $0.signaling.reconnection.grace = .seconds(10) }
        let proxy = try SwitchableTCPProxy(to: harness.port)
        defer { proxy.stop() }
        let loop = try MediaLoop()
        let host = try await harness.client("client-silent", .moderator, loop: loop, reconnectTimeout: .seconds(5))
        let guest = try await session(through: proxy, harness, "client-silent", loop: loop, reconnectTimeout: .seconds(10), pingInterval: .milliseconds(500))
        let guestId = try #require(guest.connection?.connectionId)
        #expect(await next(host.events) { if case .connectionCreated = $0 { true } else { false } } != nil)

        // The old path swallows everything and closes nothing: only the client's pings can tell.
        proxy.freeze()
        #expect(await next(guest.events, timeout: .seconds(5)) { $0 == .sessionDidBeginReconnecting } != nil)
        let back = await next(guest.events, timeout: .seconds(10)) { if case .sessionDidReconnect = $0 { true } else { false } }
        guard case .sessionDidReconnect(let connection) = back else {
            Issue.record("no sessionDidReconnect")
            return
        }
        #expect(connection.connectionId == guestId, "the new socket took the connection over from the half-open one")
        try await host.signal(type: "still", data: "here", to: guestId)
        #expect(await next(guest.events) { $0 == .signalReceived(type: "still", data: "here", from: host.connection?.connectionId) } != nil)
        #expect(!(await drain(host.events)).contains { if case .connectionDestroyed = $0 { true } else { false } })

        await guest.disconnect()
        await host.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aSessionWhoseNetworkDropsComesBackAsTheSameConnectionAndNobodyNotices() async throws {
        let harness = try await DaemonHarness.start { $0.signaling.reconnection.grace = .seconds(10) }
        let proxy = try SwitchableTCPProxy(to: harness.port)
        defer { proxy.stop() }
        let loop = try MediaLoop()
        let host = try await harness.client("client-blip", .moderator, loop: loop, reconnectTimeout: .seconds(5))
        let guest = try await session(through: proxy, harness, "client-blip", loop: loop, reconnectTimeout: .seconds(10))
        let guestId = try #require(guest.connection?.connectionId)
        let hostId = try #require(host.connection?.connectionId)
        let publisher = try await guest.publish(PublisherSettings(media: Self.media))
        #expect(await next(host.events) { if case .streamCreated = $0 { true } else { false } } != nil)
        let subscriber = try await host.subscribe(to: publisher.streamId)

        proxy.cut()
        #expect(await next(guest.events) { $0 == .sessionDidBeginReconnecting } != nil)
        #expect(guest.connectionStatus == .reconnecting)
        #expect(await sessionFailure { try await guest.signal(type: "now", data: "", to: hostId) } == .reconnecting)
        let queued = Task { try await guest.signal(type: "queued", data: "once", to: hostId, retryAfterReconnect: true) }
        try await host.signal(type: "missed", data: "while away", to: guestId)
        let receivedWhileAway = await subscriber.statistics().video.packetsReceived
        try await Task.sleep(for: .milliseconds(500))
        #expect(await subscriber.statistics().video.packetsReceived > receivedWhileAway, "media does not go through the WebSocket")

        proxy.restore()
        var returned: [SessionClientEvent] = []
        for _ in 0..<2 {
            let event = await next(guest.events, timeout: .seconds(10)) { event in
                if case .sessionDidReconnect = event { return true }
                return event == .signalReceived(type: "missed", data: "while away", from: hostId)
            }
            if let event { returned.append(event) }
        }
        #expect(returned.contains(.signalReceived(type: "missed", data: "while away", from: hostId)), "a signal sent while away arrives on return")
        #expect(returned.contains { if case .sessionDidReconnect(let connection) = $0 { connection.connectionId == guestId } else { false } })
        #expect(guest.connectionStatus == .connected)
        try await queued.value

        try await Task.sleep(for: .milliseconds(300))
        let hostSaw = await drain(host.events)
        #expect(hostSaw.filter { $0 == .signalReceived(type: "queued", data: "once", from: guestId) }.count == 1)
        #expect(!hostSaw.contains { if case .streamDestroyed = $0 { true } else if case .connectionDestroyed = $0 { true } else { false } }, "\(hostSaw)")
        let receivedAfter = await subscriber.statistics().video.packetsReceived
        try await Task.sleep(for: .milliseconds(300))
        #expect(await subscriber.statistics().video.packetsReceived > receivedAfter)

        await guest.disconnect()
        await host.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    @Test func aSessionThatCannotComeBackInTimeFailsAndTheOthersSeeItLeave() async throws {
        let harness = try await DaemonHarness.start { $0.signaling.reconnection.grace = .seconds(1) }
        let proxy = try SwitchableTCPProxy(to: harness.port)
        defer { proxy.stop() }
        let loop = try MediaLoop()
        let host = try await harness.client("client-gone", .moderator, loop: loop, reconnectTimeout: .seconds(5))
        let guest = try await session(through: proxy, harness, "client-gone", loop: loop, reconnectTimeout: .seconds(2))
        #expect(await next(host.events) { if case .connectionCreated = $0 { true } else { false } } != nil)
        proxy.cut()
        #expect(await next(host.events, timeout: .seconds(10)) { if case .connectionDestroyed(_, .networkDisconnected) = $0 { true } else { false } } != nil)
        #expect(await next(guest.events, timeout: .seconds(10)) { $0 == .sessionDidDisconnect(reason: nil) } != nil)
        #expect(guest.connectionStatus == .failed)
        await host.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    /// A black hole for `seconds` from now, then a clean path.
    private func outage(seconds: Double) throws -> ImpairmentSchedule {
        try ImpairmentSchedule(parsing: "0s:loss=1;\(seconds)s:clean")
    }

    @Test func aMediaPathThatBreaksAloneIsReportedAndMendsWhileTheSessionStays() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let host = try await harness.client("client-path", .moderator, loop: loop, reconnectTimeout: .seconds(5))
        let guest = try await harness.client("client-path", .publisher, loop: loop, reconnectTimeout: .seconds(5))
        let publisher = try await guest.publish(PublisherSettings(media: Self.media))
        let subscriber = try await host.subscribe(to: publisher.streamId)
        try await Task.sleep(for: .seconds(1))

        // The subscriber's downlink only.
        subscriber.impair(downlink: try outage(seconds: 5))
        #expect(await next(subscriber.events, timeout: .seconds(6)) { $0 == .subscriberDidDisconnectFromStream } != nil)
        #expect(await next(subscriber.events, timeout: .seconds(6)) { $0 == .subscriberDidReconnectToStream } != nil)

        // The publisher's uplink only: the router's reports show it receives nothing, and the
        // subscriber gets nothing either; both mend, and the stream never ends.
        publisher.impair(uplink: try outage(seconds: 8))
        #expect(await next(publisher.events, timeout: .seconds(8)) { $0 == .publisherDidDisconnect } != nil)
        #expect(await next(subscriber.events, timeout: .seconds(2)) { $0 == .subscriberDidDisconnectFromStream } != nil)
        #expect(await next(publisher.events, timeout: .seconds(10)) { $0 == .publisherDidReconnect } != nil)
        #expect(await next(subscriber.events, timeout: .seconds(4)) { $0 == .subscriberDidReconnectToStream } != nil)
        #expect(guest.connectionStatus == .connected && host.connectionStatus == .connected)
        #expect(host.streams.map(\.streamId) == [publisher.streamId])

        await guest.disconnect()
        await host.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    /// A Session that suppresses connection events follows the count instead; one that does not
    /// counts the events, and both agree.
    @Test func aSessionWithoutConnectionEventsFollowsTheCount() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let url = "ws://127.0.0.1:\(harness.port)/v1/ws"
        let options = SessionOptions(mediaLoop: loop)
        let host = try await harness.client("client-count", .publisher, loop: loop, reconnectTimeout: .seconds(5))
        let viewer = try await Session.connect(
            url: url, sessionId: "client-count", token: try await harness.token(session: "client-count", role: .subscriber),
            options: options, suppressConnectionEvents: true)
        #expect(viewer.suppressesConnectionEvents && viewer.connectionCount == 2)
        #expect(viewer.connections.map(\.connectionId) == [viewer.connection!.connectionId])
        let third = try await harness.client("client-count", .subscriber, loop: loop, reconnectTimeout: .seconds(5))
        #expect(await next(viewer.events) { $0 == .connectionCountChanged(3) } != nil)
        #expect(viewer.connectionCount == 3)
        #expect(await next(host.events) { $0 == .connectionCreated(third.connection!) } != nil)
        #expect(host.connectionCount == 3)
        await third.disconnect()
        #expect(await next(viewer.events) { $0 == .connectionCountChanged(2) } != nil)
        #expect(await next(host.events) { if case .connectionDestroyed = $0 { true } else { false } } != nil)
        #expect(host.connectionCount == 2)
        await viewer.disconnect()
        await host.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    /// A node that refuses sockets at the end of a drain says so as soon as the client asks: the word
    /// waits for the client's `connect`, so it never shares a read with the 101 response, which the
    /// client's WebSocket library would lose (and the client wait out its request timeout).
    @Test func aDrainedNodesRefusalReachesTheClientAtOnce() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        await harness.daemon.signaling.shutdown(drainTime: .milliseconds(200), reason: .nodeDraining)
        let token = try await harness.token(session: "client-drained", role: .publisher)
        // A lost refusal shows as a request timeout; the default 10 s leaves a loaded machine room.
        let options = SessionOptions(mediaLoop: loop, reconnects: false)
        var outcomes: [String: Int] = [:]
        for _ in 0..<40 {
            let refusal = await sessionFailure {
                try await Session.connect(url: "ws://127.0.0.1:\(harness.port)/v1/ws", sessionId: "client-drained", token: token, options: options)
            }
            outcomes[refusal.map(\.description) ?? "connected", default: 0] += 1
        }
        #expect(outcomes == [SessionError.connectionClosed.description: 40])
        await loop.stop()
        try await harness.stop()
    }

    @Test func refusalsAndGarbageAreNamedAndHarmless() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let url = "ws://127.0.0.1:\(harness.port)/v1/ws"
        let options = SessionOptions(mediaLoop: loop)
        let garbageToken = await sessionFailure { try await Session.connect(url: url, sessionId: "client-bad", token: "not-a-token", options: options) }
        #expect(garbageToken?.refusalCode == .invalidToken)
        let closedPort = await sessionFailure { try await Session.connect(url: "ws://127.0.0.1:1/v1/ws", sessionId: "x", token: "t", options: options) }
        #expect(closedPort?.description.hasPrefix("cannot open ws://127.0.0.1:1/v1/ws") == true)
        let viewer = try await harness.client("client-bad", .subscriber, loop: loop, reconnectTimeout: .seconds(5))
        #expect(await sessionFailure { try await viewer.subscribe(to: "s_missing") }?.refusalCode == .notFound)
        #expect(await sessionFailure { try await viewer.publish(PublisherSettings(media: Self.media)) }?.refusalCode == .forbidden)

        // Garbage sent to a subscriber's media port is refused and counted; media keeps flowing.
        let owner = try await harness.client("client-bad", .publisher, loop: loop, reconnectTimeout: .seconds(5))
        let publisher = try await owner.publish(PublisherSettings(media: Self.media))
        let subscriber = try await viewer.subscribe(to: publisher.streamId)
        let junk = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(junk) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = subscriber.mediaPort.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        for length in [1, 12, 200, 1400] {
            let bytes = [UInt8](repeating: 0x80, count: length)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(junk, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        try await Task.sleep(for: .seconds(1))
        #expect(await subscriber.endpointCounters().datagramsRefused == 4)
        let statistics = await subscriber.statistics()
        #expect(statistics.framesReceived >= 15)
        #expect(statistics.video.packetsLost == 0)
        await viewer.disconnect()
        await owner.disconnect()
        await loop.stop()
        try await harness.stop()
    }
}
