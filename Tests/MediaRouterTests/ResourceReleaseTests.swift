import MediaTestSupport
import MediaControl
import Testing

@testable import MediaRouter

/// Closing routers and transports in the middle of traffic gives back what they held.
@Suite(.serialized) struct ResourceReleaseTests {
    /// Weak references to every object of a router, taken on its worker's thread.
    private struct Held {
        weak var router: Router?
        var transports: [Weak<Transport>] = []
        var producers: [Weak<Producer>] = []
        var consumers: [Weak<Consumer>] = []

        var alive: Int {
            (router == nil ? 0 : 1) + transports.filter { $0.value != nil }.count
                + producers.filter { $0.value != nil }.count + consumers.filter { $0.value != nil }.count
        }
    }

    private final class Weak<Object: AnyObject> {
        weak var value: Object?
        init(_ value: Object) { self.value = value }
    }

    private func hold(_ session: RoutedSession) -> Held {
        let worker = session.plane.workers[0]
        return worker.performAndWait {
            var held = Held()
            let router = worker.routers[session.router]!
            held.router = router
            held.transports = router.transports.values.map { Weak($0) }
            held.producers = router.producers.values.map { Weak($0) }
            held.consumers = router.consumers.values.map { Weak($0) }
            return held
        }
    }

    @Test func closingARouterInTrafficReleasesEveryObjectAndItsBuffers() async throws {
        let session = try await RoutedSession.make(subscriberCount: 20, portBase: 42_000)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 30, keyFrameAt: [0])
        let held = hold(session)
        #expect(held.alive == 1 + 21 + 1 + 20)
        try await session.plane.closeRouter(session.router)
        try session.publish(from: 30, count: 10)
        // Let the worker finish whatever read event was in flight, then nothing may remain: each
        // object frees its sockets, SRTP contexts and preallocated buffers in deinit.
        session.plane.workers[0].performAndWait {}
        #expect(held.alive == 0)
    }

    @Test func closingTransportsInTrafficReleasesThem() async throws {
        let session = try await RoutedSession.make(subscriberCount: 5, portBase: 42_200)
        defer { session.plane.shutdown() }
        try session.publish(from: 0, count: 10, keyFrameAt: [0])
        let held = hold(session)
        for transport in session.subscriberTransports { try await session.plane.closeTransport(transport) }
        try session.publish(from: 10, count: 10)
        session.plane.workers[0].performAndWait {}
        #expect(held.consumers.allSatisfy { $0.value == nil })
        #expect(held.transports.filter { $0.value != nil }.count == 1)
        #expect(held.producers.allSatisfy { $0.value != nil })
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
}
