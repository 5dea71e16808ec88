import CSystemShims
import Dispatch
import Glibc
import ICE
import MediaControl
import RTPWire
import Synchronization

/// One worker of the media plane: it owns its sockets, the routers pinned to it, and the preallocated
/// buffers every packet passes through. It waits on all its sockets with one epoll instance, drains
/// each readable socket with `recvmmsg` and handles every packet inline.
///
/// How it waits is `MediaRouterConfiguration.workerLoop` (`WorkerLoop`). By default (`.dispatchWait`)
/// the worker is a serial DispatchQueue whose one long-running item waits in `epoll_wait`: a burst
/// wakes one thread, control work (`perform`) is queued behind the item, and the eventfd makes the
/// wait return so the queue runs it. `.epoll` waits the same way on a thread of its own. `.dispatch`
/// puts one DispatchSourceRead over the epoll descriptor and a DispatchSourceTimer on the queue
/// instead; on Linux that costs a second wake-up per burst (libdispatch's manager thread, then a pool
/// thread), about 10 % more CPU per forwarded packet. (A DispatchSourceRead per socket, as the media
/// plane once had, cost a manager-thread wake-up and a futex hand-off per socket and burst.)
///
/// Confined to its queue or thread: every method but `init`, `start`, `perform`, `performAndWait` and
/// `stop` runs there (checked in debug builds). That confinement, not a lock, is what makes handing it
/// to the control path (`@unchecked Sendable`) safe.
final class Worker: @unchecked Sendable {
    /// Datagrams one receive call drains.
    static let receiveBatch = 64
    static let receiveSlotBytes = 2048
    /// Outgoing packets buffered before a flush; a read event flushes when it ends.
    static let sendArenaSlots = 2048
    /// Room for a 1500-byte packet plus any SRTP trailer.
    static let sendSlotBytes = 1536
    static let tickInterval: UInt64 = 20_000_000
    /// Readiness events one wait returns.
    static let readyBatch = 64

    let index: Int
    let configuration: MediaRouterConfiguration
    let events: AsyncStream<MediaEvent>.Continuation

    private let receiveSlots: UnsafeMutablePointer<switchyard_datagram_slot>
    private let receiveArena: UnsafeMutableRawPointer
    private let sendSlots: UnsafeMutablePointer<switchyard_datagram_slot>
    private let sendArena: UnsafeMutableRawPointer
    private let scratchSlots: UnsafeMutablePointer<switchyard_datagram_slot>
    private var sendSlotsUsed = 0
    /// Whether sends go out segmented (UDP GSO), as `media.udpSegmentation` asks, until the kernel refuses.
    private var segmentsSends: Bool
    private var dirtyTransports: ContiguousArray<Transport>

    /// The epoll instance over this worker's sockets and its wake-up eventfd; a socket's token is its
    /// descriptor.
    let poller: Int32
    let wakeDescriptor: Int32
    private let readyTokens: UnsafeMutablePointer<UInt64>
    /// Transports whose own socket the loop reads, by descriptor.
    private var readers: [Int32: Transport] = [:]
    /// `.dispatch`: the worker's queue, its read source over the epoll set and its tick timer.
    private let queue: DispatchQueue
    private var readSource: DispatchSourceRead?
    private var tickTimer: DispatchSourceTimer?
    private static let queueKey = DispatchSpecificKey<ObjectIdentifier>()
    /// Whether `start` ran and `stop` has not: until then the confinement check lets any thread in.
    private let isStarted = Atomic<Bool>(false)
    /// `.epoll`: work other threads queued for the worker's thread, and whether the loop still takes it.
    private let mailbox = Mutex(Mailbox())
    private var thread: pthread_t?
    /// `.dispatchWait`: control work was queued behind the waiting item.
    private let controlQueued = Atomic<Bool>(false)
    /// When the next tick is due (`.epoll`, `.dispatchWait`).
    private var nextTick: UInt64 = 0
    /// The running thread's id, which the thread itself records: other threads read it to tell whether
    /// they are on it (0 before it starts).
    private let threadID = Atomic<UInt>(0)
    private var isRunning = true

    private struct Mailbox {
        var work: [Job] = []
        var isStopped = false
    }

    /// Work for the worker's thread. What it captures is used only there, or handed back through a
    /// continuation or a semaphore, which is what makes carrying it across threads safe.
    private struct Job: @unchecked Sendable {
        let run: () -> Void
    }

    var routers: [RouterID: Router] = [:]
    /// The UDP socket this worker's WebRTC transports share, when configured, and how its datagrams find
    /// their transport: STUN by the local ICE username fragment, the rest by the address ICE verified.
    private(set) var sharedSocket: UDPSocket?
    var sharedSocketTransportsByAddress: [UInt64: Transport] = [:]
    /// Every WebRTC transport of this worker by its local ICE username fragment: how a STUN check on
    /// the shared socket or a new ICE-TCP connection finds its transport.
    var webRTCTransportsByUsernameFragment: [String: Transport] = [:]
    /// ICE-TCP (Worker+ICETCP): the listening socket, every open connection by descriptor, the
    /// connections not yet verified (in all and per client host), and those to write at the flush.
    var tcpListener: TCPListener?
    var tcpConnections: [Int32: ICETCPConnection] = [:]
    var unverifiedTCPConnections = 0
    var unverifiedTCPConnectionsByHost: [UInt32: Int] = [:]
    var tcpConnectionsToWrite: ContiguousArray<ICETCPConnection> = []
    /// The connection whose frame is being handled: STUN handling asks it to tell TCP from UDP.
    var tcpFrameSource: ICETCPConnection?
    /// The slot a TCP frame is handed to its transport in, as a datagram would be.
    let tcpFrameSlot: UnsafeMutablePointer<switchyard_datagram_slot>
    var tcpCounters = ICETCPCounters()
    var nextTCPSweepAt: UInt64 = 0
    /// When the listener, paused because the process ran out of descriptors, is watched again.
    var tcpListenerPausedUntil: UInt64?
    /// Datagrams and bytes through this worker's sockets since it started.
    private(set) var packetsReceived: UInt64 = 0
    private(set) var bytesReceived: UInt64 = 0
    var packetsSent: UInt64 = 0
    var bytesSent: UInt64 = 0
    /// The relay rings between workers (made when a router first spreads between two), and the
    /// eventfd that wakes each worker.
    let relayRings: RelayRingTable
    var peerWakeDescriptors: [Int32] = []
    /// Workers whose ring got messages since the last flush, to wake once each.
    private var ringsToWake: ContiguousArray<Int>
    private var ringAwaitsWake: [Bool]
    /// Copies of producers whose home is another worker, and the producers whose home this worker is,
    /// by producer id: what relay messages name.
    var relayedProducers: [UInt64: Producer] = [:]
    var homeProducers: [UInt64: Producer] = [:]
    /// Relay messages this worker wrote and read, and those about a producer it no longer has.
    private(set) var relayMessagesOut: UInt64 = 0
    private(set) var relayMessagesIn: UInt64 = 0
    private var relayMessagesUnclaimed: UInt64 = 0
    /// Time spent handling sockets, rings and ticks, for the worker's busy share.
    private(set) var busyNanoseconds: UInt64 = 0
    /// Overload shedding (Worker+Overload): the governor, the subscribers whose video it turned off
    /// (in that order), the queue limits per kind in nanoseconds (`UInt64.max` with shedding off), and
    /// what the forwarding rate and busy share are measured from.
    var overload: OverloadGovernor
    var videoShed: [Transport] = []
    let videoQueueLimit: UInt64
    let audioQueueLimit: UInt64
    var forwardedPacketsPerSecond = 0.0
    var overloadSample: (at: UInt64, packetsSent: UInt64, busy: UInt64)?
    /// Drops no live router owns: those of routers that have closed (so the plane's totals never go
    /// down), and shared-socket datagrams that no transport claims.
    private var unownedDrops = DropCounters()

    init(
        index: Int, configuration: MediaRouterConfiguration, relayRings: RelayRingTable, events: AsyncStream<MediaEvent>.Continuation
    ) throws(MediaControlError) {
        self.index = index
        self.relayRings = relayRings
        ringsToWake = []
        ringsToWake.reserveCapacity(configuration.workerCount)
        ringAwaitsWake = Array(repeating: false, count: configuration.workerCount)
        self.configuration = configuration
        self.events = events
        let shedding = configuration.overloadShedding
        overload = OverloadGovernor(configuration: shedding)
        videoQueueLimit = shedding.enabled ? UInt64(shedding.videoQueueLimit.nanoseconds) : .max
        audioQueueLimit = shedding.enabled ? UInt64(shedding.audioQueueLimit.nanoseconds) : .max
        segmentsSends = configuration.udpSegmentation
        poller = switchyard_poller_create()
        guard poller >= 0 else { throw .system(call: "epoll_create1", errno: errno) }
        wakeDescriptor = switchyard_wake_create()
        guard wakeDescriptor >= 0, switchyard_poller_add(poller, wakeDescriptor, UInt64(wakeDescriptor)) == 0 else {
            let failure = errno
            close(poller)
            throw .system(call: "eventfd", errno: failure)
        }
        readyTokens = .allocate(capacity: Self.readyBatch)
        receiveSlots = .allocate(capacity: Self.receiveBatch)
        receiveSlots.initialize(repeating: switchyard_datagram_slot(), count: Self.receiveBatch)
        receiveArena = .allocate(byteCount: Self.receiveBatch * Self.receiveSlotBytes, alignment: 64)
        for slot in 0..<Self.receiveBatch {
            receiveSlots[slot].buffer = receiveArena + slot * Self.receiveSlotBytes
            receiveSlots[slot].capacity = Self.receiveSlotBytes
        }
        sendSlots = .allocate(capacity: Self.sendArenaSlots)
        sendSlots.initialize(repeating: switchyard_datagram_slot(), count: Self.sendArenaSlots)
        sendArena = .allocate(byteCount: Self.sendArenaSlots * Self.sendSlotBytes, alignment: 64)
        for slot in 0..<Self.sendArenaSlots {
            sendSlots[slot].buffer = sendArena + slot * Self.sendSlotBytes
            sendSlots[slot].capacity = Self.sendSlotBytes
        }
        tcpFrameSlot = .allocate(capacity: 1)
        tcpFrameSlot.initialize(to: switchyard_datagram_slot())
        tcpFrameSlot.pointee.buffer = .allocate(byteCount: Self.receiveSlotBytes, alignment: 64)
        tcpFrameSlot.pointee.capacity = Self.receiveSlotBytes
        scratchSlots = .allocate(capacity: Int(SWITCHYARD_MAX_BATCH))
        scratchSlots.initialize(repeating: switchyard_datagram_slot(), count: Int(SWITCHYARD_MAX_BATCH))
        dirtyTransports = []
        dirtyTransports.reserveCapacity(Self.sendArenaSlots)
        queue = DispatchQueue(label: "switchyard-w\(index)", qos: .userInteractive)
        queue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        close(poller)
        close(wakeDescriptor)
        readyTokens.deallocate()
        receiveSlots.deallocate()
        receiveArena.deallocate()
        sendSlots.deallocate()
        sendArena.deallocate()
        scratchSlots.deallocate()
        tcpFrameSlot.pointee.buffer.deallocate()
        tcpFrameSlot.deallocate()
    }

    // MARK: - Waiting

    /// Starts waiting for the sockets. The queue's sources or the thread keep the worker alive until
    /// `stop()`.
    func start() {
        isStarted.store(true, ordering: .releasing)
        switch configuration.workerLoop {
        case .epoll:
            thread = startWorkerThread(name: "switchyard-w\(index)") { [self] in runLoop() }
        case .dispatchWait:
            nextTick = MediaClock.monotonicNow() + Self.tickInterval
            queue.async { [self] in waitOnQueue() }
        case .dispatch:
            let source = DispatchSource.makeReadSource(fileDescriptor: poller, queue: queue)
            source.setEventHandler { [self] in handleReadySockets() }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = DispatchTimeInterval.nanoseconds(Int(Self.tickInterval))
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(1))
            timer.setEventHandler { [self] in
                let now = MediaClock.monotonicNow()
                tick(now: now)
                busyNanoseconds &+= MediaClock.monotonicNow() &- now
            }
            readSource = source
            tickTimer = timer
            source.resume()
            timer.resume()
        }
    }

    /// Runs `body` on the worker, soon, after the work already queued. Once an `.epoll` worker has
    /// stopped, runs it on the caller's thread (nothing else touches the worker's objects then); a
    /// queue still runs it after its worker stopped.
    func perform(_ body: @escaping () -> Void) {
        let job = Job(run: body)
        switch configuration.workerLoop {
        case .dispatch:
            queue.async { job.run() }
            return
        case .dispatchWait:
            queue.async { job.run() }
            // Makes the waiting queue item return, so the queue runs this job.
            controlQueued.store(true, ordering: .sequentiallyConsistent)
            _ = switchyard_wake_signal(wakeDescriptor)
            return
        case .epoll:
            break
        }
        let wake: Bool? = mailbox.withLock { mailbox in
            guard !mailbox.isStopped else { return nil }
            mailbox.work.append(job)
            return mailbox.work.count == 1
        }
        switch wake {
        case nil: body()
        case true?: _ = switchyard_wake_signal(wakeDescriptor)
        case false?: break
        }
    }

    /// Runs `body` on the worker and waits for its result.
    func performAndWait<Result>(_ body: @escaping () -> Result) -> Result {
        if isOnWorker { return body() }
        if configuration.workerLoop == .dispatch { return queue.sync(execute: body) }
        let done = DispatchSemaphore(value: 0)
        var result: Result?
        perform {
            result = body()
            done.signal()
        }
        done.wait()
        return result!
    }

    /// Stops waiting after the work already queued, and returns once nothing of the worker runs.
    func stop() {
        switch configuration.workerLoop {
        case .dispatchWait:
            performAndWait { [self] in
                isRunning = false
                sharedSocket = nil
                closeTCP()
            }
        case .dispatch:
            guard let readSource, let tickTimer else { return }
            queue.sync {
                readSource.cancel()
                tickTimer.cancel()
                sharedSocket = nil
                closeTCP()
            }
            self.readSource = nil
            self.tickTimer = nil
        case .epoll:
            guard let thread else { return }
            performAndWait { [self] in
                isRunning = false
                sharedSocket = nil
                closeTCP()
            }
            pthread_join(thread, nil)
            self.thread = nil
        }
        isStarted.store(false, ordering: .releasing)
    }

    /// Whether the caller runs on the worker's queue or (`.epoll`) thread.
    var isOnWorker: Bool {
        switch configuration.workerLoop {
        case .dispatch, .dispatchWait: DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self)
        case .epoll: pthread_equal(threadID.load(ordering: .relaxed), pthread_self()) != 0
        }
    }

    /// `.dispatch`: the epoll set is readable. Handles every ready socket, again while a wait fills
    /// the whole batch, so the set is quiet when the handler returns.
    private func handleReadySockets() {
        let start = MediaClock.monotonicNow()
        var ready = Self.readyBatch
        while ready == Self.readyBatch {
            ready = Int(max(0, switchyard_poller_wait(poller, readyTokens, Int32(Self.readyBatch), 0)))
            _ = handleReady(ready)
        }
        busyNanoseconds &+= MediaClock.monotonicNow() &- start
    }

    /// Handles the `count` descriptors one wait found ready: drains each socket, and on the eventfd
    /// the relay rings. Returns whether the eventfd was among them.
    @inline(__always)
    private func handleReady(_ count: Int) -> Bool {
        var woken = false
        for slot in 0..<count {
            let descriptor = Int32(truncatingIfNeeded: readyTokens[slot])
            if descriptor == wakeDescriptor {
                _ = switchyard_wake_clear(wakeDescriptor)
                woken = true
            } else {
                handleReadable(descriptor)
            }
        }
        if woken { drainRelays() }
        return woken
    }

    /// Drains one readable socket of the epoll set.
    @inline(__always)
    private func handleReadable(_ descriptor: Int32) {
        if let transport = readers[descriptor] {
            drain(descriptor) { transport.handleDatagram($0, now: $1) }
        } else if descriptor == sharedSocket?.descriptor {
            drainSharedSocket()
        } else if let connection = tcpConnections[descriptor] {
            handleTCPReadiness(connection)
        } else if descriptor == tcpListener?.descriptor {
            acceptTCPConnections()
        }
    }

    /// `.dispatchWait`: one queue item that waits on the epoll set as the epoll thread does, until
    /// control work is queued behind it; it then returns so the queue runs that work, and queues
    /// itself again after it.
    private func waitOnQueue() {
        while isRunning {
            if waitOnce() && controlQueued.exchange(false, ordering: .sequentiallyConsistent) {
                queue.async { [self] in waitOnQueue() }
                return
            }
        }
    }

    /// One wait on the epoll set, then what it found and the tick when due. Returns whether the
    /// eventfd woke it (control work, or another worker's relay ring).
    private func waitOnce() -> Bool {
        let now = MediaClock.monotonicNow()
        let timeout = nextTick > now ? Int32((nextTick - now + 999_999) / 1_000_000) : 0
        let ready = switchyard_poller_wait(poller, readyTokens, Int32(Self.readyBatch), timeout)
        let start = MediaClock.monotonicNow()
        let woken = handleReady(Int(max(0, ready)))
        let afterIO = MediaClock.monotonicNow()
        if afterIO >= nextTick {
            tick(now: afterIO)
            nextTick = max(nextTick + Self.tickInterval, afterIO + Self.tickInterval / 2)
        }
        busyNanoseconds &+= MediaClock.monotonicNow() &- start
        return woken
    }

    /// `.epoll`: the worker's thread.
    private func runLoop() {
        threadID.store(pthread_self(), ordering: .relaxed)
        nextTick = MediaClock.monotonicNow() + Self.tickInterval
        while isRunning {
            // `perform` and other workers' relay rings signal the eventfd, so a wake-up by packets
            // alone leaves the mailbox's lock untouched.
            if waitOnce() { runQueuedWork() }
        }
        let remaining = mailbox.withLock { mailbox in
            mailbox.isStopped = true
            defer { mailbox.work = [] }
            return mailbox.work
        }
        for job in remaining { job.run() }
        threadID.store(0, ordering: .relaxed)
    }

    /// Runs what other threads queued.
    private func runQueuedWork() {
        let work = mailbox.withLock { mailbox -> [Job] in
            defer { mailbox.work = [] }
            return mailbox.work
        }
        for job in work { job.run() }
    }

    /// Starts reading a transport's own socket.
    func watch(_ socket: UDPSocket, for transport: Transport) throws(MediaControlError) {
        assertOnThread()
        let descriptor = socket.descriptor
        guard switchyard_poller_add(poller, descriptor, UInt64(descriptor)) == 0 else {
            throw .system(call: "epoll_ctl", errno: errno)
        }
        readers[descriptor] = transport
    }

    /// Stops reading a transport's own socket.
    func unwatch(_ transport: Transport) {
        assertOnThread()
        guard let descriptor = transport.socket?.descriptor, readers[descriptor] === transport else { return }
        _ = switchyard_poller_remove(poller, descriptor)
        readers[descriptor] = nil
    }

    /// Binds the socket WebRTC transports share and starts reading it.
    func openSharedSocket(address: String, port: UInt16) throws(MediaControlError) {
        assertOnThread()
        let socket = try UDPSocket(address: address, portRange: port...port, startingAt: port)
        guard switchyard_poller_add(poller, socket.descriptor, UInt64(socket.descriptor)) == 0 else {
            throw .system(call: "epoll_ctl", errno: errno)
        }
        sharedSocket = socket
    }

    /// Drains the shared socket, handing each datagram to the transport it belongs to: STUN by the local
    /// ICE username fragment, the rest by the address ICE verified.
    private func drainSharedSocket() {
        guard let socket = sharedSocket else { return }
        drain(socket.descriptor) { slot, now in
            let bytes = UnsafeRawBufferPointer(start: slot.pointee.buffer, count: slot.pointee.length)
            if let first = bytes.first, PacketClass.demultiplex(firstByte: first) == .stun {
                guard let fragment = Self.localUsernameFragment(of: bytes), let transport = webRTCTransportsByUsernameFragment[fragment],
                    transport.webRTC?.sharesWorkerSocket == true
                else {
                    unownedDrops.stun += 1
                    return
                }
                transport.handleDatagram(slot, now: now)
            } else if let transport = sharedSocketTransportsByAddress[IPv4Address.key(of: slot)] {
                transport.handleDatagram(slot, now: now)
            } else {
                unownedDrops.unverifiedSource += 1
            }
        }
    }

    /// The first half of a STUN USERNAME, "<our ufrag>:<their ufrag>"; the transport checks the rest.
    static func localUsernameFragment(of bytes: UnsafeRawBufferPointer) -> String? {
        guard let message = try? STUNMessage(parsing: bytes), let username = message.username,
            let colon = username.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        return String(decoding: username[..<colon], as: UTF8.self)
    }

    /// Forgets a WebRTC transport's routes: its username fragment, its shared-socket addresses and its
    /// ICE-TCP connections.
    func removeWebRTCRoutes(of transport: Transport) {
        if let link = transport.webRTC {
            // Only its own entries: each close costs what the transport had, not what the worker has.
            let fragment = link.ice.localCredentials.usernameFragment
            if webRTCTransportsByUsernameFragment[fragment] === transport { webRTCTransportsByUsernameFragment[fragment] = nil }
            for key in link.sharedSocketAddressKeys where sharedSocketTransportsByAddress[key] === transport {
                sharedSocketTransportsByAddress[key] = nil
            }
        }
        closeTCPConnections(of: transport)
    }

    private func tick(now: UInt64) {
        for router in routers.values {
            router.tick(now: now)
        }
        if tcpListener != nil, now >= nextTCPSweepAt {
            nextTCPSweepAt = now + Self.tcpSweepInterval
            sweepTCPConnections(now: now)
        }
        evaluateOverload(now: now)
        flush()
    }

    /// Reads a socket in `recvmmsg` batches into the preallocated slots, hands each datagram to `handle`
    /// inline, then flushes what that produced.
    @inline(__always)
    private func drain(_ descriptor: Int32, _ handle: (UnsafeMutablePointer<switchyard_datagram_slot>, UInt64) -> Void) {
        assertOnThread()
        for _ in 0..<64 {
            let received = switchyard_recv_batch(descriptor, receiveSlots, UInt32(Self.receiveBatch))
            guard received > 0 else { break }
            let now = MediaClock.monotonicNow()
            packetsReceived &+= UInt64(received)
            for slot in 0..<Int(received) {
                bytesReceived &+= UInt64(receiveSlots[slot].length)
                handle(receiveSlots + slot, now)
            }
            if received < Self.receiveBatch { break }
        }
        flush()
    }

    /// A send slot for `transport`, filled by the caller and queued with `enqueue`. Flushes first when the
    /// arena is full.
    @inline(__always)
    func sendSlot() -> (index: Int, buffer: UnsafeMutableRawBufferPointer) {
        if sendSlotsUsed == Self.sendArenaSlots { flush() }
        let index = sendSlotsUsed
        sendSlotsUsed += 1
        return (index, UnsafeMutableRawBufferPointer(start: sendSlots[index].buffer, count: Self.sendSlotBytes))
    }

    /// Gives back the most recent slot unused (protection failed).
    @inline(__always)
    func releaseLastSendSlot(_ index: Int) {
        if index == sendSlotsUsed - 1 { sendSlotsUsed -= 1 }
    }

    /// Queues a filled slot of `length` bytes to go out of `transport`'s socket to its remote address.
    @inline(__always)
    func enqueue(slot index: Int, length: Int, on transport: Transport) {
        enqueue(slot: index, length: length, on: transport, to: transport.remote!)
    }

    /// Queues a filled slot to go out of `transport`'s socket to `destination` (STUN and DTLS replies go
    /// to where the request came from).
    @inline(__always)
    func enqueue(slot index: Int, length: Int, on transport: Transport, to destination: IPv4Address) {
        if !transport.tcpConnections.isEmpty, let connection = transport.tcpConnections[destination.key] {
            queue(UnsafeRawBufferPointer(start: sendSlots[index].buffer, count: length), on: connection, of: transport)
            releaseLastSendSlot(index)
            return
        }
        let slot = sendSlots + index
        slot.pointee.length = length
        transport.bytesSent &+= UInt64(length)
        destination.write(into: slot)
        if transport.pendingSendCount == 0 { dirtyTransports.append(transport) }
        transport.pendingSends[transport.pendingSendCount] = UInt16(index)
        transport.pendingSendCount += 1
    }

    /// Sends everything queued, one `sendmmsg` per transport and per 64 packets; runs of equal-sized
    /// packets to one destination go as one segmented (GSO) send while the kernel takes them.
    func flush() {
        for transport in dirtyTransports {
            var sent = 0
            let pending = transport.pendingSendCount
            while sent < pending {
                let chunk = min(Int(SWITCHYARD_MAX_BATCH), pending - sent)
                for offset in 0..<chunk {
                    scratchSlots[offset] = sendSlots[Int(transport.pendingSends[sent + offset])]
                }
                let accepted = send(scratchSlots, count: chunk, from: transport.socket?.descriptor ?? -1)
                packetsSent &+= UInt64(accepted)
                for offset in 0..<accepted { bytesSent &+= UInt64(scratchSlots[offset].length) }
                if accepted < chunk { transport.router?.drops.sendFailed += UInt64(chunk - accepted) }
                sent += chunk
            }
            transport.pendingSendCount = 0
        }
        dirtyTransports.removeAll(keepingCapacity: true)
        sendSlotsUsed = 0
        if !tcpConnectionsToWrite.isEmpty { writeTCPConnections() }
        for target in ringsToWake {
            ringAwaitsWake[target] = false
            // The exchange is a full fence, paired with the receiver's in `drainRelays`: either it
            // sees the messages, or this sees the flag it cleared and wakes it.
            if let ring = relayRings.ring(from: index, to: target), !ring.awaitingDrain.exchange(true, ordering: .sequentiallyConsistent) {
                _ = switchyard_wake_signal(peerWakeDescriptors[target])
            }
        }
        ringsToWake.removeAll(keepingCapacity: true)
    }

    // MARK: - Relaying between workers

    /// Hands a message to worker `target` through this pair's ring; the target is woken when this
    /// burst's sends are flushed. A full ring drops and counts; nothing waits.
    @inline(__always)
    func relay(
        _ kind: RelayMessageKind, to target: Int, producer: ProducerID, encoding: Int, flag: Bool = false,
        payload: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) {
        guard let ring = relayRings.ring(from: index, to: target) else { return }
        guard ring.push(kind: kind, producer: producer.rawValue, encoding: UInt8(truncatingIfNeeded: encoding), flag: flag, payload: payload)
        else { return }
        relayMessagesOut &+= 1
        if !ringAwaitsWake[target] {
            ringAwaitsWake[target] = true
            ringsToWake.append(target)
        }
    }

    /// Reads every relay ring into this worker: packets for copies, requests for producers at home.
    private func drainRelays() {
        let now = MediaClock.monotonicNow()
        for source in 0..<relayRings.workerCount where source != index {
            guard let ring = relayRings.ring(from: source, to: index) else { continue }
            ring.awaitingDrain.store(false, ordering: .sequentiallyConsistent)
            relayMessagesIn &+= UInt64(ring.drain { message in handleRelayMessage(message, from: source, now: now) })
        }
        flush()
    }

    @inline(__always)
    private func handleRelayMessage(_ message: RelayRing.Message, from source: Int, now: UInt64) {
        switch message.kind {
        case .media:
            guard let copy = relayedProducers[message.producer], let packet = try? RTPPacket(parsing: message.payload) else {
                relayMessagesUnclaimed &+= 1
                return
            }
            copy.receiveRelayed(packet, encoding: Int(message.encoding), now: now)
        case .keyFrameRequest:
            guard let producer = homeProducers[message.producer] else {
                relayMessagesUnclaimed &+= 1
                return
            }
            producer.requestKeyFrame(encoding: Int(message.encoding), now: now, forNewReceiver: message.flag)
        case .nack:
            guard let producer = homeProducers[message.producer] else {
                relayMessagesUnclaimed &+= 1
                return
            }
            producer.resend(UnsafeRawBufferPointer(message.payload), encoding: Int(message.encoding), to: source, now: now)
        case .suspension:
            guard let copy = relayedProducers[message.producer] else {
                relayMessagesUnclaimed &+= 1
                return
            }
            copy.setSuspended(.atHome, message.flag, now: now)
        }
    }

    /// Sends `count` slots from `descriptor`; returns how many went out. The first refusal of
    /// segmentation turns it off for this worker, and the rest go one datagram at a time.
    @inline(__always)
    private func send(_ slots: UnsafeMutablePointer<switchyard_datagram_slot>, count: Int, from descriptor: Int32) -> Int {
        var accepted = 0
        if segmentsSends {
            var refused: Int32 = 0
            accepted = max(0, Int(switchyard_send_batch_segmented(descriptor, slots, UInt32(count), &refused)))
            guard refused != 0 else { return accepted }
            segmentsSends = false
        }
        let rest = switchyard_send_batch(descriptor, slots + accepted, UInt32(count - accepted))
        return accepted + max(0, Int(rest))
    }

    /// Closes a router and keeps its drop counts.
    func closeRouter(_ id: RouterID) {
        guard let router = routers.removeValue(forKey: id) else { return }
        unownedDrops.add(router.drops)
        for producer in router.producers.values { homeProducers[producer.id.rawValue] = nil }
        for copy in router.relayedProducers.values { relayedProducers[copy.id.rawValue] = nil }
        router.close()
    }

    /// This worker's share of the plane's statistics.
    func addStatistics(to totals: inout MediaPlaneStatistics) {
        var drops = unownedDrops
        for router in routers.values {
            drops.add(router.drops)
            totals.transports += router.transports.count
            totals.producers += router.producers.count
            totals.consumers += router.consumers.count
        }
        var own = WorkerStatistics(index: index)
        own.routers = routers.count
        own.transports = routers.values.reduce(0) { $0 + $1.transports.count }
        own.consumers = routers.values.reduce(0) { $0 + $1.consumers.count }
        own.producerCopies = relayedProducers.count
        own.packetsReceived = packetsReceived
        own.packetsSent = packetsSent
        own.busyNanoseconds = busyNanoseconds
        own.relayMessagesOut = relayMessagesOut
        own.relayMessagesIn = relayMessagesIn
        own.relayMessagesUnclaimed = relayMessagesUnclaimed
        own.tcpConnections = tcpConnections.count
        own.tcpConnectionsAccepted = tcpCounters.accepted
        own.tcpConnectionsRefused = tcpCounters.refused
        own.tcpConnectionsClosedUnverified = tcpCounters.closedUnverified
        own.tcpConnectionsTimedOut = tcpCounters.timedOut
        own.queueDelayNanoseconds = overload.lastWaits.least
        own.worstQueueDelayNanoseconds = overload.lastWaits.worst
        own.videoShedSubscribers = videoShed.count
        own.forwardedPacketsPerSecond = forwardedPacketsPerSecond
        own.sheddingSteps = overload.steps.shed
        own.restoringSteps = overload.steps.restored
        for other in 0..<relayRings.workerCount where other != index {
            if let outgoing = relayRings.ring(from: index, to: other) { own.relayDrops += outgoing.drops }
            if let incoming = relayRings.ring(from: other, to: index) { own.relayRingDepth += incoming.depth }
        }
        totals.workerDetails.append(own)
        totals.workers += 1
        totals.workersSegmentingSends += segmentsSends ? 1 : 0
        totals.routers += routers.values.reduce(0) { $0 + ($1.isHome ? 1 : 0) }
        totals.packetsReceived += packetsReceived
        totals.bytesReceived += bytesReceived
        totals.packetsSent += packetsSent
        totals.bytesSent += bytesSent
        totals.drops.merge(drops.byReason, uniquingKeysWith: +)
    }

    @inline(__always)
    func assertOnThread() {
        #if DEBUG
            precondition(!isStarted.load(ordering: .acquiring) || isOnWorker, "worker \(index) used off its queue or thread")
        #endif
    }
}

/// Starts a plain thread named `name` (as `top` and `perf` show it) that runs `body`.
private func startWorkerThread(name: String, _ body: @escaping () -> Void) -> pthread_t {
    final class Body {
        let name: String
        let run: () -> Void
        init(name: String, run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }
    }
    var thread = pthread_t()
    let argument = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
    let status = pthread_create(
        &thread, nil,
        { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = switchyard_name_current_thread(body.name)
            body.run()
            return nil
        }, argument)
    precondition(status == 0, "pthread_create failed: \(status)")
    return thread
}
