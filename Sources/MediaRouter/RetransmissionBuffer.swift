import RTPWire

/// The last packets a producer sent, kept so that a subscriber's NACK can be answered without asking
/// the publisher again.
///
/// A fixed ring of `capacity` slots indexed by `sequenceNumber & (capacity - 1)`. Every slot and its
/// bookkeeping live in one allocation made at init, so storing and looking up never allocate.
/// Packets are stored plain (before SRTP): each subscriber rewrites and protects its own copy.
///
/// Confined to the owning worker's thread, like the producer that owns it: it takes no lock, and the
/// buffers it returns point into its slots.
final class RetransmissionBuffer {
    /// The default slot size: a 1500-byte packet plus up to 36 bytes of SRTP tail room, and a
    /// multiple of the 64-byte slot alignment.
    static let defaultSlotSize = 1536
    /// Each slot starts on its own cache line, which also satisfies the 32-bit alignment SRTP
    /// needs when a caller protects straight from a copy of a slot.
    static let slotAlignment = 64
    /// The default `maxAge`: one second, in nanoseconds. Older retransmissions arrive after the
    /// receiver's jitter buffer has given up on the packet, so they only waste bandwidth.
    static let defaultMaxAge: UInt64 = 1_000_000_000

    /// Number of slots; a power of two.
    let capacity: Int
    /// Bytes per slot; longer packets are not stored.
    let slotSize: Int
    /// Nanoseconds after which a stored packet no longer answers a lookup.
    let maxAge: UInt64

    /// Packets stored.
    private(set) var storedCount = 0
    /// Packets not stored because they were longer than `slotSize`.
    private(set) var oversizedCount = 0
    /// Packets not stored because their slot already holds a newer packet (a very late arrival).
    private(set) var supersededCount = 0
    /// Lookups answered with a packet.
    private(set) var hitCount = 0
    /// Lookups for a packet that was never stored, was overwritten, or is older than `maxAge`.
    private(set) var missCount = 0

    /// Per-slot bookkeeping, kept apart from the packet bytes so that a slot holds a whole packet.
    private struct Slot {
        /// Sentinel for a slot that has never been written; no unwrapped sequence number reaches it.
        static let emptySequenceNumber = Int64.min

        /// The 64-bit unwrapped sequence number of the stored packet. Comparing this rather than the
        /// 16-bit one keeps a slot written one wrap (65 536 packets) or one ring (`capacity` packets)
        /// earlier from answering for the packet that should have replaced it but was lost.
        var sequenceNumber: Int64
        var storedAt: UInt64
        var length: Int
    }

    private let indexMask: Int
    private var unwrapper = SequenceNumberUnwrapper()
    /// The single allocation: `capacity * slotSize` packet bytes, then `capacity` `Slot` records.
    private let memory: UnsafeMutableRawPointer
    private let slots: UnsafeMutablePointer<Slot>

    /// Creates a buffer of `capacity` slots of `slotSize` bytes.
    ///
    /// - Parameters:
    ///   - capacity: Number of packets kept; a power of two, so indexing is a mask.
    ///   - maxAge: Nanoseconds a stored packet stays retrievable.
    ///   - slotSize: Bytes per slot; a positive multiple of `slotAlignment`.
    init(capacity: Int, maxAge: UInt64 = RetransmissionBuffer.defaultMaxAge, slotSize: Int = RetransmissionBuffer.defaultSlotSize) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "capacity must be a power of two")
        precondition(slotSize > 0 && slotSize % Self.slotAlignment == 0, "slotSize must be a positive multiple of \(Self.slotAlignment)")
        self.capacity = capacity
        self.slotSize = slotSize
        self.maxAge = maxAge
        indexMask = capacity - 1

        // The packet area is a multiple of 64 bytes long, so the records that follow it are aligned too.
        let packetBytes = capacity * slotSize
        precondition(Self.slotAlignment % MemoryLayout<Slot>.alignment == 0)
        memory = UnsafeMutableRawPointer.allocate(
            byteCount: packetBytes + capacity * MemoryLayout<Slot>.stride,
            alignment: Self.slotAlignment)
        slots = (memory + packetBytes).bindMemory(to: Slot.self, capacity: capacity)
        slots.initialize(repeating: Slot(sequenceNumber: Slot.emptySequenceNumber, storedAt: 0, length: 0), count: capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        memory.deallocate()
    }

    /// Copies a plain RTP packet into the slot for `sequenceNumber`.
    ///
    /// - Returns: Whether the packet was stored: it is not when it is longer than `slotSize`, or when
    ///   it arrives so late that its slot already holds a newer packet.
    @discardableResult
    func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16, now: UInt64) -> Bool {
        // Unwrap even packets we drop, so the unwrapper follows the stream across them.
        let unwrapped = unwrapper.unwrap(sequenceNumber)
        guard packet.count <= slotSize else {
            oversizedCount += 1
            return false
        }
        let index = Int(sequenceNumber) & indexMask
        // A reordered packet more than `capacity` behind must not evict the newer one in its slot.
        guard slots[index].sequenceNumber <= unwrapped else {
            supersededCount += 1
            return false
        }
        if let source = packet.baseAddress, packet.count > 0 {
            (memory + index * slotSize).copyMemory(from: source, byteCount: packet.count)
        }
        slots[index] = Slot(sequenceNumber: unwrapped, storedAt: now, length: packet.count)
        storedCount += 1
        return true
    }

    /// The stored packet with `sequenceNumber`, if it is still in its slot and younger than `maxAge`.
    ///
    /// The returned bytes point into the buffer and stay valid until the next `store`; copy them into
    /// the worker's scratch buffer before rewriting or protecting.
    func packet(sequenceNumber: UInt16, now: UInt64) -> UnsafeRawBufferPointer? {
        // `peek`, not `unwrap`: a subscriber's NACK must not move our view of the producer's stream.
        let unwrapped = unwrapper.peek(sequenceNumber)
        let index = Int(sequenceNumber) & indexMask
        let slot = slots[index]
        // A clock that never runs backwards makes `now < storedAt` impossible; treat it as age zero.
        let age = now >= slot.storedAt ? now - slot.storedAt : 0
        guard slot.sequenceNumber == unwrapped, age < maxAge else {
            missCount += 1
            return nil
        }
        hitCount += 1
        return UnsafeRawBufferPointer(start: memory + index * slotSize, count: slot.length)
    }
}
