import Synchronization

/// What a recording transport's consumers forward, on its way from the media worker to an archive's
/// writer thread: a bounded single-producer / single-consumer queue of preallocated packet slots.
/// The worker copies each RTP packet in (plain, as it would leave toward a subscriber before SRTP)
/// with the time it was forwarded; the writer drains them. A full ring refuses the packet and counts
/// it, so a slow disk costs the recording packets, never the worker its time.
///
/// Exactly one thread pushes (the router's worker) and one drains (the writer): the indices are
/// atomics with release / acquire ordering, so a slot's bytes are visible before the index that
/// publishes them.
public final class RecordingRing: @unchecked Sendable {
    /// One packet as the writer reads it; `bytes` is valid only during the drain's call.
    public struct Packet {
        /// When the worker forwarded it, in nanoseconds of the monotonic clock.
        public var forwardedAt: UInt64
        public var bytes: UnsafeRawBufferPointer

        public init(forwardedAt: UInt64, bytes: UnsafeRawBufferPointer) {
            self.forwardedAt = forwardedAt
            self.bytes = bytes
        }
    }

    static let headerBytes = 16
    /// Room for the largest packet a transport accepts.
    public static let payloadCapacity = 1504
    static let slotBytes = headerBytes + payloadCapacity

    private let slots: RingSlots
    /// Slots, a power of two.
    public var capacity: Int { slots.capacity }
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    private let refused = Atomic<UInt64>(0)
    private let accepted = Atomic<UInt64>(0)
    private let keyFrameWanted = Atomic<Bool>(false)

    /// - Parameter capacity: Slots; rounded up to a power of two.
    public init(capacity: Int) {
        slots = RingSlots(capacity: capacity, slotBytes: Self.slotBytes)
    }

    deinit {
        slots.deallocate()
    }

    /// Packets refused because the ring was full or the packet too large.
    public var drops: UInt64 { refused.load(ordering: .relaxed) }
    /// Packets taken.
    public var packets: UInt64 { accepted.load(ordering: .relaxed) }

    /// The writer lost video and needs a key frame to go on: the worker asks the publishers for one.
    public func requestKeyFrame() {
        keyFrameWanted.store(true, ordering: .relaxed)
    }

    /// Whether the writer asked for a key frame since the last call. Worker's thread only.
    public func takeKeyFrameRequest() -> Bool {
        keyFrameWanted.load(ordering: .relaxed) && keyFrameWanted.exchange(false, ordering: .relaxed)
    }

    /// Copies a packet into the next slot; false (and a drop counted) when the ring is full.
    /// Worker's thread only.
    @discardableResult
    public func push(_ bytes: UnsafeRawBufferPointer, forwardedAt: UInt64) -> Bool {
        let writeIndex = tail.load(ordering: .relaxed)
        guard bytes.count <= Self.payloadCapacity, writeIndex - head.load(ordering: .acquiring) < capacity else {
            refused.add(1, ordering: .relaxed)
            return false
        }
        let slot = slots.slot(writeIndex)
        slot.storeBytes(of: forwardedAt, as: UInt64.self)
        slot.storeBytes(of: UInt32(bytes.count), toByteOffset: 8, as: UInt32.self)
        if let base = bytes.baseAddress { (slot + Self.headerBytes).copyMemory(from: base, byteCount: bytes.count) }
        tail.store(writeIndex + 1, ordering: .releasing)
        accepted.add(1, ordering: .relaxed)
        return true
    }

    /// Hands every packet written so far to `handle`, oldest first, freeing each slot after its call.
    /// Writer's thread only. Returns how many it read.
    @discardableResult
    public func drain(_ handle: (Packet) -> Void) -> Int {
        let readIndex = head.load(ordering: .relaxed)
        let available = tail.load(ordering: .acquiring) - readIndex
        guard available > 0 else { return 0 }
        for index in readIndex..<(readIndex + available) {
            let slot = slots.slot(index)
            let length = Int(slot.load(fromByteOffset: 8, as: UInt32.self))
            handle(
                Packet(
                    forwardedAt: slot.load(as: UInt64.self),
                    bytes: UnsafeRawBufferPointer(start: slot + Self.headerBytes, count: length)))
            head.store(index + 1, ordering: .releasing)
        }
        return available
    }
}
