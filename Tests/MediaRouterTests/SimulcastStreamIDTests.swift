import Foundation
import MediaControl
import MediaTestSupport
import Synchronization
import Testing

@testable import MediaRouter

/// Simulcast layers named by rid (RFC 8852), as browsers publish them with no SSRC announced: the
/// router learns each layer's SSRC (and its RTX's, from the repaired stream id) from the first
/// packet that names it, reads each layer's picture from its key frame, and tells signaling.
@Suite(.serialized) struct SimulcastStreamIDTests {
    static let ridExtension: UInt8 = 10
    static let repairedExtension: UInt8 = 11
    static let sizes = [(320, 180), (640, 360), (1280, 720)]
    static let rids = ["q", "h", "f"]

    private struct Setup {
        let plane: MediaPlane
        let router: RouterID
        let publisher: TestPeer
        let subscriber: TestPeer
        let layers: LearnedLayers
        let collector: Task<Void, Never>
    }

    private func makeSetup(portBase: UInt16) async throws -> Setup {
        let plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: portBase...(portBase + 49)))
        let router = try await plane.createRouter()
        let publisher = try TestPeer()
        let publisherTransport = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: publisher.srtpParameters))
        try publisher.connect(to: publisherTransport)
        var options = ProducerOptions(
            codec: CodecParameters(name: .vp8, payloadType: 96, rtxPayloadType: 97),
            layers: Self.rids.map { VideoLayer(ssrc: nil, rid: $0, width: 0, height: 0, frameRate: 0) })
        options.rtpStreamIDExtensionID = Self.ridExtension
        options.repairedRTPStreamIDExtensionID = Self.repairedExtension
        let producer = try await plane.produce(transport: publisherTransport.transportID, options: options)
        let subscriber = try TestPeer()
        let subscriberTransport = try await plane.createPlainTransport(
            router: router, options: PlainTransportOptions(remoteAddress: subscriber.address, clientSRTP: subscriber.srtpParameters))
        try subscriber.connect(to: subscriberTransport)
        _ = try await plane.consume(transport: subscriberTransport.transportID, producer: producer, pauseReasons: [], preference: .unconstrained)
        let layers = LearnedLayers()
        let collector = Task { [plane] in
            for await event in plane.events {
                if case .producerLayersChanged(let id, let learned) = event, id == producer { layers.value.withLock { $0 = learned } }
            }
        }
        return Setup(plane: plane, router: router, publisher: publisher, subscriber: subscriber, layers: layers, collector: collector)
    }

    /// A packet's payload tells its layer and sequence number apart from every other's.
    private static func payload(layer: Int, sequenceNumber: UInt16, keyFrame: Bool) -> [UInt8] {
        let index = layer * 1000 + Int(sequenceNumber)
        let (width, height) = sizes[layer]
        return keyFrame ? VP8TestPayload.keyFrame(index: index, width: width, height: height) : VP8TestPayload.make(index: index, keyFrame: false)
    }

    /// Each layer's SSRC: 0x5100 + layer; its RTX: 0x5200 + layer.
    private func send(_ setup: Setup, layer: Int, sequenceNumber: UInt16, keyFrame: Bool, namingRID: Bool, ssrc: UInt32? = nil) throws {
        let payload = Self.payload(layer: layer, sequenceNumber: sequenceNumber, keyFrame: keyFrame)
        try setup.publisher.sendRTP(
            payloadType: 96, sequenceNumber: sequenceNumber, timestamp: UInt32(sequenceNumber) * 3000, ssrc: ssrc ?? 0x5100 + UInt32(layer),
            payload: payload, streamID: namingRID ? (Self.ridExtension, Self.rids[layer], false) : nil)
    }

    @Test func layersLearnTheirSSRCsFromRidsAndTheirPicturesFromKeyFrames() async throws {
        let setup = try await makeSetup(portBase: 44_300)
        defer {
            setup.collector.cancel()
            setup.plane.shutdown()
        }
        // The first packets name their layer; later ones do not need to (browsers stop once reported on).
        for layer in 0..<3 {
            try send(setup, layer: layer, sequenceNumber: 100, keyFrame: true, namingRID: true)
            try send(setup, layer: layer, sequenceNumber: 101, keyFrame: false, namingRID: false)
        }
        // Another SSRC naming a layer that has one already is not that layer's.
        try send(setup, layer: 1, sequenceNumber: 7, keyFrame: true, namingRID: true, ssrc: 0x7777)
        // A packet that names no rid and has an unknown SSRC is nobody's.
        try send(setup, layer: 0, sequenceNumber: 7, keyFrame: false, namingRID: false, ssrc: 0x8888)

        var learned: [VideoLayer]?
        for _ in 0..<100 {
            learned = setup.layers.value.withLock { $0 }
            if learned?.allSatisfy({ $0.width > 0 }) == true { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(learned?.map(\.width) == Self.sizes.map(\.0))
        #expect(learned?.map(\.height) == Self.sizes.map(\.1))
        #expect(learned?.map(\.ssrc) == [0x5100, 0x5101, 0x5102])
        #expect(learned?.map(\.rid) == Self.rids)

        let statistics = try await setup.plane.statistics(router: setup.router)
        #expect(statistics.producers.first?.packetsReceived == 6)
        #expect(statistics.drops["unknownSSRC"] == 2)
        // A new subscriber starts on the lowest layer (it moves up once the higher ones have flowed a
        // while: SimulcastEndToEndTests); what it gets is that layer's, found by the learned SSRC.
        let received = try await onOwnThread { setup.subscriber.receiveRTP(count: 2) }.map(\.payload)
        let expected = [(0, 100, true), (0, 101, false)].map { Self.payload(layer: $0.0, sequenceNumber: $0.1, keyFrame: $0.2) }
        #expect(received.count == 2)
        #expect(received == expected, "received \(received.map { $0.prefix(12) })")
    }

    @Test func aRetransmissionNamingItsRepairedLayerFillsTheGap() async throws {
        let setup = try await makeSetup(portBase: 44_350)
        defer {
            setup.collector.cancel()
            setup.plane.shutdown()
        }
        try send(setup, layer: 0, sequenceNumber: 200, keyFrame: true, namingRID: true)
        try send(setup, layer: 0, sequenceNumber: 202, keyFrame: false, namingRID: false)
        // RFC 4588: the original sequence number first, then the payload, on the RTX SSRC.
        let original = Self.payload(layer: 0, sequenceNumber: 201, keyFrame: false)
        try setup.publisher.sendRTP(
            payloadType: 97, sequenceNumber: 1, timestamp: 201 * 3000, ssrc: 0x5200, payload: [0x00, 201] + original,
            streamID: (Self.repairedExtension, "q", true))
        let received = try await onOwnThread { setup.subscriber.receiveRTP(count: 3) }
        #expect(received.count == 3)
        #expect(received.last?.payload == original, "received \(received.map { $0.payload.prefix(12) })")
        let statistics = try await setup.plane.statistics(router: setup.router)
        #expect(statistics.drops["unknownSSRC", default: 0] == 0)
    }
}

/// The last `producerLayersChanged` seen.
private final class LearnedLayers: Sendable {
    let value = Mutex<[VideoLayer]?>(nil)
}
