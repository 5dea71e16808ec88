import Glibc
import MediaControl
import Testing

@testable import MediaRouter

/// Closing routers and transports in the middle of traffic gives back what they held.
@Suite(.serialized) struct ResourceReleaseTests {
    @Test func repeatedSessionsClosedInTrafficDoNotGrowMemory() async throws {
        var residentAfterRound: [Int] = []
        for round in 0..<8 {
            let session = try await RoutedSession.make(subscriberCount: 60, portBase: 42_000)
            try session.publish(from: 0, count: 30, keyFrameAt: [0])
            if round % 2 == 0 {
                for transport in session.subscriberTransports { try await session.plane.closeTransport(transport) }
            }
            try await session.plane.closeRouter(session.router)
            try session.publish(from: 30, count: 10)
            session.plane.shutdown()
            residentAfterRound.append(Self.residentBytes())
        }
        // Each round holds 61 transports with SRTP contexts, a 1.5 MiB retransmission ring and the
        // worker's arenas (several MiB); a leak would add at least the ring every round. The first
        // rounds grow the allocator's arenas, so compare once they have settled.
        let growth = residentAfterRound[7] - residentAfterRound[3]
        #expect(growth < 3 << 19, "resident memory grew by \(growth) bytes over 4 rounds: \(residentAfterRound)")
    }

    @Test func closingATransportClosesItsProducersAndConsumers() async throws {
        let session = try await RoutedSession.make(subscriberCount: 3, portBase: 42_100)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        try await session.plane.closeTransport(session.publisherTransport)
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.producers.isEmpty)
        #expect(statistics.consumers.isEmpty)
        await #expect(throws: MediaControlError.unknownProducer(session.producer)) {
            try await session.plane.closeProducer(session.producer)
        }
        await #expect(throws: MediaControlError.unknownConsumer(session.consumers[0].consumerID)) {
            try await session.plane.pauseConsumer(session.consumers[0].consumerID, reason: .quality)
        }
    }

    private static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var size = 0
        var resident = 0
        _ = withUnsafeMutablePointer(to: &size) { sizePointer in
            withUnsafeMutablePointer(to: &resident) { residentPointer in
                withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
            }
        }
        return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
