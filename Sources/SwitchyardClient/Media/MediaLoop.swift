import CSystemShims
import Foundation
import Glibc
import Synchronization

/// One thread that owns many client media endpoints: it waits for any of their sockets with epoll,
/// drains each ready socket with `recvmmsg` into one shared batch of buffers, and ticks every endpoint
/// (pacing, RTCP, NACK, impairment queues) every `tickInterval`. A load test with a thousand
/// simulated clients runs them all here, so the bench spends its CPU on packets, not on threads.
///
/// Endpoint state is touched only on this thread; other threads reach it through `perform` and
/// `run`, which queue work for the loop and wake it through a pipe. The thread runs until `stop()`.
public final class MediaLoop: @unchecked Sendable {
    public static let tickInterval: UInt64 = 5_000_000
    private static let batchSize = 32

    private let poller: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private let stopping = Atomic<Bool>(false)
    private var endpoints: [UInt64: MediaEndpoint] = [:]
    private var nextToken: UInt64 = 1
    private let slots: UnsafeMutableBufferPointer<switchyard_datagram_slot>
    private let slotStorage: UnsafeMutableRawPointer
    private var thread: Thread?
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let hasFinished = Atomic<Bool>(false)

    public init(name: String = "switchyard-media") throws(MediaClientError) {
        poller = switchyard_poller_create()
        guard poller >= 0 else { throw .system(call: "epoll_create1", errno: errno) }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw .system(call: "pipe", errno: errno) }
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
        _ = fcntl(wakeWrite, F_SETFL, fcntl(wakeWrite, F_GETFL) | O_NONBLOCK)
        _ = switchyard_poller_add(poller, wakeRead, 0)
        slotStorage = .allocate(byteCount: Self.batchSize * 2048, alignment: 16)
        slots = .allocate(capacity: Self.batchSize)
        for index in 0..<Self.batchSize {
            slots[index] = switchyard_datagram_slot()
            slots[index].buffer = slotStorage + index * 2048
            slots[index].capacity = 2048
        }
        // The thread keeps the loop alive until `stop()`: endpoints must never outlive their loop.
        let thread = Thread { self.runLoop() }
        thread.name = name
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    deinit {
        close(poller)
        close(wakeRead)
        close(wakeWrite)
        slots.deallocate()
        slotStorage.deallocate()
    }

    /// Runs `body` on the loop's thread, soon.
    public func perform(_ body: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(body) }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Runs `body` on the loop's thread and returns its result.
    public func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            perform { continuation.resume(returning: body()) }
        }
    }

    /// Stops the thread and closes every endpoint's socket; waits until it has.
    public func stop() async {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let alreadyDone = finished.withLock { slot -> Bool in
                if hasFinished.load(ordering: .acquiring) { return true }
                slot = continuation
                return false
            }
            if alreadyDone { continuation.resume() }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    // MARK: Loop thread

    /// Takes an endpoint into the loop's ticks and, when it `reads`, its socket into the wait.
    func add(_ endpoint: MediaEndpoint, reads: Bool = true) {
        let token = nextToken
        nextToken += 1
        endpoints[token] = endpoint
        if reads { _ = switchyard_poller_add(poller, endpoint.descriptor, token) }
        endpointTokens[ObjectIdentifier(endpoint)] = token
    }

    func remove(_ endpoint: MediaEndpoint) {
        guard let token = endpointTokens.removeValue(forKey: ObjectIdentifier(endpoint)) else { return }
        _ = switchyard_poller_remove(poller, endpoint.descriptor)
        endpoints[token] = nil
    }

    private var endpointTokens: [ObjectIdentifier: UInt64] = [:]
    private var statistics = MediaLoopStatistics()

    /// Where the loop's thread spends its time, for telling whether it keeps up.
    public func loopStatistics() async -> MediaLoopStatistics {
        await run { self.statistics }
    }

    private func runLoop() {
        var tokens = [UInt64](repeating: 0, count: 256)
        var nextTick = MonotonicClock.now()
        while !stopping.load(ordering: .acquiring) {
            let now = MonotonicClock.now()
            let timeout = nextTick > now ? Int32((nextTick - now + 999_999) / 1_000_000) : 0
            let ready = tokens.withUnsafeMutableBufferPointer { switchyard_poller_wait(poller, $0.baseAddress, Int32($0.count), timeout) }
            statistics.wakeups += 1
            if ready > 0 {
                let arrival = MonotonicClock.now()
                for index in 0..<Int(ready) {
                    let token = tokens[index]
                    if token == 0 {
                        drainWakePipe()
                    } else {
                        endpoints[token]?.readable(now: arrival, slots: slots)
                        statistics.socketsRead += 1
                    }
                }
                statistics.receiveNanoseconds += MonotonicClock.now() - arrival
            }
            runPending()
            let afterIO = MonotonicClock.now()
            if afterIO >= nextTick {
                for endpoint in endpoints.values { endpoint.tick(now: afterIO) }
                nextTick = max(nextTick + Self.tickInterval, afterIO + Self.tickInterval / 2)
                statistics.ticks += 1
                statistics.tickNanoseconds += MonotonicClock.now() - afterIO
            }
        }
        runPending()
        endpoints.removeAll()
        endpointTokens.removeAll()
        let waiter = finished.withLock { slot -> CheckedContinuation<Void, Never>? in
            hasFinished.store(true, ordering: .releasing)
            defer { slot = nil }
            return slot
        }
        waiter?.resume()
    }

    /// Runs what other threads queued. Called on every wake-up, so the common case (nothing
    /// queued) takes the list without allocating: an empty array has no storage to copy.
    private func runPending() {
        let work = pending.withLock { work -> [@Sendable () -> Void] in
            guard !work.isEmpty else { return [] }
            let taken = work
            work = []
            return taken
        }
        for body in work { body() }
    }

    private func drainWakePipe() {
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 1) { buffer in
            while read(wakeRead, buffer.baseAddress, buffer.count) > 0 {}
        }
    }
}

/// Counters of a media loop's thread.
public struct MediaLoopStatistics: Equatable, Sendable {
    /// Returns from epoll_wait.
    public var wakeups: UInt64 = 0
    /// Ready sockets drained.
    public var socketsRead: UInt64 = 0
    /// Time spent draining sockets and handling what arrived.
    public var receiveNanoseconds: UInt64 = 0
    /// Tick rounds over every endpoint, and the time they took.
    public var ticks: UInt64 = 0
    public var tickNanoseconds: UInt64 = 0
}
