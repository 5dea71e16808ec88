import MediaControl
import MediaTestSupport
import RTPWire
import SRTP
import Testing

@testable import MediaRouter

/// The WebRTC transport over real UDP on 127.0.0.1: ICE-lite checks, DTLS-SRTP, media both ways,
/// the shared port, and every refusal the issue names.
@Suite struct WebRTCTransportTests {
    static let videoSSRC: UInt32 = 0x2222_0001

    struct Pair {
        let plane: MediaPlane
        let router: RouterID
        let publisher: WebRTCTestPeer
        let publisherTransport: WebRTCTransportParameters
        let subscriber: WebRTCTestPeer
        let subscriberTransport: WebRTCTransportParameters
        let consumer: ConsumerParameters
    }

    /// A WebRTC publisher with one VP8 producer and a WebRTC subscriber consuming it, both connected.
    static func connectedPair(configuration: MediaRouterConfiguration) async throws -> Pair {
        let (plane, router, publisher, publisherTransport, producer) = try await connectedPublisher(configuration: configuration)
        let subscriber = try WebRTCTestPeer()
        let subscriberTransport = try await plane.createWebRTCTransport(router: router)
        let consumer = try await plane.consume(transport: subscriberTransport.transportID, producer: producer, pauseReasons: [])
        try await connect(subscriber, to: subscriberTransport, on: plane)
        return Pair(
            plane: plane, router: router, publisher: publisher, publisherTransport: publisherTransport, subscriber: subscriber,
            subscriberTransport: subscriberTransport, consumer: consumer)
    }

    /// A plane whose router has a connected WebRTC publisher with one VP8 producer.
    static func connectedPublisher(configuration: MediaRouterConfiguration) async throws
        -> (MediaPlane, RouterID, WebRTCTestPeer, WebRTCTransportParameters, ProducerID)
    {
        let plane = try MediaPlane(configuration: configuration)
        let router = try await plane.createRouter()
        let publisher = try WebRTCTestPeer()
        let publisherTransport = try await plane.createWebRTCTransport(router: router)
        let producer = try await plane.produce(
            transport: publisherTransport.transportID, options: ProducerOptions(codec: CodecParameters(name: .vp8, payloadType: 96), ssrc: videoSSRC))
        try await connect(publisher, to: publisherTransport, on: plane)
        return (plane, router, publisher, publisherTransport, producer)
    }

    /// Gives `peer` and `transport` each other's parameters, then runs ICE and the DTLS handshake.
    static func connect(_ peer: WebRTCTestPeer, to transport: WebRTCTransportParameters, on plane: MediaPlane) async throws {
        try await plane.connectWebRTCTransport(transport.transportID, remote: peer.remoteParameters)
        peer.target(transport)
        #expect(try await onOwnThread { peer.check() } == .success(mappedPort: peer.peer.port))
        #expect(try await onOwnThread { try peer.handshake() } == .aeadAES128GCM)
    }

    static func publish(_ pair: Pair, from first: Int, count: Int) throws {
        for index in first..<(first + count) {
            try pair.publisher.peer.sendRTP(
                payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(3000 * index), ssrc: videoSSRC,
                payload: VP8TestPayload.make(index: index, keyFrame: index == first))
        }
    }

    @Test func mediaFlowsFromAWebRTCPublisherToAWebRTCSubscriberOverDTLSKeys() async throws {
        let pair = try await Self.connectedPair(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_200...46_219))
        defer { pair.plane.shutdown() }
        try Self.publish(pair, from: 0, count: 20)
        let received = try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 20).map(\.payload) }
        #expect(received.count == 20)
        #expect(received == (0..<20).map { VP8TestPayload.make(index: $0, keyFrame: $0 == 0) })
        let statistics = try await pair.plane.statistics(router: pair.router)
        let transport = statistics.transports.first { $0.transportID == pair.subscriberTransport.transportID }
        #expect(transport?.kind == "webrtc")
        #expect(transport?.srtpProfile == "AEAD_AES_128_GCM")
        #expect(transport?.remoteAddress?.port == pair.subscriber.peer.port)
    }

    /// A WebRTC subscriber joining a running stream asks for its key frame when its DTLS keys exist,
    /// and that first request is not held back by the interval a request just before it started:
    /// with a one-minute interval, the publisher still gets the joiner's PLI (after at most the short
    /// new-receiver wait), and only after the joiner's handshake.
    @Test func aSubscriberJoiningARunningStreamHasItsKeyFrameRequestedWhenItsKeysExist() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_340...46_349, keyFrameRequestInterval: .seconds(60)))
        defer { pair.plane.shutdown() }
        try Self.publish(pair, from: 0, count: 5)
        // The first subscriber's consumer asked once, when its keys existed, not before.
        #expect(try await Self.keyFrameRequestsSent(pair) == 1)
        #expect(try await onOwnThread { pictureLossIndications(in: pair.publisher.peer.receiveRTCP(for: 200)) } == 1)
        let joiner = try WebRTCTestPeer()
        let joinerTransport = try await pair.plane.createWebRTCTransport(router: pair.router)
        let producer = try #require(try await pair.plane.statistics(router: pair.router).producers.first?.producerID)
        _ = try await pair.plane.consume(transport: joinerTransport.transportID, producer: producer, pauseReasons: [])
        #expect(try await Self.keyFrameRequestsSent(pair) == 1, "no request before the joiner's keys exist")
        try await Self.connect(joiner, to: joinerTransport, on: pair.plane)
        let received = try await onOwnThread { Self.countPictureLossIndications(reaching: pair.publisher) }
        #expect(received == 1, "the joiner's first request waited for the one-minute interval")
        #expect(try await Self.keyFrameRequestsSent(pair) == 2)
    }

    /// A WebRTC consumer created paused and resumed before its keys exist asks for nothing then (the
    /// key frame would come before it could send it, and the request would hold back the one made
    /// when the keys appear); it asks when its keys exist, and that request goes out.
    @Test func aConsumerResumedBeforeItsKeysExistAsksForItsKeyFrameWhenTheyDo() async throws {
        let (plane, router, publisher, _, producer) = try await Self.connectedPublisher(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_350...46_359))
        defer { plane.shutdown() }
        func requestsSent() async throws -> UInt64 {
            try await plane.statistics(router: router).producers.first?.keyFrameRequestsSent ?? 0
        }
        let subscriber = try WebRTCTestPeer()
        let subscriberTransport = try await plane.createWebRTCTransport(router: router)
        let consumer = try await plane.consume(
            transport: subscriberTransport.transportID, producer: producer, pauseReasons: [.subscriberChoice])
        try await plane.resumeConsumer(consumer.consumerID, reason: .subscriberChoice)
        #expect(try await requestsSent() == 0, "a request before the subscriber's keys exist")
        try await Self.connect(subscriber, to: subscriberTransport, on: plane)
        #expect(try await onOwnThread { Self.countPictureLossIndications(reaching: publisher) } == 1)
        #expect(try await requestsSent() == 1)
    }

    static func keyFrameRequestsSent(_ pair: Pair) async throws -> UInt64 {
        try await pair.plane.statistics(router: pair.router).producers.first?.keyFrameRequestsSent ?? 0
    }

    /// The PLIs that reach a publisher, read until the first arrives (or five seconds pass) and for
    /// 200 ms after, so a second one would be counted too.
    static func countPictureLossIndications(reaching publisher: WebRTCTestPeer) -> Int {
        var count = 0
        for _ in 0..<50 where count == 0 {
            count += pictureLossIndications(in: publisher.peer.receiveRTCP(for: 100))
        }
        return count + pictureLossIndications(in: publisher.peer.receiveRTCP(for: 200))
    }

    @Test func transportsShareOneWorkerPortAndEachGetsOnlyItsOwnMedia() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_220...46_229, webRTCSharedPort: 46_230))
        defer { pair.plane.shutdown() }
        #expect(pair.publisherTransport.candidates[0].port == 46_230)
        #expect(pair.subscriberTransport.candidates[0].port == 46_230)
        try Self.publish(pair, from: 0, count: 10)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 10).count } == 10)
        #expect(try await onOwnThread { pair.publisher.peer.receiveRTP(count: 1).count } == 0)
    }

    @Test func aClientVerifyingAddressAfterAddressHoldsABoundedShareOfTheSharedPortsRoutes() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_380...46_389, webRTCSharedPort: 46_390))
        defer { pair.plane.shutdown() }
        let paths = try (0..<24).map { _ in try TestPeer() }
        for path in paths { path.routerPort = 46_390 }
        for path in paths {
            #expect(try await onOwnThread { pair.subscriber.check(via: path) } == .success(mappedPort: path.port))
        }
        let worker = pair.plane.workers[0]
        let routes = { worker.performAndWait { (worker.sharedSocketTransportsByAddress.count, worker.webRTCTransportsByUsernameFragment.count) } }
        // The publisher's one address and the subscriber's newest 16.
        #expect(routes().0 == 1 + WebRTCLink.maximumSharedSocketRoutes)
        #expect(routes().1 == 2)
        // The newest addresses still reach the subscriber's transport.
        #expect(try await onOwnThread { pair.subscriber.check(via: paths.last!) } == .success(mappedPort: paths.last!.port))

        try await pair.plane.closeTransport(pair.subscriberTransport.transportID)
        #expect(routes().0 == 1 && routes().1 == 1, "a closed transport left routes behind")
        try await pair.plane.closeTransport(pair.publisherTransport.transportID)
        #expect(routes().0 == 0 && routes().1 == 0)
    }

    @Test func aCheckWithTheWrongUsernameOrPasswordGetsNoSuccessAndOthersAreUnaffected() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_240...46_249, webRTCSharedPort: 46_250))
        defer { pair.plane.shutdown() }
        let stranger = try WebRTCTestPeer()
        stranger.target(pair.subscriberTransport)
        #expect(try await onOwnThread { stranger.check(usernameFragment: "notours1") } == .noAnswer)
        // Our ufrag but not the client's (the SDP told the transport whose checks to expect).
        #expect(try await onOwnThread { stranger.check() } == .noAnswer)
        #expect(try await onOwnThread { pair.subscriber.check(password: "not-the-password-at-all") } == .error(code: 401))
        try Self.publish(pair, from: 0, count: 5)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 5).count } == 5)
        let drops = try await pair.plane.statistics(router: pair.router).drops
        #expect(drops["stun"] == 2)
        // The unknown ufrag matched no transport of the shared port: the worker counts it.
        #expect(await pair.plane.planeStatistics().drops["stun"] == 3)
    }

    @Test func dtlsFromAnAddressICEDidNotVerifyIsDropped() async throws {
        let plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_260...46_269))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let peer = try WebRTCTestPeer()
        let transport = try await plane.createWebRTCTransport(router: router)
        try await plane.connectWebRTCTransport(transport.transportID, remote: peer.remoteParameters)
        peer.target(transport)
        #expect(try await onOwnThread { try peer.handshake(rounds: 2) } == nil)
        #expect(try await plane.statistics(router: router).drops["unverifiedSource"] ?? 0 >= 1)
        #expect(try await onOwnThread { peer.check() } == .success(mappedPort: peer.peer.port))
        let fresh = try WebRTCTestPeer()
        fresh.target(transport)
        #expect(try await onOwnThread { try fresh.handshake(rounds: 2) } == nil)
    }

    @Test func aCertificateThatDoesNotMatchTheFingerprintFailsTheTransport() async throws {
        let plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_270...46_279))
        defer { plane.shutdown() }
        var events = plane.events.makeAsyncIterator()
        let router = try await plane.createRouter()
        let peer = try WebRTCTestPeer()
        let impostor = try WebRTCTestPeer()
        let transport = try await plane.createWebRTCTransport(router: router)
        var announced = peer.remoteParameters
        announced.fingerprint = impostor.remoteParameters.fingerprint
        try await plane.connectWebRTCTransport(transport.transportID, remote: announced)
        peer.target(transport)
        #expect(try await onOwnThread { peer.check() } == .success(mappedPort: peer.peer.port))
        _ = try await onOwnThread { try peer.handshake(rounds: 4) }
        while let event = await events.next() {
            if case .transportFailed(let failed, let reason) = event {
                #expect(failed == transport.transportID)
                #expect(reason.contains("fingerprint"))
                break
            }
        }
    }

    @Test func consentExpiresWhenChecksStop() async throws {
        let plane = try MediaPlane(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_280...46_289, iceConsentTimeout: .seconds(2)))
        defer { plane.shutdown() }
        var events = plane.events.makeAsyncIterator()
        let router = try await plane.createRouter()
        let peer = try WebRTCTestPeer()
        let transport = try await plane.createWebRTCTransport(router: router)
        try await plane.connectWebRTCTransport(transport.transportID, remote: peer.remoteParameters)
        peer.target(transport)
        #expect(try await onOwnThread { peer.check() } == .success(mappedPort: peer.peer.port))
        // Connected or still handshaking (a loaded machine can take longer than the 2 s of consent
        // over the handshake, CI did), the transport must fail for consent once checks stop.
        _ = try await onOwnThread { try peer.handshake() }
        while let event = await events.next() {
            if case .transportFailed(let failed, let reason) = event {
                #expect(failed == transport.transportID)
                #expect(reason.contains("consent"))
                break
            }
        }
    }

    @Test func closeNotifyFromTheClientStopsMediaAndFailsTheTransportAfterAGrace() async throws {
        let pair = try await Self.connectedPair(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_320...46_329))
        defer { pair.plane.shutdown() }
        var events = pair.plane.events.makeAsyncIterator()
        let closedAt = ContinuousClock.now
        pair.subscriber.peer.sendRaw(pair.subscriber.dtls.closeNotify())
        try await Task.sleep(for: .milliseconds(200))
        try Self.publish(pair, from: 0, count: 5)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 1).count } == 0)
        while let event = await events.next() {
            guard case .transportFailed(let failed, let reason) = event else { continue }
            #expect(failed == pair.subscriberTransport.transportID)
            #expect(reason == "the client closed DTLS")
            #expect(ContinuousClock.now - closedAt >= .seconds(2))
            break
        }
    }

    @Test func aNACKedPacketComesBackOnTheRetransmissionStreamLedByItsOriginalSequenceNumber() async throws {
        let pair = try await Self.connectedPair(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_330...46_339))
        defer { pair.plane.shutdown() }
        let rtxSSRC = try #require(pair.consumer.rtxSSRC)
        #expect(pair.consumer.codec.rtxPayloadType == 97)
        let mediaSSRC = pair.consumer.ssrc
        // The router answers a NACK only for a packet younger than a second (RetransmissionBuffer's
        // maxAge): publishing, reading and asking on one thread keeps a loaded machine from ageing
        // the packet out first, and a round that still loses that race starts again with new packets.
        let found = try await onOwnThread { () throws -> (repair: Repair, timestamp: UInt32, index: Int)? in
            for round in 0..<3 {
                let first = round * 5
                try Self.publish(pair, from: first, count: 5)
                let received = pair.subscriber.peer.receiveRTP(count: 5).filter { $0.ssrc == mediaSSRC }
                guard received.count == 5 else { continue }
                let missing = received[2].sequenceNumber
                try pair.subscriber.peer.sendRTCP { writer throws(RTCPError) in
                    try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
                    try RTCPGenericNACK.write(senderSSRC: 0x5555, mediaSSRC: mediaSSRC, lostSequenceNumbers: [missing], into: &writer)
                }
                let repair = pair.subscriber.peer.receiveFirst(within: 2_000) { next -> Repair? in
                    guard case .rtp(_, let timestamp, let ssrc, let payloadType, let payload) = next, ssrc != mediaSSRC,
                        Array(payload.prefix(2)) == [UInt8(missing >> 8), UInt8(missing & 0xFF)]
                    else { return nil }
                    return Repair(ssrc: ssrc, payloadType: payloadType, timestamp: timestamp, payload: payload)
                }
                if let repair { return (repair, received[2].timestamp, first + 2) }
            }
            return nil
        }
        let (repair, timestamp, index) = try #require(found)
        #expect(repair.ssrc == rtxSSRC)
        #expect(repair.payloadType == 97)
        #expect(repair.timestamp == timestamp)
        #expect(Array(repair.payload.dropFirst(2)) == VP8TestPayload.make(index: index, keyFrame: false))
    }

    struct Repair: Sendable {
        let ssrc: UInt32
        let payloadType: UInt8
        let timestamp: UInt32
        let payload: [UInt8]
    }

    @Test func faultInjectionDropsTheConfiguredShareOnlyWhenEnabled() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_290...46_299, faultInjection: true))
        defer { pair.plane.shutdown() }
        try await pair.plane.setFaultInjection(transport: pair.subscriberTransport.transportID, dropShare: 0.5, rateCapBitrate: nil)
        try Self.publish(pair, from: 0, count: 40)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 40).count } == 20)
        #expect(try await pair.plane.statistics(router: pair.router).drops["faultInjected"] == 20)
        let off = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_300...46_301))
        defer { off.shutdown() }
        await #expect(throws: MediaControlError.invalidParameters(reason: "fault injection is off (media.faultInjection in the configuration)")) {
            try await off.setFaultInjection(transport: pair.subscriberTransport.transportID, dropShare: 0.5, rateCapBitrate: nil)
        }
    }

    @Test func aRateCapPolicesWhatTheSubscriberGetsAndABadCapIsNamed() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_390...46_399, faultInjection: true))
        defer { pair.plane.shutdown() }
        // 8 kbps lets the 50 ms burst allowance (at least 1500 bytes) through and little more.
        try await pair.plane.setFaultInjection(transport: pair.subscriberTransport.transportID, dropShare: nil, rateCapBitrate: 8_000)
        try Self.publish(pair, from: 0, count: 40)
        let delivered = try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 40).count }
        #expect(delivered >= 1 && delivered < 10)
        #expect(try await pair.plane.statistics(router: pair.router).drops["faultInjected"] == UInt64(40 - delivered))
        try await pair.plane.setFaultInjection(transport: pair.subscriberTransport.transportID, dropShare: nil, rateCapBitrate: 0)
        try Self.publish(pair, from: 40, count: 40)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 40).count } == 40, "0 lifts the cap")
        await #expect(throws: MediaControlError.invalidParameter(
            .rateCapBitrate, problem: "must be 0 (no cap) or from 8000 to 10000000000 bits per second, not 100")) {
            try await pair.plane.setFaultInjection(transport: pair.subscriberTransport.transportID, dropShare: nil, rateCapBitrate: 100)
        }
    }

    @Test func aFaultOnThePublishersTransportDropsWhatArrivesFromIt() async throws {
        let pair = try await Self.connectedPair(
            configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_400...46_409, faultInjection: true))
        defer { pair.plane.shutdown() }
        try await pair.plane.setFaultInjection(transport: pair.publisherTransport.transportID, dropShare: 0.5, rateCapBitrate: nil)
        try Self.publish(pair, from: 0, count: 40)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 40).count } == 20)
        #expect(try await pair.plane.statistics(router: pair.router).drops["faultInjected"] == 20)
        try await pair.plane.setFaultInjection(transport: pair.publisherTransport.transportID, dropShare: 0, rateCapBitrate: nil)
        try Self.publish(pair, from: 40, count: 40)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 40).count } == 40, "0 ends it")
    }

    @Test func anICERestartKeepsMediaFlowingWithTheNewCredentials() async throws {
        let pair = try await Self.connectedPair(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_310...46_319))
        defer { pair.plane.shutdown() }
        let old = pair.subscriberTransport.ice
        let new = try await pair.plane.restartICE(pair.subscriberTransport.transportID, remote: nil)
        #expect(new.usernameFragment != old.usernameFragment)
        var restarted = pair.subscriberTransport
        restarted.ice = new
        pair.subscriber.target(restarted)
        #expect(try await onOwnThread { pair.subscriber.check() } == .success(mappedPort: pair.subscriber.peer.port))
        try Self.publish(pair, from: 0, count: 5)
        #expect(try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 5).count } == 5)
    }
}
