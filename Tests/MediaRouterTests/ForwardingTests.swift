import Dispatch
import Glibc
import MediaTestSupport
import MediaControl
import RTPWire
import SRTP
import Testing

@testable import MediaRouter

/// End to end over real UDP on 127.0.0.1 with real SRTP: a publisher, subscribers, the media plane.
@Suite(.serialized) struct ForwardingTests {
    static let videoSSRC = RoutedSession.videoSSRC

    /// With segmented sends (UDP GSO, the default) and without.
    @Test(arguments: [true, false])
    func oneToTwentyDeliversIdenticalPayloadsWithContinuousSequenceNumbers(udpSegmentation: Bool) async throws {
        let session = try await RoutedSession.make(subscriberCount: 20, portBase: 41_000, udpSegmentation: udpSegmentation)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 60, keyFrameAt: [0])
        for (subscriber, consumer) in zip(session.subscribers, session.consumers) {
            let packets = try await onOwnThread { subscriber.receiveRTP(count: 60) }
            #expect(packets.count == 60)
            for (index, packet) in packets.enumerated() {
                #expect(packet.ssrc == consumer.ssrc)
                #expect(packet.payload == VP8TestPayload.make(index: index, keyFrame: index == 0))
                if index > 0 {
                    #expect(packet.sequenceNumber == packets[index - 1].sequenceNumber &+ 1)
                    #expect(packet.timestamp &- packets[index - 1].timestamp == 3000)
                }
            }
        }
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.producers.first?.packetsReceived == 60)
        #expect(statistics.consumers.allSatisfy { $0.packetsSent == 60 })
    }

    /// A kernel that refuses segmented sends (here: subscriber sockets with UDP checksums off, which
    /// the kernel will not segment) costs nothing: the worker falls back to single datagrams for good,
    /// says so in its statistics, and every subscriber still gets every packet.
    @Test func aRefusedSegmentationFallsBackWithoutLoss() async throws {
        let session = try await RoutedSession.make(subscriberCount: 3, portBase: 43_100)
        defer { session.plane.shutdown() }
        #expect(await session.plane.planeStatistics().workersSegmentingSends == 1)
        let worker = session.plane.workers[0]
        let router = session.router
        let descriptors = session.subscriberTransports.map { id in
            worker.performAndWait { worker.routers[router]!.transports[id]!.socket!.descriptor }
        }
        for descriptor in descriptors {
            var noChecksum: Int32 = 1
            #expect(setsockopt(descriptor, SOL_SOCKET, 11 /* SO_NO_CHECK */, &noChecksum, socklen_t(MemoryLayout<Int32>.size)) == 0)
        }
        // The worker is held busy while the packets arrive, so it drains them in one batch and each
        // subscriber's copies form a run of equal sizes that it tries to send segmented.
        let holding = DispatchSemaphore(value: 0)
        worker.perform {
            holding.signal()
            usleep(100_000)
        }
        holding.wait()
        try session.publish(from: 0, count: 40, keyFrameAt: [0])
        for subscriber in session.subscribers {
            let packets = try await onOwnThread { subscriber.receiveRTP(count: 40) }
            #expect(packets.count == 40)
            #expect(packets.map(\.payload) == (0..<40).map { VP8TestPayload.make(index: $0, keyFrame: $0 == 0) })
        }
        let statistics = await session.plane.planeStatistics()
        #expect(statistics.workers == 1)
        #expect(statistics.workersSegmentingSends == 0)
        #expect(statistics.drops["sendFailed", default: 0] == 0)
    }

    @Test func videoWaitsForAKeyFrameAndPauseResumeLeavesNoSequenceGap() async throws {
        let session = try await RoutedSession.make(subscriberCount: 2, portBase: 41_100)
        defer { session.plane.shutdown() }
        let paused = session.subscribers[0]
        let clean = session.subscribers[1]
        // Delta frames before any key frame reach nobody.
        try session.publish(from: 0, count: 5)
        try session.publish(from: 5, count: 10, keyFrameAt: [5])
        let before = try await onOwnThread { paused.receiveRTP(count: 10) }
        #expect(before.count == 10)
        #expect(before.first?.payload == VP8TestPayload.make(index: 5, keyFrame: true))

        try await session.plane.pauseConsumer(session.consumers[0].consumerID, reason: .subscriberChoice)
        try session.publish(from: 15, count: 10)
        try await session.plane.resumeConsumer(session.consumers[0].consumerID, reason: .subscriberChoice)
        // Resuming asked the publisher for a key frame; delta frames before it are not forwarded.
        #expect(pictureLossIndications(in: try await onOwnThread { session.publisher.receiveRTCP(for: 300) }) >= 1)
        try session.publish(from: 25, count: 5)
        try session.publish(from: 30, count: 5, keyFrameAt: [30])
        let after = try await onOwnThread { paused.receiveRTP(count: 5) }
        #expect(after.count == 5)
        #expect(after.first?.payload == VP8TestPayload.make(index: 30, keyFrame: true))
        #expect(after.first?.sequenceNumber == before.last!.sequenceNumber &+ 1)
        #expect(after.map(\.sequenceNumber) == (0..<5).map { before.last!.sequenceNumber &+ 1 &+ UInt16($0) })
        // Time went on across the pause, so the timestamp advanced.
        #expect(after.first!.timestamp &- before.last!.timestamp > 0)
        // The subscriber that never paused received everything from the first key frame on.
        #expect(try await onOwnThread { clean.receiveRTP(count: 30) }.count == 30)
    }

    /// A plain subscriber that leaves out its address is sent nothing until its first packet gives
    /// the router its address. A key frame that passed in that moment was never sent, so it does not
    /// count as the start: the consumer waits for a key frame it really sends, and asks for one the
    /// moment it can send.
    @Test func aSubscriberWhoseAddressIsLearnedStartsOnAKeyFrameItReallyReceived() async throws {
        let session = try await RoutedSession.make(subscriberCount: 0, portBase: 43_200, keyFrameInterval: .seconds(2))
        defer { session.plane.shutdown() }
        let subscriber = try TestPeer()
        let parameters = try await session.plane.createPlainTransport(
            router: session.router, options: PlainTransportOptions(clientSRTP: subscriber.srtpParameters), toConsume: [session.producer])
        try subscriber.connect(to: parameters)
        let consumer = try await session.plane.consume(transport: parameters.transportID, producer: session.producer, pauseReasons: [])

        // A key frame and its deltas pass through the router before the subscriber's address is known.
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        try await waitUntil("the router received the key frame") {
            try await session.plane.statistics(router: session.router).producers.first?.packetsReceived == 5
        }
        _ = try await onOwnThread { session.publisher.receiveRTCP(for: 100) }
        // The subscriber's first RTCP right after it gives the router its address.
        try subscriber.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5151, reportBlocks: EmptyCollection(), into: &writer)
        }
        try await waitUntil("the router learned the subscriber's address") {
            try await session.plane.statistics(router: session.router).transports
                .first { $0.transportID == parameters.transportID }?.remoteAddress != nil
        }
        // It asked the publisher for a key frame at once, and forwards no delta frame before it.
        #expect(pictureLossIndications(in: try await onOwnThread { session.publisher.receiveRTCP(for: 300) }) == 1)
        try session.publish(from: 5, count: 10, keyFrameAt: [10])
        let received = try await onOwnThread { subscriber.receiveRTP(count: 5) }
        #expect(received.count == 5)
        #expect(received.first.map { Array($0.payload.prefix(3)) } == Array(VP8TestPayload.make(index: 10, keyFrame: true).prefix(3)))
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.consumers.first { $0.consumerID == consumer.consumerID }?.packetsSent == 5)
    }

    @Test func aLostPacketIsRecoveredThroughNack() async throws {
        // However slowly this runs beside other suites, the NACK finds the packet still kept.
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 41_200, retransmissionMaxAge: .seconds(60))
        defer { session.plane.shutdown() }
        let subscriber = session.subscribers[0]
        try session.publish(from: 0, count: 10, keyFrameAt: [0])
        // Packet 4 is lost on the way: the subscriber never unprotects it, and asks for it.
        var received = try await onOwnThread { subscriber.receiveRTP(count: 4) }
        #expect(try await onOwnThread { subscriber.discardNext() })
        received += try await onOwnThread { subscriber.receiveRTP(count: 5) }
        #expect(received.count == 9)
        let missing = received[3].sequenceNumber &+ 1
        #expect(received[4].sequenceNumber == missing &+ 1)
        let consumerSSRC = session.consumers[0].ssrc
        try subscriber.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPGenericNACK.write(
                senderSSRC: 0x5555, mediaSSRC: consumerSSRC, lostSequenceNumbers: [missing], into: &writer)
        }
        let retransmitted = try await onOwnThread { subscriber.receiveRTP(count: 1) }
        #expect(retransmitted.count == 1)
        #expect(retransmitted.first?.sequenceNumber == missing)
        #expect(retransmitted.first?.timestamp == received[3].timestamp &+ 3000)
        #expect(retransmitted.first?.payload == VP8TestPayload.make(index: 4, keyFrame: false))
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.consumers.first?.retransmittedPackets == 1)
    }

    @Test func resendsStopAtTheSubscribersEstimate() async throws {
        // Only the budget may hold resends back, not the packets' age on a loaded machine.
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 44_500, retransmissionMaxAge: .seconds(60))
        defer { session.plane.shutdown() }
        let subscriber = session.subscribers[0]
        let consumerSSRC = session.consumers[0].ssrc
        // 96 kbps from the subscriber's REMB: half a second of it is under the 12,000-byte floor.
        try subscriber.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPReceiverEstimatedMaximumBitrate.write(senderSSRC: 0x5555, bitrate: 96_000, ssrcs: [consumerSSRC], into: &writer)
        }
        // 30 packets of 1,012 bytes each (a 12-byte header and 1,000 of payload).
        try session.publish(from: 0, count: 30, keyFrameAt: [0])
        // The first five arrive; the other 25 are lost on the way (never unprotected, so a resend is no replay).
        let arrived = try await onOwnThread { subscriber.receiveRTP(count: 5) }
        #expect(arrived.count == 5)
        for _ in 0..<25 { #expect(try await onOwnThread { subscriber.discardNext() }) }
        let lost = (1...25).map { arrived[4].sequenceNumber &+ UInt16($0) }
        // Wait for the worker's tick to take the estimate into the budget, then NACK all 25 at once.
        try await Task.sleep(for: .milliseconds(200))
        try subscriber.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPGenericNACK.write(senderSSRC: 0x5555, mediaSSRC: consumerSSRC, lostSequenceNumbers: lost, into: &writer)
        }
        // On a busy machine the worker may read the NACK late: wait until it has answered all 25.
        var statistics = try await session.plane.statistics(router: session.router)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline,
            (statistics.consumers.first.map { $0.retransmittedPackets + $0.retransmissionsOverBudget } ?? 0) < 25
        {
            try await Task.sleep(for: .milliseconds(20))
            statistics = try await session.plane.statistics(router: session.router)
        }
        #expect(statistics.consumers.first?.retransmittedPackets == 11)
        #expect(statistics.consumers.first?.retransmissionsOverBudget == 14)
        let resent = try await onOwnThread { subscriber.receiveRTP(count: 25) }
        #expect(resent.map(\.sequenceNumber) == Array(lost.prefix(11)))
    }

    @Test func subscriberKeyFrameRequestsReachThePublisherOncePerThrottleWindow() async throws {
        let session = try await RoutedSession.make(subscriberCount: 20, portBase: 41_300, keyFrameInterval: .seconds(2))
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 3, keyFrameAt: [0])
        for subscriber in session.subscribers { _ = try await onOwnThread { subscriber.receiveRTP(count: 3) } }
        // The consumers' own start-up requests went out before the publisher's address was known.
        _ = try await onOwnThread { session.publisher.receiveRTCP(for: 100) }
        for (subscriber, consumer) in zip(session.subscribers, session.consumers) {
            try subscriber.sendRTCP { writer throws(RTCPError) in
                try RTCPReceiverReport.write(senderSSRC: 0x7777, reportBlocks: EmptyCollection(), into: &writer)
                try RTCPPictureLossIndication.write(senderSSRC: 0x7777, mediaSSRC: consumer.ssrc, into: &writer)
            }
        }
        #expect(pictureLossIndications(in: try await onOwnThread { session.publisher.receiveRTCP(for: 500) }) == 1)
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.consumers.reduce(0) { $0 + $1.keyFrameRequestsReceived } == 20)
    }

    @Test func spoofedSourcesAndBadTagsAreDroppedAndCounted() async throws {
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 41_400)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 5) }.count == 5)
        // A tampered tag from the real publisher.
        try session.publisher.sendRTP(
            payloadType: 96, sequenceNumber: 10, timestamp: 1, ssrc: Self.videoSSRC,
            payload: VP8TestPayload.make(index: 99, keyFrame: false), tamper: true)
        // A packet from another address to a transport that was given its client's address.
        let stranger = try TestPeer()
        stranger.sendRaw([0x80, 96, 0, 9] + [UInt8](repeating: 7, count: 40), toPort: session.subscribers[0].routerPort)
        // Garbage, and an oversize datagram.
        session.publisher.sendRaw([0x00, 0x01, 0x02])
        session.publisher.sendRaw([UInt8](repeating: 0x80, count: 1600))
        // Forwarding goes on for everyone.
        try session.publish(from: 5, count: 5)
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 5) }.count == 5)
        let drops = try await session.plane.statistics(router: session.router).drops
        #expect(drops["authentication"] == 1)
        #expect(drops["wrongSource"] == 1)
        #expect(drops["notRTP"] == 1)
        #expect(drops["oversize"] == 1)
    }

    @Test func closingARouterInTrafficReleasesItsPorts() async throws {
        let session = try await RoutedSession.make(subscriberCount: 5, portBase: 41_500)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 20, keyFrameAt: [0])
        try await session.plane.closeRouter(session.router)
        try session.publish(from: 20, count: 20)
        await #expect(throws: MediaControlError.unknownRouter(session.router)) {
            _ = try await session.plane.statistics(router: session.router)
        }
        // Every port of the range binds again: the transports' sockets are closed.
        let socket = try UDPSocket(address: "127.0.0.1", portRange: 41_500...41_505, startingAt: 41_500)
        #expect(socket.localPort == 41_500)
        let router = try await session.plane.createRouter()
        let reused = try await session.plane.createPlainTransport(
            router: router, options: PlainTransportOptions(clientSRTP: session.publisher.srtpParameters))
        #expect((41_500...41_599).contains(reused.localAddress.port))
    }

    /// A client that leaves out its address is followed when the address changes (a network handover):
    /// the first packet that authenticates from the new address moves the transport there; packets
    /// that do not authenticate move nothing. A transport given its client's address keeps it.
    @Test func aLearnedAddressFollowsTheClientToItsNewAddressOnceAPacketAuthenticates() async throws {
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 42_300, reportInterval: .milliseconds(100))
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 3, keyFrameAt: [0])
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 3) }.count == 3)

        // The same client, keys and all, now sends from another address.
        let moved = try TestPeer()
        moved.routerPort = session.publisher.routerPort
        try moved.useKeys(local: session.publisher.keys, remote: session.publisher.keys)
        try moved.sendRTP(
            payloadType: 96, sequenceNumber: 65_503, timestamp: 9000, ssrc: Self.videoSSRC, payload: VP8TestPayload.make(index: 3, keyFrame: false))
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 1) }.count == 1, "media from the new address is forwarded")
        // The router's receiver reports now go to the new address.
        #expect(try await onOwnThread { moved.receiveRaw() } != nil)
        // Someone without the keys, from a third address, moves nothing; nor does any packet to a
        // transport that was given its client's address.
        let stranger = try TestPeer()
        stranger.routerPort = session.publisher.routerPort
        stranger.sendRaw([0x80, 96, 0, 9] + [UInt8](repeating: 7, count: 40))
        stranger.sendRaw([0x80, 96, 0, 9] + [UInt8](repeating: 7, count: 40), toPort: session.subscribers[0].routerPort)
        try moved.sendRTP(
            payloadType: 96, sequenceNumber: 65_504, timestamp: 12000, ssrc: Self.videoSSRC, payload: VP8TestPayload.make(index: 4, keyFrame: false))
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 1) }.count == 1)
        let drops = try await session.plane.statistics(router: session.router).drops
        #expect(drops["wrongSource", default: 0] == 1)
        #expect(drops["authentication", default: 0] == 1)
    }

    @Test func controlErrorsNameWhatIsWrong() async throws {
        let plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 41_600...41_601))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let peer = try TestPeer()
        await #expect(throws: MediaControlError.invalidParameter(.srtpProfile, problem: "unknown SRTP profile \"ROT13\"; expected one of AEAD_AES_128_GCM, AEAD_AES_256_GCM, AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32")) {
            _ = try await plane.createPlainTransport(
                router: router, options: PlainTransportOptions(clientSRTP: SRTPParameters(profile: "ROT13", keyParameter: "inline:x")))
        }
        _ = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: peer.srtpParameters))
        _ = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: peer.srtpParameters))
        await #expect(throws: MediaControlError.noFreePort(lowest: 41_600, highest: 41_601)) {
            _ = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: peer.srtpParameters))
        }
        await #expect(throws: MediaControlError.unknownProducer(ProducerID(rawValue: 999))) {
            _ = try await plane.closeProducer(ProducerID(rawValue: 999))
        }
    }
}
