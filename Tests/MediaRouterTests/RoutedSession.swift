import MediaTestSupport
import MediaControl

@testable import MediaRouter

/// A router with one publishing peer and `subscriberCount` subscribing peers, consumers created.
struct RoutedSession {
    static let videoSSRC: UInt32 = 0x1111_0001
    static let vp8 = CodecParameters(name: .vp8, payloadType: 96)

    let plane: MediaPlane
    let router: RouterID
    let publisher: TestPeer
    let publisherTransport: TransportID
    let producer: ProducerID
    let subscribers: [TestPeer]
    let consumers: [ConsumerParameters]
    let subscriberTransports: [TransportID]

    static func make(
        subscriberCount: Int, portBase: UInt16, keyFrameInterval: Duration = .milliseconds(500),
        reportInterval: Duration = .seconds(30), udpSegmentation: Bool = true, workerCount: Int = 1, spreadThreshold: Int = 64,
        relayRingCapacity: Int = 1024, workerLoop: WorkerLoop = .dispatchWait, retransmissionMaxAge: Duration = .seconds(1),
        overloadShedding: OverloadShedding = OverloadShedding(enabled: false)
    ) async throws -> RoutedSession {
        let plane = try MediaPlane(
            configuration: MediaRouterConfiguration(
                workerCount: workerCount, portRange: portBase...(portBase + 99), retransmissionMaxAge: retransmissionMaxAge,
                keyFrameRequestInterval: keyFrameInterval,
                reportInterval: reportInterval, udpSegmentation: udpSegmentation, workerLoop: workerLoop, spreadThreshold: spreadThreshold,
                relayRingCapacity: relayRingCapacity, overloadShedding: overloadShedding))
        let router = try await plane.createRouter()
        let publisher = try TestPeer()
        let publisherParameters = try await plane.createPlainTransport(
            router: router, options: PlainTransportOptions(clientSRTP: publisher.srtpParameters))
        try publisher.connect(to: publisherParameters)
        let producer = try await plane.produce(
            transport: publisherParameters.transportID, options: ProducerOptions(codec: vp8, ssrc: videoSSRC))
        var subscribers: [TestPeer] = []
        var consumers: [ConsumerParameters] = []
        var transports: [TransportID] = []
        for _ in 0..<subscriberCount {
            let peer = try TestPeer()
            let parameters = try await plane.createPlainTransport(
                router: router,
                options: PlainTransportOptions(remoteAddress: peer.address, clientSRTP: peer.srtpParameters), toConsume: [producer])
            try peer.connect(to: parameters)
            consumers.append(try await plane.consume(transport: parameters.transportID, producer: producer, pauseReasons: []))
            subscribers.append(peer)
            transports.append(parameters.transportID)
        }
        return RoutedSession(
            plane: plane, router: router, publisher: publisher, publisherTransport: publisherParameters.transportID,
            producer: producer, subscribers: subscribers, consumers: consumers, subscriberTransports: transports)
    }

    func publish(from first: Int, count: Int, keyFrameAt: Set<Int> = []) throws {
        for index in first..<(first + count) {
            try publisher.sendRTP(
                payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: 65_500 + index),
                timestamp: UInt32(3000 * index), ssrc: RoutedSession.videoSSRC,
                payload: VP8TestPayload.make(index: index, keyFrame: keyFrameAt.contains(index)))
        }
    }
}
