import AllocationCounter
import Glibc
import Synchronization

/// The two load-generator threads of one forwarding run: a publisher that sends pre-protected SRTP
/// packets at a fixed rate, and a receiver that drains the subscribers' sockets and counts what
/// arrives. Neither unprotects or allocates once running, and each publishes its thread CPU clock so
/// the harness can take its CPU time out of the process's.
final class LoadGenerator: @unchecked Sendable {
    /// Bytes between two pre-protected packets in `packets`; a multiple of 64, room for any trailer.
    static let packetStride = 1280
    static let receiveBufferBytes = 2048

    let publisherSocket: Int32
    let subscriberSockets: UnsafeMutablePointer<pollfd>
    let subscriberCount: Int
    let packets: UnsafeMutableRawPointer
    let lengths: UnsafeMutablePointer<Int>
    let packetCount: Int
    let packetsPerSecond: Int
    let packetsPerBurst: Int

    let stopRequested = Atomic<Bool>(false)
    let publisherFinished = Atomic<Bool>(false)
    let packetsSent = Atomic<Int>(0)
    let sendFailures = Atomic<Int>(0)
    let rtpReceived = Atomic<Int>(0)
    let rtcpReceived = Atomic<Int>(0)
    /// Thread CPU clocks (`pthread_getcpuclockid`; negative numbers), valid once `threadsStarted` is 2.
    let publisherClock = Atomic<Int32>(0)
    let receiverClock = Atomic<Int32>(0)
    let threadsStarted = Atomic<Int>(0)
    /// Monotonic time of the publisher's first burst; burst `k` is due at `scheduleOrigin + k * burstPeriod`.
    let scheduleOrigin = Atomic<UInt64>(0)
    var burstPeriod: UInt64 { UInt64(packetsPerBurst) * 1_000_000_000 / UInt64(packetsPerSecond) }
    /// Each thread's own allocation count, as it last published it.
    let publisherAllocations = Atomic<UInt64>(0)
    let receiverAllocations = Atomic<UInt64>(0)

    private var threads: [pthread_t] = []

    /// Takes ownership of the sockets and of the packet storage.
    init(
        publisherSocket: Int32, subscriberSockets: [Int32], packets: UnsafeMutableRawPointer,
        lengths: UnsafeMutablePointer<Int>, packetCount: Int, packetsPerSecond: Int, packetsPerBurst: Int
    ) {
        self.publisherSocket = publisherSocket
        subscriberCount = subscriberSockets.count
        self.subscriberSockets = .allocate(capacity: subscriberSockets.count)
        for (index, descriptor) in subscriberSockets.enumerated() {
            self.subscriberSockets[index] = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        }
        self.packets = packets
        self.lengths = lengths
        self.packetCount = packetCount
        self.packetsPerSecond = packetsPerSecond
        self.packetsPerBurst = packetsPerBurst
    }

    deinit {
        close(publisherSocket)
        for index in 0..<subscriberCount { close(subscriberSockets[index].fd) }
        subscriberSockets.deallocate()
        packets.deallocate()
        lengths.deallocate()
    }

    /// Starts both threads and returns once both have published their CPU clocks.
    func start() {
        threads.append(startThread { [self] in runReceiver() })
        threads.append(startThread { [self] in runPublisher() })
        while threadsStarted.load(ordering: .acquiring) < 2 {
            sleepNanoseconds(1_000_000)
        }
    }

    /// Stops the receiver (and the publisher if it still runs) and joins both.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        for thread in threads { pthread_join(thread, nil) }
        threads.removeAll()
    }

    /// Sleeps until `lead` nanoseconds before the next burst due at least `lead` from now: the worker has
    /// finished the previous burst by then (it runs well under one core), so counters read at that point
    /// see whole bursts only.
    func sleepUntilBeforeNextBurst(lead: UInt64) {
        let origin = scheduleOrigin.load(ordering: .relaxed)
        let period = burstPeriod
        let now = monotonicNanoseconds()
        let target = now + lead
        let burst = (target - origin + period - 1) / period
        let wake = origin + burst * period - lead
        var deadline = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }

    /// CPU nanoseconds both threads have used so far.
    func cpuNanoseconds() -> UInt64 {
        threadCPUNanoseconds(clockid_t(publisherClock.load(ordering: .acquiring)))
            + threadCPUNanoseconds(clockid_t(receiverClock.load(ordering: .acquiring)))
    }

    /// Allocations both threads have made so far (published at each burst / poll round).
    func allocations() -> UInt64 {
        publisherAllocations.load(ordering: .relaxed) + receiverAllocations.load(ordering: .relaxed)
    }

    /// Sends `packetsPerBurst` packets every `packetsPerBurst / packetsPerSecond` seconds, on an absolute
    /// schedule (a late wake-up is caught up, not lost), until every packet went out.
    private func runPublisher() {
        var clock = clockid_t()
        pthread_getcpuclockid(pthread_self(), &clock)
        publisherClock.store(Int32(clock), ordering: .relaxed)
        let period = burstPeriod
        var next = monotonicNanoseconds()
        scheduleOrigin.store(next, ordering: .relaxed)
        threadsStarted.add(1, ordering: .releasing)
        var index = 0
        var failures = 0
        while index < packetCount, !stopRequested.load(ordering: .relaxed) {
            var deadline = timespec(tv_sec: Int(next / 1_000_000_000), tv_nsec: Int(next % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            let end = min(index + packetsPerBurst, packetCount)
            while index < end {
                if send(publisherSocket, packets + index * Self.packetStride, lengths[index], 0) < 0 { failures += 1 }
                index += 1
            }
            packetsSent.store(index, ordering: .relaxed)
            sendFailures.store(failures, ordering: .relaxed)
            publisherAllocations.store(allocation_counter_this_thread(), ordering: .relaxed)
            next += period
        }
        publisherFinished.store(true, ordering: .releasing)
    }

    /// Polls the subscriber sockets and drains each readable one, counting RTP and RTCP datagrams.
    private func runReceiver() {
        var clock = clockid_t()
        pthread_getcpuclockid(pthread_self(), &clock)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.receiveBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        receiverClock.store(Int32(clock), ordering: .relaxed)
        threadsStarted.add(1, ordering: .releasing)
        var rtp = 0
        var rtcp = 0
        while !stopRequested.load(ordering: .relaxed) {
            if poll(subscriberSockets, nfds_t(subscriberCount), 20) > 0 {
                for index in 0..<subscriberCount where subscriberSockets[index].revents != 0 {
                    while recv(subscriberSockets[index].fd, buffer, Self.receiveBufferBytes, 0) > 0 {
                        // RFC 5761: RTCP packet types put the second byte's low seven bits in 64...95.
                        let second = buffer.load(fromByteOffset: 1, as: UInt8.self) & 0x7F
                        if second >= 64, second <= 95 { rtcp += 1 } else { rtp += 1 }
                    }
                }
            }
            rtpReceived.store(rtp, ordering: .relaxed)
            rtcpReceived.store(rtcp, ordering: .relaxed)
            receiverAllocations.store(allocation_counter_this_thread(), ordering: .relaxed)
        }
    }
}

/// The body of a pthread, carried through its `void *` argument.
private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// A plain pthread, so the load generator never shares the media plane's dispatch threads.
func startThread(_ body: @escaping () -> Void) -> pthread_t {
    var thread = pthread_t()
    let argument = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let status = pthread_create(
        &thread, nil,
        { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        }, argument)
    precondition(status == 0, "pthread_create failed: \(status)")
    return thread
}
