import CSystemShims
import Dispatch
import Glibc
import ICE
import MediaControl

/// One thread of the media plane: a serial queue that owns its sockets, the routers pinned to it, and
/// the preallocated buffers every packet passes through.
///
/// Confined to `queue`: every method but `init` runs on it (checked in debug builds). That confinement,
/// not a lock, is what makes handing it to the control path (`@unchecked Sendable`) safe.
final class Worker: @unchecked Sendable {
    /// Datagrams one receive call drains.
    static let receiveBatch = 64
    static let receiveSlotBytes = 2048
    /// Outgoing packets buffered before a flush; a read event flushes when it ends.
    static let sendArenaSlots = 2048
    /// Room for a 1500-byte packet plus any SRTP trailer.
    static let sendSlotBytes = 1536
    static let tickInterval: DispatchTimeInterval = .milliseconds(20)

    let index: Int
    let queue: DispatchQueue
    let configuration: MediaRouterConfiguration
    let events: AsyncStream<MediaEvent>.Continuation

    private let receiveSlots: UnsafeMutablePointer<switchyard_datagram_slot>
    private let receiveArena: UnsafeMutableRawPointer
    private let sendSlots: UnsafeMutablePointer<switchyard_datagram_slot>
    private let sendArena: UnsafeMutableRawPointer
    private let scratchSlots: UnsafeMutablePointer<switchyard_datagram_slot>
    private var sendSlotsUsed = 0
    private var dirtyTransports: ContiguousArray<Transport>
    private var timer: DispatchSourceTimer?

    var routers: [RouterID: Router] = [:]
    /// The UDP socket this worker's WebRTC transports share, when configured, and how its datagrams find
    /// their transport: STUN by the local ICE username fragment, the rest by the address ICE verified.
    private(set) var sharedSocket: UDPSocket?
    private var sharedReadSource: DispatchSourceRead?
    var sharedSocketTransportsByUsernameFragment: [String: Transport] = [:]
    var sharedSocketTransportsByAddress: [UInt64: Transport] = [:]
    /// Datagrams and bytes through this worker's sockets since it started.
    private(set) var packetsReceived: UInt64 = 0
    private(set) var bytesReceived: UInt64 = 0
    private(set) var packetsSent: UInt64 = 0
    private(set) var bytesSent: UInt64 = 0
    /// Drops no live router owns: those of routers that have closed (so the plane's totals never go
    /// down), and shared-socket datagrams that no transport claims.
    private var unownedDrops = DropCounters()

    init(index: Int, configuration: MediaRouterConfiguration, events: AsyncStream<MediaEvent>.Continuation) {
        self.index = index
        self.configuration = configuration
        self.events = events
        queue = DispatchQueue(label: "switchyard.worker.\(index)", qos: .userInteractive)
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
        scratchSlots = .allocate(capacity: Int(SWITCHYARD_MAX_BATCH))
        scratchSlots.initialize(repeating: switchyard_datagram_slot(), count: Int(SWITCHYARD_MAX_BATCH))
        dirtyTransports = []
        dirtyTransports.reserveCapacity(Self.sendArenaSlots)
    }

    deinit {
        timer?.cancel()
        receiveSlots.deallocate()
        receiveArena.deallocate()
        sendSlots.deallocate()
        sendArena.deallocate()
        scratchSlots.deallocate()
    }

    /// Starts the worker's timer, which drives NACK retries, key-frame requests and RTCP reports.
    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.tickInterval, repeating: Self.tickInterval, leeway: .milliseconds(2))
        timer.setEventHandler { [unowned self] in tick() }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        timer = nil
        sharedReadSource?.cancel()
        sharedReadSource = nil
    }

    /// Binds the socket WebRTC transports share and starts reading it.
    func openSharedSocket(address: String, port: UInt16) throws(MediaControlError) {
        assertOnQueue()
        let socket = try UDPSocket(address: address, portRange: port...port, startingAt: port)
        let source = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor, queue: queue)
        source.setEventHandler { [unowned self] in drainSharedSocket() }
        source.resume()
        sharedSocket = socket
        sharedReadSource = source
    }

    /// Drains the shared socket, handing each datagram to the transport it belongs to: STUN by the local
    /// ICE username fragment, the rest by the address ICE verified.
    private func drainSharedSocket() {
        guard let socket = sharedSocket else { return }
        drain(socket.descriptor) { slot, now in
            let bytes = UnsafeRawBufferPointer(start: slot.pointee.buffer, count: slot.pointee.length)
            if let first = bytes.first, PacketClass.demultiplex(firstByte: first) == .stun {
                guard let fragment = Self.localUsernameFragment(of: bytes), let transport = sharedSocketTransportsByUsernameFragment[fragment]
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
    private static func localUsernameFragment(of bytes: UnsafeRawBufferPointer) -> String? {
        guard let message = try? STUNMessage(parsing: bytes), let username = message.username,
            let colon = username.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        return String(decoding: username[..<colon], as: UTF8.self)
    }

    /// Forgets a shared-socket transport's routes.
    func removeSharedSocketRoutes(of transport: Transport) {
        sharedSocketTransportsByUsernameFragment = sharedSocketTransportsByUsernameFragment.filter { $0.value !== transport }
        sharedSocketTransportsByAddress = sharedSocketTransportsByAddress.filter { $0.value !== transport }
    }

    private func tick() {
        let now = MediaClock.monotonicNow()
        for router in routers.values {
            router.tick(now: now)
        }
        flush()
    }

    /// Drains a transport's socket and handles every datagram inline, then flushes what it produced.
    func drain(_ transport: Transport) {
        drain(transport.socket.descriptor) { transport.handleDatagram($0, now: $1) }
    }

    /// Reads a socket in `recvmmsg` batches into the preallocated slots, hands each datagram to `handle`
    /// inline, then flushes what that produced.
    @inline(__always)
    private func drain(_ descriptor: Int32, _ handle: (UnsafeMutablePointer<switchyard_datagram_slot>, UInt64) -> Void) {
        assertOnQueue()
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
        let slot = sendSlots + index
        slot.pointee.length = length
        transport.bytesSent &+= UInt64(length)
        destination.write(into: slot)
        if transport.pendingSendCount == 0 { dirtyTransports.append(transport) }
        transport.pendingSends[transport.pendingSendCount] = UInt16(index)
        transport.pendingSendCount += 1
    }

    /// Sends everything queued, one `sendmmsg` per transport and per 64 packets.
    func flush() {
        for transport in dirtyTransports {
            var sent = 0
            let pending = transport.pendingSendCount
            while sent < pending {
                let chunk = min(Int(SWITCHYARD_MAX_BATCH), pending - sent)
                for offset in 0..<chunk {
                    scratchSlots[offset] = sendSlots[Int(transport.pendingSends[sent + offset])]
                }
                let result = switchyard_send_batch(transport.socket.descriptor, scratchSlots, UInt32(chunk))
                let accepted = max(0, Int(result))
                packetsSent &+= UInt64(accepted)
                for offset in 0..<accepted { bytesSent &+= UInt64(scratchSlots[offset].length) }
                if accepted < chunk { transport.router?.drops.sendFailed += UInt64(chunk - accepted) }
                sent += chunk
            }
            transport.pendingSendCount = 0
        }
        dirtyTransports.removeAll(keepingCapacity: true)
        sendSlotsUsed = 0
    }

    /// Closes a router and keeps its drop counts.
    func closeRouter(_ id: RouterID) {
        guard let router = routers.removeValue(forKey: id) else { return }
        unownedDrops.add(router.drops)
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
        totals.routers += routers.count
        totals.packetsReceived += packetsReceived
        totals.bytesReceived += bytesReceived
        totals.packetsSent += packetsSent
        totals.bytesSent += bytesSent
        totals.drops.merge(drops.byReason, uniquingKeysWith: +)
    }

    @inline(__always)
    func assertOnQueue() {
        #if DEBUG
            dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }
}
