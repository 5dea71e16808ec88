import MediaControl
import MediaTestSupport
import RTPWire
import Testing

@testable import MediaRouter

/// A recording transport on a real worker: its consumer forwards into the ring a writer drains,
/// and a writer that falls behind costs the recording its packets, never the other subscribers.
@Suite struct RecordingTransportTests {
    @Test func aRecordingGetsThePacketsPlainAndAFullRingDropsAndCountsWhileSubscribersGetEverything() async throws {
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 48_800)
        defer { session.plane.shutdown() }
        let ring = RecordingRing(capacity: 16)
        let recording = try await session.plane.createRecordingTransport(router: session.router, ring: ring)
        let consumer = try await session.plane.consume(
            transport: recording, producer: session.producer, pauseReasons: [])

        // Nobody drains the ring: it takes 16 packets, and the rest are dropped and counted.
        try session.publish(from: 0, count: 40, keyFrameAt: [0])
        #expect(
            try await onOwnThread { session.subscribers[0].receiveRTP(count: 40) }.count == 40,
            "the subscriber missed nothing")
        try await waitUntil("the ring is full") { ring.packets == 16 }
        let drops = try await session.plane.statistics(router: session.router).drops
        #expect(drops["recordingFull"] == 24 && ring.drops == 24)

        // What the writer reads is plain RTP on the consumer's SSRC, from the key frame on.
        var sequenceNumbers: [UInt16] = []
        var firstPayload: [UInt8]?
        ring.drain { packet in
            var bytes = Array(packet.bytes)
            bytes.withUnsafeMutableBytes { raw in
                guard let rtp = try? RTPPacket(parsing: raw) else { return }
                #expect(rtp.ssrc == consumer.ssrc)
                sequenceNumbers.append(rtp.sequenceNumber)
                if firstPayload == nil { firstPayload = Array(rtp.payload) }
            }
        }
        #expect(sequenceNumbers.count == 16)
        #expect(
            zip(sequenceNumbers, sequenceNumbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "in order, none missing")
        #expect(firstPayload == VP8TestPayload.make(index: 0, keyFrame: true))

        // Drained, it takes packets again.
        try session.publish(from: 40, count: 10)
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 10) }.count == 10)
        try await waitUntil("the ring took the new packets") { ring.packets == 26 }
    }
}
