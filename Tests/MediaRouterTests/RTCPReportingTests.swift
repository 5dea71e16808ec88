import MediaTestSupport
import MediaControl
import RTPWire
import Testing

@testable import MediaRouter

/// RTCP both ways over real UDP: reports the router sends, reports and gaps it receives.
@Suite(.serialized) struct RTCPReportingTests {
    @Test func gapsInThePublishersStreamAreNackedUpstream() async throws {
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 41_700)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        try session.publish(from: 8, count: 5)
        var lost: [UInt16] = []
        for compound in try await onOwnThread { session.publisher.receiveRTCP(for: 400) } {
            compound.withUnsafeBytes { raw in
                guard let packets = try? RTCPCompoundPacket(parsing: raw) else { return }
                for case .genericNACK(let nack) in packets where nack.mediaSSRC == RoutedSession.videoSSRC {
                    nack.forEachLostSequenceNumber { lost.append($0) }
                }
            }
        }
        let expected = (5..<8).map { UInt16(truncatingIfNeeded: 65_500 + $0) }
        #expect(Array(lost.prefix(3)) == expected)
        #expect(Set(lost).isSubset(of: Set(expected)))
        let statistics = try await session.plane.statistics(router: session.router)
        #expect((statistics.producers.first?.nacksSent ?? 0) >= 1)
    }

    @Test func packetsRepairedByRetransmissionStillCountAsUplinkLoss() async throws {
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 41_700)
        defer { session.plane.shutdown() }
        // 40 packets of which every fourth never arrives the first time; the publisher answers the
        // router's NACKs, so in the end nothing is missing.
        try session.publish(from: 0, count: 1, keyFrameAt: [0])
        for index in 1..<40 where index % 4 != 0 { try session.publish(from: index, count: 1) }
        var nacked: Set<UInt16> = []
        for compound in try await onOwnThread { session.publisher.receiveRTCP(for: 200) } {
            compound.withUnsafeBytes { raw in
                guard let packets = try? RTCPCompoundPacket(parsing: raw) else { return }
                for case .genericNACK(let nack) in packets { nack.forEachLostSequenceNumber { nacked.insert($0) } }
            }
        }
        #expect(nacked.count == 9)
        for index in stride(from: 4, to: 40, by: 4) { try session.publish(from: index, count: 1) }
        try await Task.sleep(for: .milliseconds(700))
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.producers.first?.packetsLost == 0, "RFC 3550 counts the repairs as received")
        let uplink = try #require(statistics.transports.first { $0.transportID == session.publisherTransport }?.uplink)
        #expect(uplink.samples >= 1)
        // 9 of 40 lost on the way, folded into the smoothed loss (it would be 0 counting repairs as received).
        #expect(uplink.lossFraction > 0.05)
    }

    @Test func subscribersGetSenderReportsOnTheirTimelineAndThePublisherGetsReceiverReports() async throws {
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 41_800, reportInterval: .milliseconds(100))
        defer { session.plane.shutdown() }
        let consumer = session.consumers[0]
        try session.publish(from: 0, count: 10, keyFrameAt: [0])
        let packets = try await onOwnThread { session.subscribers[0].receiveRTP(count: 10) }
        #expect(packets.count == 10)
        var senderReport: (rtpTimestamp: UInt32, packets: UInt32)?
        for compound in try await onOwnThread { session.subscribers[0].receiveRTCP(for: 400) } {
            compound.withUnsafeBytes { raw in
                guard let parsed = try? RTCPCompoundPacket(parsing: raw) else { return }
                for case .senderReport(let report) in parsed where report.senderSSRC == consumer.ssrc {
                    senderReport = (report.rtpTimestamp, report.senderPacketCount)
                }
            }
        }
        let report = try #require(senderReport)
        #expect(report.packets == 10)
        // The report's RTP time follows the rewritten timeline: after the last packet sent, by less
        // than the time the test waited (0.5 s at 90 kHz).
        let ahead = report.rtpTimestamp &- packets.last!.timestamp
        #expect(ahead < 45_000)

        var receiverReportBlock: RTCPReportBlock?
        for compound in try await onOwnThread { session.publisher.receiveRTCP(for: 300) } {
            compound.withUnsafeBytes { raw in
                guard let parsed = try? RTCPCompoundPacket(parsing: raw) else { return }
                for case .receiverReport(let report) in parsed {
                    for block in report.reportBlocks where block.ssrc == RoutedSession.videoSSRC {
                        receiverReportBlock = block
                    }
                }
            }
        }
        let block = try #require(receiverReportBlock)
        #expect(block.cumulativeLost == 0)
        #expect(block.extendedHighestSequenceNumber & 0xFFFF == UInt32(UInt16(truncatingIfNeeded: 65_509)))
    }

    @Test func receiverReportsFromSubscribersFeedConsumerStatistics() async throws {
        let session = try await RoutedSession.make(subscriberCount: 2, portBase: 41_900)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        let lossy = session.consumers[0]
        let block = RTCPReportBlock(
            ssrc: lossy.ssrc, fractionLost: 77, cumulativeLost: 12, extendedHighestSequenceNumber: 5,
            jitter: 900, lastSenderReport: 0, delaySinceLastSenderReport: 0)
        try session.subscribers[0].sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x9999, reportBlocks: CollectionOfOne(block), into: &writer)
        }
        _ = try await onOwnThread { session.subscribers[0].receiveRTCP(for: 200) }
        let statistics = try await session.plane.statistics(router: session.router)
        let reported = try #require(statistics.consumers.first { $0.consumerID == lossy.consumerID })
        #expect(reported.fractionLost == 77)
        #expect(reported.packetsLost == 12)
        #expect(reported.jitterSeconds == 0.01)
        let other = try #require(statistics.consumers.first { $0.consumerID == session.consumers[1].consumerID })
        #expect(other.fractionLost == 0)
    }
}
