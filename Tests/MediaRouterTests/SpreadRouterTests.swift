import Dispatch
import Glibc
import MediaControl
import MediaTestSupport
import RTPWire
import Testing

@testable import MediaRouter

/// One router over two workers: past the spread threshold, subscribers go to the worker with the
/// fewest consumers and receive the publisher's packets through the relay ring between the workers.
@Suite(.serialized) struct SpreadRouterTests {
    /// Two workers, and a threshold of 2: subscribers 0 and 1 stay on the publisher's worker, the
    /// rest go to whichever worker has fewer consumers (home on a tie). Kept packets answer NACKs for
    /// a minute, so a loaded machine cannot age them out before a test's NACK arrives.
    private func makeSession(
        subscribers: Int, portBase: UInt16, relayRingCapacity: Int = 1024, loop: WorkerLoop = .dispatchWait
    ) async throws -> RoutedSession {
        try await RoutedSession.make(
            subscriberCount: subscribers, portBase: portBase, workerCount: 2, spreadThreshold: 2, relayRingCapacity: relayRingCapacity,
            workerLoop: loop, retransmissionMaxAge: .seconds(60))
    }

    /// The worker each subscriber's transport landed on.
    private func workerIndices(_ session: RoutedSession) -> [Int] {
        session.subscriberTransports.map { id in
            session.plane.workers.firstIndex { worker in
                worker.performAndWait { worker.routers[session.router]?.transports[id] != nil }
            } ?? -1
        }
    }

    @Test(arguments: [(WorkerLoop.epoll, UInt16(45_000)), (.dispatch, 45_500), (.dispatchWait, 45_900)])
    func subscribersOnBothWorkersReceiveIdenticalPayloadsWithContinuousSequenceNumbers(loop: WorkerLoop, portBase: UInt16) async throws {
        let session = try await makeSession(subscribers: 6, portBase: portBase, loop: loop)
        defer { session.plane.shutdown() }
        let home = session.plane.workers.firstIndex { worker in
            worker.performAndWait { worker.routers[session.router]?.producers[session.producer] != nil }
        }
        let other = 1 - home!
        #expect(workerIndices(session) == [home!, home!, other, other, home!, other])
        try session.publish(from: 0, count: 60, keyFrameAt: [0])
        for (subscriber, consumer) in zip(session.subscribers, session.consumers) {
            let packets = try await onOwnThread { subscriber.receiveRTP(count: 60) }
            #expect(packets.count == 60)
            #expect(packets.map(\.payload) == (0..<60).map { VP8TestPayload.make(index: $0, keyFrame: $0 == 0) })
            #expect(packets.allSatisfy { $0.ssrc == consumer.ssrc })
            for index in packets.indices.dropFirst() {
                #expect(packets[index].sequenceNumber == packets[index - 1].sequenceNumber &+ 1)
                #expect(packets[index].timestamp &- packets[index - 1].timestamp == 3000)
            }
        }
        // One router's statistics over both workers: one producer, six consumers.
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.producers.map(\.producerID) == [session.producer])
        #expect(statistics.producers.first?.packetsReceived == 60)
        #expect(statistics.consumers.count == 6)
        #expect(statistics.consumers.allSatisfy { $0.packetsSent == 60 })
        // Each packet crossed once, not once per subscriber on the other worker.
        let plane = await session.plane.planeStatistics()
        #expect(plane.routers == 1)
        #expect(plane.workerDetails.map(\.consumers) == [3, 3])
        #expect(plane.workerDetails[home!].relayMessagesOut == 60)
        #expect(plane.workerDetails[1 - home!].relayMessagesIn >= 60)
        #expect(plane.workerDetails[1 - home!].producerCopies == 1)
        #expect(plane.workerDetails.allSatisfy { $0.relayDrops == 0 && $0.relayMessagesUnclaimed == 0 })
    }

    @Test(arguments: [(WorkerLoop.epoll, UInt16(45_100)), (.dispatch, 45_600), (.dispatchWait, 46_000)])
    func nackAndKeyFrameRequestsWorkAcrossWorkers(loop: WorkerLoop, portBase: UInt16) async throws {
        let session = try await makeSession(subscribers: 3, portBase: portBase, loop: loop)
        defer { session.plane.shutdown() }
        let remote = session.subscribers[2]
        let consumer = session.consumers[2]
        try session.publish(from: 0, count: 10, keyFrameAt: [0])
        for subscriber in session.subscribers.prefix(2) { #expect(try await onOwnThread { subscriber.receiveRTP(count: 10) }.count == 10) }
        // Packet 4 is lost between the router and the subscriber on the other worker; its NACK is
        // answered there, from the copy's retransmission ring.
        var received = try await onOwnThread { remote.receiveRTP(count: 4) }
        #expect(try await onOwnThread { remote.discardNext() })
        received += try await onOwnThread { remote.receiveRTP(count: 5) }
        let missing = received[3].sequenceNumber &+ 1
        try remote.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPGenericNACK.write(senderSSRC: 0x5555, mediaSSRC: consumer.ssrc, lostSequenceNumbers: [missing], into: &writer)
        }
        let resent = try await onOwnThread { remote.receiveRTP(count: 1) }
        #expect(resent.first?.sequenceNumber == missing)
        #expect(resent.first?.payload == VP8TestPayload.make(index: 4, keyFrame: false))
        // A PLI from that subscriber reaches the publisher through its home worker.
        _ = try await onOwnThread { session.publisher.receiveRTCP(for: 700) }
        try remote.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: 0x5555, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: 0x5555, mediaSSRC: consumer.ssrc, into: &writer)
        }
        #expect(pictureLossIndications(in: try await onOwnThread { session.publisher.receiveRTCP(for: 700) }) == 1)
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.consumers.first { $0.consumerID == consumer.consumerID }?.retransmittedPackets == 1)
        #expect(statistics.producers.first?.keyFrameRequestsSent ?? 0 >= 1)
    }

    /// A full ring drops rather than waits; the copy asks home for what it missed, and every
    /// subscriber on the other worker still gets every packet.
    @Test func packetsAFullRingDroppedAreResentFromHome() async throws {
        let session = try await makeSession(subscribers: 3, portBase: 45_200, relayRingCapacity: 16)
        defer { session.plane.shutdown() }
        let homeIndex = session.plane.workers.firstIndex { worker in
            worker.performAndWait { worker.routers[session.router]?.producers[session.producer] != nil }
        }!
        let other = session.plane.workers[1 - homeIndex]
        try session.publish(from: 0, count: 1, keyFrameAt: [0])
        #expect(try await onOwnThread { session.subscribers[2].receiveRTP(count: 1) }.count == 1)
        // The other worker is held busy while 40 packets cross: the 16-slot ring overflows.
        let holding = DispatchSemaphoreBox()
        other.perform {
            holding.signal()
            usleep(200_000)
        }
        holding.wait()
        try session.publish(from: 1, count: 40)
        // The copy learns of the gap from the next packet that reaches it, as from any publisher.
        try await Task.sleep(for: .milliseconds(300))
        try session.publish(from: 41, count: 2)
        let packets = try await onOwnThread { session.subscribers[2].receiveRTP(count: 42) }
        let expected = (1..<43).map { VP8TestPayload.make(index: $0, keyFrame: false) }
        let missing = expected.indices.filter { index in !packets.contains { $0.payload == expected[index] } }
        #expect(packets.count == 42)
        #expect(missing == [])
        let plane = await session.plane.planeStatistics()
        #expect(plane.workerDetails[homeIndex].relayDrops > 0)
    }

    /// Pauses, resumes and key-frame waits of a consumer on the other worker, as on one worker.
    @Test func aPausedSubscriberOnTheOtherWorkerResumesFromAKeyFrameWithoutASequenceGap() async throws {
        let session = try await makeSession(subscribers: 3, portBase: 45_700)
        defer { session.plane.shutdown() }
        let remote = session.subscribers[2]
        let consumer = session.consumers[2].consumerID
        // Delta frames before any key frame reach nobody, on either worker.
        try session.publish(from: 0, count: 5)
        try session.publish(from: 5, count: 10, keyFrameAt: [5])
        let before = try await onOwnThread { remote.receiveRTP(count: 10) }
        #expect(before.first?.payload == VP8TestPayload.make(index: 5, keyFrame: true))
        try await session.plane.pauseConsumer(consumer, reason: .subscriberChoice)
        try session.publish(from: 15, count: 10)
        _ = try await onOwnThread { session.publisher.receiveRTCP(for: 100) }
        try await session.plane.resumeConsumer(consumer, reason: .subscriberChoice)
        // The resume's key-frame request went home through the ring and on to the publisher.
        #expect(pictureLossIndications(in: try await onOwnThread { session.publisher.receiveRTCP(for: 1200) }) >= 1)
        try session.publish(from: 25, count: 5)
        try session.publish(from: 30, count: 5, keyFrameAt: [30])
        let after = try await onOwnThread { remote.receiveRTP(count: 5) }
        #expect(after.first?.payload == VP8TestPayload.make(index: 30, keyFrame: true))
        #expect(after.map(\.sequenceNumber) == (0..<5).map { before.last!.sequenceNumber &+ 1 &+ UInt16($0) })
        let statistics = try await session.plane.statistics(router: session.router)
        #expect(statistics.consumers.first { $0.consumerID == consumer }?.packetsSent == 15)
    }

    /// The publisher's audio-fallback suspension reaches the copy in order with the packets: nothing
    /// is forwarded on either worker while it holds, and every subscriber restarts from a key frame.
    @Test func thePublishersVideoSuspensionReachesSubscribersOnTheOtherWorker() async throws {
        let session = try await makeSession(subscribers: 3, portBase: 45_800)
        defer { session.plane.shutdown() }
        let home = session.plane.workers.first { worker in
            worker.performAndWait { worker.routers[session.router]?.producers[session.producer] != nil }
        }!
        let producer = session.producer
        let router = session.router
        func suspend(_ suspended: Bool) {
            home.performAndWait {
                home.routers[router]?.producers[producer]?.setSuspended(.uplinkQuality, suspended, now: MediaClock.monotonicNow())
                home.flush()
            }
        }
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        for subscriber in session.subscribers { #expect(try await onOwnThread { subscriber.receiveRTP(count: 5) }.count == 5) }
        suspend(true)
        try session.publish(from: 5, count: 5)
        // Sender reports go on; media does not.
        for subscriber in session.subscribers {
            let media = try await onOwnThread { subscriber.receivePackets(for: 200) }.filter { if case .rtp = $0 { true } else { false } }
            #expect(media.isEmpty)
        }
        suspend(false)
        try session.publish(from: 10, count: 3)
        try session.publish(from: 13, count: 3, keyFrameAt: [13])
        for subscriber in session.subscribers {
            let packets = try await onOwnThread { subscriber.receiveRTP(count: 3) }
            #expect(packets.map(\.payload) == (13..<16).map { VP8TestPayload.make(index: $0, keyFrame: $0 == 13) })
        }
    }

    @Test func closingTheRouterInTrafficFreesEveryObjectOnEveryWorker() async throws {
        let session = try await makeSession(subscribers: 6, portBase: 45_300)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 20, keyFrameAt: [0])
        var held: [WeakObject] = []
        for worker in session.plane.workers {
            held += worker.performAndWait {
                guard let router = worker.routers[session.router] else { return [] }
                var objects: [AnyObject] = [router]
                objects += router.transports.values.map { $0 as AnyObject }
                objects += router.producers.values.map { $0 as AnyObject }
                objects += router.relayedProducers.values.map { $0 as AnyObject }
                objects += router.consumers.values.map { $0 as AnyObject }
                return objects.map(WeakObject.init)
            }
        }
        // Two routers, seven transports, the producer and its copy, six consumers.
        let expected = 17
        #expect(held.count == expected)
        try await session.plane.closeRouter(session.router)
        try session.publish(from: 20, count: 10)
        for worker in session.plane.workers { worker.performAndWait {} }
        #expect(held.filter { $0.value != nil }.count == 0)
        #expect(session.plane.workers.allSatisfy { worker in worker.performAndWait { worker.relayedProducers.isEmpty && worker.homeProducers.isEmpty } })
    }

    /// Subscribers joining at once spread as those joining one after another do: a transport counts
    /// for the consumers it is made for from its placement on, not from its first consume.
    @Test func transportsPlacedAtOnceSpreadAsIfPlacedInTurn() async throws {
        let session = try await makeSession(subscribers: 0, portBase: 47_200)
        defer { session.plane.shutdown() }
        let (plane, router, producer) = (session.plane, session.router, session.producer)
        let placed = try await withThrowingTaskGroup(of: TransportID.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    let peer = try TestPeer()
                    let options = PlainTransportOptions(remoteAddress: peer.address, clientSRTP: peer.srtpParameters)
                    return try await plane.createPlainTransport(router: router, options: options, toConsume: [producer]).transportID
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let perWorker = plane.workers.map { worker in
            worker.performAndWait { placed.filter { worker.routers[router]?.transports[$0] != nil }.count }
        }
        #expect(perWorker == [3, 3], "two at home below the threshold, then the less-loaded worker each time: \(perWorker)")
        // Closing them gives back what their placement counted: the next one goes home again.
        for id in placed { try await plane.closeTransport(id) }
        let peer = try TestPeer()
        let next = try await plane.createPlainTransport(
            router: router, options: PlainTransportOptions(remoteAddress: peer.address, clientSRTP: peer.srtpParameters), toConsume: [producer])
        let home = plane.workers.firstIndex { worker in worker.performAndWait { worker.routers[router]?.producers[producer] != nil } }!
        #expect(plane.workers[home].performAndWait { plane.workers[home].routers[router]?.transports[next.transportID] != nil })
    }

    @Test func theLastSubscriberLeavingAWorkerEndsTheRelayThere() async throws {
        let session = try await makeSession(subscribers: 3, portBase: 45_400)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 5, keyFrameAt: [0])
        try await session.plane.closeTransport(session.subscriberTransports[2])
        try session.publish(from: 5, count: 5)
        for subscriber in session.subscribers.prefix(2) { #expect(try await onOwnThread { subscriber.receiveRTP(count: 10) }.count == 10) }
        let plane = await session.plane.planeStatistics()
        #expect(plane.workerDetails.allSatisfy { $0.producerCopies == 0 })
        // Nothing crossed after the copy went: five packets before, none after.
        let home = session.plane.workers.firstIndex { worker in
            worker.performAndWait { worker.routers[session.router]?.producers[session.producer] != nil }
        }!
        #expect(plane.workerDetails[home].relayMessagesOut == 5)
    }
}

private final class WeakObject {
    weak var value: AnyObject?
    init(_ value: AnyObject) { self.value = value }
}

/// A semaphore the test's closures can capture.
private final class DispatchSemaphoreBox: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func signal() { semaphore.signal() }
    func wait() { semaphore.wait() }
}
