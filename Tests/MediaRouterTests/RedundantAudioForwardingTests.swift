import MediaControl
import MediaTestSupport
import RTPWire
import Testing

@testable import MediaRouter

/// A publisher sending Opus as RFC 2198 redundant audio (`red/48000/2`), over real UDP and SRTP: a
/// subscriber that negotiated RED gets each packet whole at its own payload type, one that did not
/// gets the primary frame alone as plain Opus, a relay leg gets it as published, and a packet that is
/// not well-formed RED around the track's Opus reaches nobody and is counted.
@Suite(.serialized) struct RedundantAudioForwardingTests {
    static let opus: UInt8 = 111
    static let red: UInt8 = 63
    static let ssrc: UInt32 = 0x2222_0001
    static let last: [UInt8] = [0xFE, 0xED]

    /// RED of two earlier frames and `primary`, as Chromium sends it.
    static func redundant(_ primary: [UInt8], primaryType: UInt8 = opus) -> [UInt8] {
        [0x80 | opus, 0x1E, 0x00, 0x02, 0x80 | opus, 0x0F, 0x00, 0x01, primaryType] + [0xA1, 0xA2] + [0xB1] + primary
    }

    /// A router with one Opus publisher (RED at `redPayloadType`, or plain) and one subscriber per
    /// delivery, over real UDP and SRTP.
    struct Room {
        let plane: MediaPlane
        let router: RouterID
        let publisher: TestPeer
        let subscribers: [TestPeer]
        let subscriberTransports: [TransportID]

        init(ports: ClosedRange<UInt16>, redPayloadType: UInt8?, deliveries: [RedundantAudioDelivery]) async throws {
            plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: ports))
            router = try await plane.createRouter()
            publisher = try TestPeer()
            let publishing = try await plane.createPlainTransport(router: router, options: PlainTransportOptions(clientSRTP: publisher.srtpParameters))
            try publisher.connect(to: publishing)
            let producer = try await plane.produce(
                transport: publishing.transportID,
                options: ProducerOptions(
                    codec: CodecParameters(name: .opus, payloadType: RedundantAudioForwardingTests.opus, redPayloadType: redPayloadType),
                    ssrc: RedundantAudioForwardingTests.ssrc))
            var subscribers: [TestPeer] = []
            var transports: [TransportID] = []
            for delivery in deliveries {
                let peer = try TestPeer()
                let transport = try await plane.createPlainTransport(
                    router: router,
                    options: PlainTransportOptions(remoteAddress: peer.address, clientSRTP: peer.srtpParameters, redundantAudio: delivery),
                    toConsume: [producer])
                try peer.connect(to: transport)
                _ = try await plane.consume(transport: transport.transportID, producer: producer, pauseReasons: [])
                subscribers.append(peer)
                transports.append(transport.transportID)
            }
            self.subscribers = subscribers
            subscriberTransports = transports
        }

        func send(_ packets: [(payloadType: UInt8, payload: [UInt8])]) throws {
            for (index, packet) in packets.enumerated() {
                try publisher.sendRTP(
                    payloadType: packet.payloadType, sequenceNumber: UInt16(1_000 + index), timestamp: UInt32(960 * index),
                    ssrc: RedundantAudioForwardingTests.ssrc, payload: packet.payload)
            }
        }

        /// What each subscriber received, up to the packet that ends with `last`.
        func received() async throws -> [[(payloadType: UInt8, payload: [UInt8])]] {
            let subscribers = subscribers
            return try await onOwnThread {
                subscribers.map { peer in
                    var packets: [(payloadType: UInt8, payload: [UInt8])] = []
                    _ = peer.receiveFirst(within: 2_000) { packet -> Bool? in
                        guard case .rtp(_, _, _, let payloadType, let payload) = packet else { return nil }
                        packets.append((payloadType, payload))
                        return payload.suffix(RedundantAudioForwardingTests.last.count).elementsEqual(RedundantAudioForwardingTests.last) ? true : nil
                    }
                    return packets
                }
            }
        }
    }

    @Test func eachSubscriberGetsTheAudioItNegotiatedAndMalformedRedReachesNobody() async throws {
        let room = try await Room(ports: 48_300...48_349, redPayloadType: Self.red, deliveries: [.primaryOnly, .redundant(payloadType: 100), .asPublished])
        defer { room.plane.shutdown() }
        let sent: [(payloadType: UInt8, payload: [UInt8])] = [
            (Self.red, Self.redundant([0xC0, 0xC1, 0xC2])),
            (Self.opus, [0xD0, 0xD1]),
            (Self.red, [0x80 | Self.opus, 0x00, 0x00]),  // a block header past the end
            (Self.red, Self.redundant([0xE0], primaryType: 13)),  // comfort noise, not the track's Opus
            (Self.red, Self.redundant([0xF0, 0xF1])),
            (Self.opus, Self.last),
        ]
        try room.send(sent)
        let received = try await room.received()
        #expect(received[0].map(\.payloadType) == [Self.opus, Self.opus, Self.opus, Self.opus])
        #expect(received[0].map(\.payload) == [[0xC0, 0xC1, 0xC2], [0xD0, 0xD1], [0xF0, 0xF1], Self.last])
        #expect(received[1].map(\.payloadType) == [100, Self.opus, 100, Self.opus])
        #expect(received[1].map(\.payload) == [sent[0].payload, sent[1].payload, sent[4].payload, Self.last])
        #expect(received[2].map(\.payloadType) == [Self.red, Self.opus, Self.red, Self.opus])
        #expect(received[2].map(\.payload) == received[1].map(\.payload))

        let statistics = try await room.plane.statistics(router: room.router)
        let counters = try #require(statistics.producers.first)
        #expect(counters.packetsReceived == 6)
        #expect(counters.redundantPacketsReceived == 2)
        #expect(statistics.consumers.map(\.redundantPacketsSent).sorted() == [0, 2, 2])
        #expect(counters.unforwardableRedundantPackets == 2)
    }

    /// A publisher of plain Opus, a subscriber that takes RED on a downlink the router judges lossy:
    /// from the second packet on, each repeats the frame before it; a subscriber without RED gets
    /// plain Opus all along.
    @Test func theRouterRepeatsTheFrameBeforeTowardALossySubscriberThatTakesRed() async throws {
        let room = try await Room(ports: 48_360...48_379, redPayloadType: nil, deliveries: [.redundant(payloadType: 100), .primaryOnly])
        defer { room.plane.shutdown() }
        // As a lossy receiver report would have it (the policy itself: AddedAudioRedundancyTests).
        let worker = room.plane.workers[0]
        for transport in room.subscriberTransports {
            worker.performAndWait { worker.routers[room.router]!.transports[transport]!.addedRedundantFrames = 1 }
        }
        let frames: [[UInt8]] = [[0xD0], [0xD1, 0xD1], Self.last]
        try room.send(frames.map { (Self.opus, $0) })
        let received = try await room.received()
        #expect(received[0].map(\.payloadType) == [Self.opus, 100, 100])
        #expect(received[0].map(\.payload) == [[0xD0], [0xEF, 0x0F, 0x00, 0x01, 111, 0xD0, 0xD1, 0xD1], [0xEF, 0x0F, 0x00, 0x02, 111, 0xD1, 0xD1] + Self.last])
        #expect(received[1].map(\.payloadType) == [Self.opus, Self.opus, Self.opus])
        #expect(received[1].map(\.payload) == frames)
        let statistics = try await room.plane.statistics(router: room.router)
        #expect(statistics.consumers.map(\.redundancyAddedPackets).sorted() == [0, 2])
        // What the probe sends less for while video is off (ProbePacer): the block headers and frames.
        let added = worker.performAndWait { room.subscriberTransports.map { worker.routers[room.router]!.transports[$0]!.addedRedundancyBytes } }
        #expect(added == [(4 + 1 + 1) + (4 + 1 + 2), 0])
    }

    @Test func aRedPayloadTypeOutsideTheDynamicRangesIsRefusedByName() async throws {
        let plane = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 48_350...48_359))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let peer = try TestPeer()
        await #expect(throws: MediaControlError.invalidParameter(.redundantAudioPayloadType, problem: "must be a dynamic payload type (35-63 or 96-127), not 200")) {
            _ = try await plane.createPlainTransport(
                router: router, options: PlainTransportOptions(clientSRTP: peer.srtpParameters, redundantAudio: .redundant(payloadType: 200)))
        }
    }
}
