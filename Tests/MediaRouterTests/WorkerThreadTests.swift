import Glibc
import MediaControl
import Synchronization
import Testing

@testable import MediaRouter

/// A worker runs on its serial queue (or, with the epoll loop, a thread of its own): control work
/// reaches it there, in order, and stopping ends it without stranding anyone who still calls in.
@Suite struct WorkerThreadTests {
    private func makePlane(portBase: UInt16, workers: Int = 1, loop: WorkerLoop = .dispatch) throws -> MediaPlane {
        try MediaPlane(
            configuration: MediaRouterConfiguration(workerCount: workers, portRange: portBase...(portBase + 9), workerLoop: loop))
    }

    @Test(arguments: [(WorkerLoop.dispatch, UInt16(43_000)), (.epoll, 43_400), (.dispatchWait, 43_460)])
    func controlWorkRunsOnTheWorkerInOrder(loop: WorkerLoop, portBase: UInt16) throws {
        let plane = try makePlane(portBase: portBase, workers: 2, loop: loop)
        defer { plane.shutdown() }
        let order = Mutex<[Int]>([])
        let offWorker = Mutex(0)
        for value in 0..<100 {
            let worker = plane.workers[value % 2]
            worker.perform {
                if !worker.isOnWorker { offWorker.withLock { $0 += 1 } }
                order.withLock { $0.append(value) }
            }
        }
        #expect(plane.workers.allSatisfy { worker in worker.performAndWait { worker.isOnWorker } })
        #expect(plane.workers.allSatisfy { !$0.isOnWorker })
        if loop == .epoll {
            // Its own thread: neither the caller's nor the other worker's.
            let caller = pthread_self()
            let threads = plane.workers.map { worker in worker.performAndWait { pthread_self() } }
            #expect(threads.allSatisfy { pthread_equal($0, caller) == 0 })
            #expect(pthread_equal(threads[0], threads[1]) == 0)
        }
        #expect(offWorker.withLock { $0 } == 0)
        let seen = order.withLock { $0 }
        #expect(seen.count == 100)
        #expect(seen.filter { $0 % 2 == 0 } == Array(stride(from: 0, to: 100, by: 2)))
        #expect(seen.filter { $0 % 2 == 1 } == Array(stride(from: 1, to: 100, by: 2)))
    }

    @Test(arguments: [(WorkerLoop.dispatch, UInt16(43_020)), (.epoll, 43_420), (.dispatchWait, 43_480)])
    func workAskedForOnTheWorkerRunsAtOnceInsteadOfDeadlocking(loop: WorkerLoop, portBase: UInt16) throws {
        let plane = try makePlane(portBase: portBase, loop: loop)
        defer { plane.shutdown() }
        let worker = plane.workers[0]
        let nested = worker.performAndWait { worker.performAndWait { 41 } + 1 }
        #expect(nested == 42)
    }

    @Test(arguments: [(WorkerLoop.dispatch, UInt16(43_040)), (.epoll, 43_440), (.dispatchWait, 43_500)])
    func afterShutdownTheControlSurfaceStillAnswers(loop: WorkerLoop, portBase: UInt16) async throws {
        let plane = try makePlane(portBase: portBase, loop: loop)
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
