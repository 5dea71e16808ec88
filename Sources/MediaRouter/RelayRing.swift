import MediaControl
import Synchronization

/// A bounded single-producer / single-consumer queue of relay messages from one worker to another:
/// preallocated slots of `slotBytes`, written by the sending worker and read by the receiving one,
/// with no lock and nothing allocated per message. A full ring refuses the message (the caller
/// counts the drop) rather than making the sender wait.
///
/// Exactly one thread pushes (the sending worker) and exactly one pops (the receiving worker): the
/// indices are atomics with release / acquire ordering, so a slot's bytes are visible before the
/// index that publishes them.
final class RelayRing: @unchecked Sendable {
    /// One message: what it is about, and up to `payloadCapacity` bytes.
    struct Message {
        var kind: RelayMessageKind
        /// The producer the message is about (its id on the home worker).
        var producer: UInt64
        /// The producer encoding (simulcast layer) it concerns.
        var encoding: UInt8
        /// A flag whose meaning depends on `kind` (a key-frame request's "for a new receiver").
        var flag: Bool
        var payload: UnsafeMutableRawBufferPointer
    }

    static let headerBytes = 16
    /// Room for the largest packet a transport accepts.
    static let payloadCapacity = 1504
    static let slotBytes = headerBytes + payloadCapacity

    private let slots: RingSlots
    /// Slots, a power of two.
    var capacity: Int { slots.capacity }
    /// The next slot the receiver reads, and the next the sender writes; both only grow.
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    /// Set by the sender when it asks the receiver to drain, cleared by the receiver before it does:
    /// one wake-up per burst, not per message.
    let awaitingDrain = Atomic<Bool>(false)
    /// Messages refused because the ring was full (counted by the sender only).
    private(set) var drops: UInt64 = 0

    /// - Parameter capacity: Slots; rounded up to a power of two.
    init(capacity: Int) {
        slots = RingSlots(capacity: capacity, slotBytes: Self.slotBytes)
    }

    deinit {
        slots.deallocate()
    }

    /// Messages written and not yet read; exact on either side's thread, a snapshot elsewhere.
    var depth: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Copies a message into the next slot. Returns false, and counts a drop, when the ring is full
    /// or the payload does not fit a slot. Sender's thread only.
    @discardableResult
    func push(kind: RelayMessageKind, producer: UInt64, encoding: UInt8, flag: Bool = false, payload: UnsafeRawBufferPointer) -> Bool {
        let writeIndex = tail.load(ordering: .relaxed)
        guard payload.count <= Self.payloadCapacity, writeIndex - head.load(ordering: .acquiring) < capacity else {
            drops &+= 1
            return false
        }
        let slot = slots.slot(writeIndex)
        slot.storeBytes(of: kind.rawValue, as: UInt8.self)
        slot.storeBytes(of: encoding, toByteOffset: 1, as: UInt8.self)
        slot.storeBytes(of: UInt16(payload.count), toByteOffset: 2, as: UInt16.self)
        slot.storeBytes(of: flag ? 1 : 0, toByteOffset: 4, as: UInt32.self)
        slot.storeBytes(of: producer, toByteOffset: 8, as: UInt64.self)
        if let base = payload.baseAddress { (slot + Self.headerBytes).copyMemory(from: base, byteCount: payload.count) }
        tail.store(writeIndex + 1, ordering: .releasing)
        return true
    }

    /// Hands every message written so far to `handle`, oldest first, then frees their slots. The
    /// payload is valid only during the call. Receiver's thread only. Returns how many it read.
    @discardableResult
    func drain(_ handle: (Message) -> Void) -> Int {
        let readIndex = head.load(ordering: .relaxed)
        let available = tail.load(ordering: .acquiring) - readIndex
        guard available > 0 else { return 0 }
        for index in readIndex..<(readIndex + available) {
            let slot = slots.slot(index)
            let kind = RelayMessageKind(rawValue: slot.load(as: UInt8.self)) ?? .media
            let length = Int(slot.load(fromByteOffset: 2, as: UInt16.self))
            handle(
                Message(
                    kind: kind, producer: slot.load(fromByteOffset: 8, as: UInt64.self),
                    encoding: slot.load(fromByteOffset: 1, as: UInt8.self),
                    flag: slot.load(fromByteOffset: 4, as: UInt32.self) != 0,
                    payload: UnsafeMutableRawBufferPointer(start: slot + Self.headerBytes, count: length)))
            // Each slot goes back as soon as it is read, so a long drain never holds the sender off.
            head.store(index + 1, ordering: .releasing)
        }
        return available
    }
}

/// What a relay message carries.
enum RelayMessageKind: UInt8 {
    /// Home to copy: one RTP packet of the producer (after unprotect and bookkeeping), or one resent
    /// because the copy asked.
    case media = 1
    /// Copy to home: a subscriber on the copy's worker needs a key frame of the encoding.
    case keyFrameRequest = 2
    /// Copy to home: sequence numbers (big-endian UInt16s) the copy never received.
    case nack = 3
    /// Home to copy: the home producer forwards nothing (`flag`: its publisher's audio-fallback policy
    /// turned its video off, it was muted, or it is quieter than the loudest) or forwards again.
    case suspension = 4
}
