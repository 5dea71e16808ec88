import Dispatch
import Glibc
import MediaControl
import MediaTestSupport
import Testing

@testable import MediaRouter

/// Overload shedding on a real worker: the worker is stalled on purpose while the publisher sends,
/// so its packets wait in the socket as they would behind a backlog, measured by the kernel's stamps.
/// (How busy a worker must be to shed is the governor's, tested in OverloadGovernorTests.)
@Suite(.serialized) struct OverloadSheddingTests {
    static let shedding = OverloadShedding(
        videoQueueLimit: .milliseconds(60), audioQueueLimit: .milliseconds(80), shedAbove: .milliseconds(20), stepShare: 0.5,
        restoreAfter: .seconds(1), restoreBelowBusyShare: 0.9, forwardingBudget: 0, evaluationsBeforeShedding: 1,
        busyShareToShed: 0)

    /// Stalls the worker for `milliseconds` and, once it is stalled, publishes `count` packets from `first`.
    static func stall(_ session: RoutedSession, milliseconds: Int, publishingFrom first: Int, count: Int) async throws {
        let stalled = DispatchSemaphore(value: 0)
        session.plane.workers[0].perform {
            stalled.signal()
            usleep(UInt32(milliseconds * 1000))
        }
        try await onOwnThread { stalled.wait() }
        try session.publish(from: first, count: count)
        try await Task.sleep(for: .milliseconds(milliseconds + 50))
    }

    static func workerStatistics(_ session: RoutedSession) async -> WorkerStatistics? {
        await session.plane.planeStatistics().workerDetails.first
    }

    @Test func lateMediaIsDroppedTheNewestSubscribersVideoGoesOffWhileTheBacklogLastsAndComesBackOnceCalm() async throws {
        let session = try await RoutedSession.make(subscriberCount: 2, portBase: 48_500, overloadShedding: Self.shedding)
        defer { session.plane.shutdown() }
        var events = session.plane.events.makeAsyncIterator()
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        for subscriber in session.subscribers {
            #expect(try await onOwnThread { subscriber.receiveRTP(count: 5) }.count == 5)
        }

        // What waited past the limit is dropped, and a step (half of two subscribers) goes off, the
        // newest first.
        // 500 ms against a 60 ms limit: the packets are late even if this thread is slow to send them.
        try await Self.stall(session, milliseconds: 500, publishingFrom: 5, count: 4)
        try await waitUntil("the newest subscriber's video is off") { await Self.workerStatistics(session)?.videoShedSubscribers == 1 }
        let drops = try await session.plane.statistics(router: session.router).drops
        #expect(drops["overloadLate"] == 4, "every packet that waited past the limit, and only those")
        while let event = await events.next() {
            guard case .overloadShedding(let transport, let videoOff) = event else { continue }
            #expect(transport == session.subscriberTransports[1] && videoOff)
            break
        }

        // On time again: the older subscriber gets video, the newest none until the calm has lasted.
        try session.publish(from: 9, count: 3, keyFrameAt: [9])
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 3) }.map(\.payload) == (9..<12).map {
            VP8TestPayload.make(index: $0, keyFrame: $0 == 9)
        })
        let meanwhile = try await onOwnThread { session.subscribers[1].receivePackets(for: 100) }
        #expect(!meanwhile.contains { if case .rtp = $0 { true } else { false } }, "no media while its video is off")
        try await waitUntil("the video is back after a second of calm") { await Self.workerStatistics(session)?.videoShedSubscribers == 0 }
        while let event = await events.next() {
            guard case .overloadShedding(let transport, let videoOff) = event else { continue }
            #expect(transport == session.subscriberTransports[1] && !videoOff)
            break
        }
        try session.publish(from: 12, count: 2, keyFrameAt: [12])
        #expect(try await onOwnThread { session.subscribers[1].receiveRTP(count: 2) }.map(\.payload).first == VP8TestPayload.make(index: 12, keyFrame: true))
        let statistics = await Self.workerStatistics(session)
        #expect(statistics?.sheddingSteps == 1 && statistics?.restoringSteps == 1)
    }

    @Test func aWorkerPastItsForwardingBudgetRefusesANewSubscriberAndSaysWhy() async throws {
        var budgeted = Self.shedding
        budgeted.forwardingBudget = 10
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 48_700, overloadShedding: budgeted)
        defer { session.plane.shutdown() }
        // Long enough for the stream's rate window (500 ms) and the worker's measured rate to see it.
        for index in 0..<40 {
            try session.publish(from: index, count: 1, keyFrameAt: [0])
            try await Task.sleep(for: .milliseconds(20))
        }
        try await waitUntil("the worker forwards more than its budget") { await Self.workerStatistics(session)?.forwardedPacketsPerSecond ?? 0 > 10 }
        let newcomer = try TestPeer()
        let transport = try await session.plane.createPlainTransport(
            router: session.router, options: PlainTransportOptions(remoteAddress: newcomer.address, clientSRTP: newcomer.srtpParameters))
        await #expect {
            _ = try await session.plane.consume(transport: transport.transportID, producer: session.producer, pauseReasons: [])
        } throws: { error in
            guard case .overloaded(let worker, let reason)? = error as? MediaControlError else { return false }
            return worker == 0 && reason.contains("past its budget of 10 (media.overload.forwardingBudget)")
        }
    }

    @Test func turnedOffEveryPacketIsForwardedHoweverLate() async throws {
        var off = Self.shedding
        off.enabled = false
        let session = try await RoutedSession.make(subscriberCount: 1, portBase: 48_600, overloadShedding: off)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 1, keyFrameAt: [0])
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 1) }.count == 1)
        for round in 0..<2 { try await Self.stall(session, milliseconds: 200, publishingFrom: 1 + 2 * round, count: 2) }
        #expect(try await onOwnThread { session.subscribers[0].receiveRTP(count: 4) }.count == 4)
        #expect(try await session.plane.statistics(router: session.router).drops["overloadLate"] == 0)
        #expect(await Self.workerStatistics(session)?.videoShedSubscribers == 0)
    }
}
