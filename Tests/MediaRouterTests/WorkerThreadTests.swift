import Glibc
import MediaControl
import Synchronization
import Testing

@testable import MediaRouter

/// A worker runs on a thread of its own: control work reaches it through the mailbox, in order, and
/// stopping ends the thread without stranding anyone who still calls in.
@Suite struct WorkerThreadTests {
    private func makePlane(portBase: UInt16, workers: Int = 1) throws -> MediaPlane {
        try MediaPlane(
            configuration: MediaRouterConfiguration(workerCount: workers, portRange: portBase...(portBase + 9)))
    }

    @Test func controlWorkRunsOnTheWorkersOwnThreadInOrder() throws {
        let plane = try makePlane(portBase: 43_000, workers: 2)
        defer { plane.shutdown() }
        let caller = pthread_self()
        let order = Mutex<[Int]>([])
        for value in 0..<100 {
            plane.workers[value % 2].perform { order.withLock { $0.append(value) } }
        }
        let threads = plane.workers.map { worker in
            worker.performAndWait { pthread_self() }
        }
        #expect(threads.allSatisfy { pthread_equal($0, caller) == 0 })
        #expect(pthread_equal(threads[0], threads[1]) == 0)
        let seen = order.withLock { $0 }
        #expect(seen.count == 100)
        #expect(seen.filter { $0 % 2 == 0 } == Array(stride(from: 0, to: 100, by: 2)))
        #expect(seen.filter { $0 % 2 == 1 } == Array(stride(from: 1, to: 100, by: 2)))
    }

    @Test func workAskedForOnTheWorkersThreadRunsAtOnceInsteadOfDeadlocking() throws {
        let plane = try makePlane(portBase: 43_020)
        defer { plane.shutdown() }
        let worker = plane.workers[0]
        let nested = worker.performAndWait { worker.performAndWait { 41 } + 1 }
        #expect(nested == 42)
    }

    @Test func afterShutdownTheControlSurfaceStillAnswers() async throws {
        let plane = try makePlane(portBase: 43_040)
        let router = try await plane.createRouter()
        plane.shutdown()
        // The routers closed with the plane; the request is answered (not left waiting on a thread
        // that has ended) and names the router.
        await #expect(throws: MediaControlError.unknownRouter(router)) {
            try await plane.statistics(router: router)
        }
        #expect(plane.workers[0].performAndWait { 7 } == 7)
    }
}
