import MediaTestSupport
import RTPWire
import Testing
import TestSupport

@testable import MediaRouter

/// Randomized robustness test for the RTCP the media plane acts on, through the transport's handler
/// rather than the parser alone: a subscriber sends authentic SRTCP whose plain compound packets
/// (receiver reports, NACK, PLI, FIR, REMB, transport-cc, sender reports with SDES) were mutated from
/// a fixed seed. Whatever they say, the router keeps forwarding, retransmits only packets it sent,
/// passes only well-formed requests on to the publisher, and counts what it could not read.
@Suite struct RandomizedRTCPTests {
    @Test func mutatedFeedbackFromASubscriberNeverBreaksForwardingOrLeaksAnything() async throws {
        // The NACK seeds must find the lost packets however slowly this runs beside the parallel
        // suites (it once took over the default second from publishing to the NACK).
        let session = try await RoutedSession.make(
            subscriberCount: 1, portBase: 42_400, keyFrameInterval: .milliseconds(100), retransmissionMaxAge: .seconds(60))
        defer { session.plane.shutdown() }
        let subscriber = session.subscribers[0]
        try session.publish(from: 0, count: 20, keyFrameAt: [0])
        // The first four are lost on the way, so their retransmissions can be read (a packet read
        // once fails replay protection the second time).
        for _ in 0..<4 { #expect(try await onOwnThread { subscriber.discardNext() }) }
        let delivered = try await onOwnThread { subscriber.receiveRTP(count: 16) }
        #expect(delivered.count == 16)
        let first = try #require(delivered.first).sequenceNumber &- 4
        /// The index of the published packet the consumer's sequence number stands for.
        func published(_ sequenceNumber: UInt16) -> Int { Int(sequenceNumber &- first) }
        let consumerSSRC = session.consumers[0].ssrc
        let seeds = try Self.seeds(
            consumerSSRC: consumerSSRC, publisherSSRC: RoutedSession.videoSSRC, lost: (0..<4).map { first &+ $0 })
        for seed in seeds { try subscriber.sendRTCP(plain: seed) }

        var generator = SeededGenerator(seed: 0x5254_4350_4645_4544)
        for _ in 0..<600 {
            let plain = ByteMutations.mutated(seeds.randomElement(using: &generator)!, using: &generator)
            if (try? subscriber.sendRTCP(plain: plain)) == nil { subscriber.sendRaw(plain) }
        }
        try session.publish(from: 20, count: 5)

        // Everything that reaches the subscriber is a packet it was sent: the four it lost, resent,
        // and the five new ones.
        var indices: [Int] = []
        for case .rtp(let sequenceNumber, _, _, _, let payload) in try await onOwnThread { subscriber.receivePackets(for: 500) } {
            let index = published(sequenceNumber)
            #expect((0..<25).contains(index), "sequence number \(sequenceNumber) was never sent")
            #expect(payload == VP8TestPayload.make(index: index, keyFrame: index == 0), "packet \(index) differs from what was sent")
            indices.append(index)
        }
        #expect(Set(indices.filter { $0 >= 20 }) == Set(20..<25), "forwarding stopped after the mutated feedback: \(indices)")
        #expect(Set(indices.filter { $0 < 4 }) == Set(0..<4), "the lost packets were not resent: \(indices)")

        // What the publisher got is well-formed RTCP.
        for compound in try await onOwnThread { session.publisher.receiveRTCP(for: 300) } {
            #expect(compound.withUnsafeBytes { (try? RTCPCompoundPacket(parsing: $0)) != nil })
        }
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.drops["malformed", default: 0] > 0, "nothing counted as malformed: \(statistics.drops)")
        let consumer = try #require(statistics.consumers.first)
        #expect(consumer.retransmittedPackets > 0, "the NACK seeds were not acted on")
        #expect(consumer.keyFrameRequestsReceived > 0, "the PLI and FIR seeds were not acted on")
    }

    /// One compound of each kind the media plane reads, about the subscriber's consumer.
    private static func seeds(consumerSSRC: UInt32, publisherSSRC: UInt32, lost: [UInt16]) throws -> [[UInt8]] {
        let sender: UInt32 = 0x5EED_0001
        let block = RTCPReportBlock(
            ssrc: consumerSSRC, fractionLost: 12, cumulativeLost: 3, extendedHighestSequenceNumber: 65_530,
            jitter: 90, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        func compound(_ build: (inout RTCPWriter) throws(RTCPError) -> Void) throws -> [UInt8] {
            try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPReceiverReport.write(senderSSRC: sender, reportBlocks: [block], into: &writer)
                try build(&writer)
            }
        }
        return [
            try compound { _ throws(RTCPError) in },
            try compound { writer throws(RTCPError) in
                try RTCPGenericNACK.write(senderSSRC: sender, mediaSSRC: consumerSSRC, lostSequenceNumbers: lost, into: &writer)
            },
            try compound { writer throws(RTCPError) in
                try RTCPPictureLossIndication.write(senderSSRC: sender, mediaSSRC: consumerSSRC, into: &writer)
            },
            try compound { writer throws(RTCPError) in
                try RTCPFullIntraRequest.write(
                    senderSSRC: sender, items: [RTCPFullIntraRequest.Item(ssrc: consumerSSRC, sequenceNumber: 1)], into: &writer)
            },
            try compound { writer throws(RTCPError) in
                try RTCPReceiverEstimatedMaximumBitrate.write(senderSSRC: sender, bitrate: 1_500_000, ssrcs: [consumerSSRC], into: &writer)
            },
            try RTCPWriter.bytes { writer throws(RTCPError) in
                try RTCPSenderReport.write(
                    senderSSRC: publisherSSRC, ntpTimestamp: 0xE000_0000_8000_0000, rtpTimestamp: 9000, senderPacketCount: 20,
                    senderOctetCount: 20_000, reportBlocks: [block], into: &writer)
                try RTCPSourceDescription.write(ssrc: publisherSSRC, cname: "fuzz", into: &writer)
            },
        ]
    }
}
