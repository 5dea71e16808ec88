import MediaControl
import MediaTestSupport
import RTPWire
import Testing

@testable import MediaRouter

/// Repair across a simulcast layer switch: a subscriber that lost a packet of the layer it received
/// before the switch, and NACKs it after, gets that packet again, from that layer's ring, with the
/// sequence number and timestamp it was first sent with.
@Suite(.serialized) struct SimulcastRepairTests {
    static let sizes = [(320, 180), (640, 360)]

    /// A packet's payload tells its layer and sequence number apart from every other's.
    private static func payload(layer: Int, sequenceNumber: UInt16, keyFrame: Bool) -> [UInt8] {
        let index = layer * 1000 + Int(sequenceNumber)
        let (width, height) = sizes[layer]
        return keyFrame ? VP8TestPayload.keyFrame(index: index, width: width, height: height) : VP8TestPayload.make(index: index, keyFrame: false)
    }

    @Test func aNackForTheLayerForwardedBeforeASwitchIsAnsweredFromThatLayer() async throws {
        // No sender report may take the place of the packet the subscriber drops, and the NACK finds
        // the packet kept however slowly this runs beside other suites.
        let plane = try MediaPlane(
            configuration: MediaRouterConfiguration(
                workerCount: 1, portRange: 43_300...43_349, retransmissionMaxAge: .seconds(60), reportInterval: .seconds(30)))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let publisher = try TestPeer()
        let publisherTransport = try await plane.createPlainTransport(
            router: router, options: PlainTransportOptions(clientSRTP: publisher.srtpParameters))
        try publisher.connect(to: publisherTransport)
        let layers = (0..<2).map { VideoLayer(ssrc: 0x6100 + UInt32($0), width: Self.sizes[$0].0, height: Self.sizes[$0].1, frameRate: 30) }
        let producer = try await plane.produce(
            transport: publisherTransport.transportID, options: ProducerOptions(codec: CodecParameters(name: .vp8, payloadType: 96), layers: layers))
        let subscriber = try TestPeer()
        let subscriberTransport = try await plane.createPlainTransport(
            router: router, options: PlainTransportOptions(remoteAddress: subscriber.address, clientSRTP: subscriber.srtpParameters))
        try subscriber.connect(to: subscriberTransport)
        let consumer = try await plane.consume(
            transport: subscriberTransport.transportID, producer: producer, pauseReasons: [], preference: .unconstrained)
        func send(layer: Int, _ sequenceNumbers: ClosedRange<UInt16>, keyFrameAt keyFrame: UInt16? = nil) throws {
            for sequenceNumber in sequenceNumbers {
                try publisher.sendRTP(
                    payloadType: 96, sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber) * 3000, ssrc: 0x6100 + UInt32(layer),
                    payload: Self.payload(layer: layer, sequenceNumber: sequenceNumber, keyFrame: sequenceNumber == keyFrame))
            }
        }

        // The low layer flows; the high layer arrives too (a delta frame at each poll keeps it
        // arriving, however slowly the polling runs beside other suites), and the consumer targets
        // it while the low layer still flows: it moves only on the high layer's key frame.
        try send(layer: 0, 100...103, keyFrameAt: 100)
        var highSequence: UInt16 = 200
        try await waitUntil("the consumer targets the high layer") {
            try send(layer: 1, highSequence...highSequence)
            highSequence += 1
            return try await plane.statistics(router: router).consumers.first { $0.consumerID == consumer.consumerID }?.layer?.targetLayer == 1
        }
        // At once: the low layer's packets 104-109, then the high layer's key frame and deltas. 104
        // is lost on the way to the subscriber, which NACKs it after the switch.
        try send(layer: 0, 104...109)
        try send(layer: 1, highSequence...(highSequence + 3), keyFrameAt: highSequence)
        var low = try await onOwnThread { subscriber.receiveRTP(count: 4) }
        #expect(try await onOwnThread { subscriber.discardNext() })
        low += try await onOwnThread { subscriber.receiveRTP(count: 5) }
        #expect(low.map(\.payload) == [100, 101, 102, 103, 105, 106, 107, 108, 109].map { Self.payload(layer: 0, sequenceNumber: $0, keyFrame: $0 == 100) })
        let lost = low[3].sequenceNumber &+ 1
        let high = try await onOwnThread { subscriber.receiveRTP(count: 4) }
        #expect(high.map(\.payload) == (highSequence...(highSequence + 3)).map { Self.payload(layer: 1, sequenceNumber: $0, keyFrame: $0 == highSequence) })
        #expect(high.first?.sequenceNumber == low.last!.sequenceNumber &+ 1)

        // Now the subscriber asks for the low layer's lost packet.
        try subscriber.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPGenericNACK.write(senderSSRC: 0x5555, mediaSSRC: consumer.ssrc, lostSequenceNumbers: [lost], into: &writer)
        }
        let resent = try await onOwnThread { subscriber.receiveRTP(count: 1) }
        #expect(resent.count == 1)
        #expect(resent.first?.sequenceNumber == lost)
        #expect(resent.first?.timestamp == low[3].timestamp &+ 3000)
        #expect(resent.first?.payload == Self.payload(layer: 0, sequenceNumber: 104, keyFrame: false))
        let statistics = try await plane.statistics(router: router)
        #expect(statistics.consumers.first { $0.consumerID == consumer.consumerID }?.retransmittedPackets == 1)
    }
}
