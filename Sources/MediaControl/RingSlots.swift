/// The preallocated storage of a single-producer / single-consumer ring: a power-of-two count of
/// slots of one size, cache-line aligned, addressed by an ever-growing index. The ring that owns
/// it keeps the indices and frees it in its `deinit`.
public struct RingSlots: @unchecked Sendable {
    /// Slots, a power of two.
    public let capacity: Int
    private let mask: Int
    private let slotBytes: Int
    private let storage: UnsafeMutableRawPointer

    /// - Parameter capacity: Slots; rounded up to a power of two (at least 2).
    public init(capacity: Int, slotBytes: Int) {
        var rounded = 1
        while rounded < max(2, capacity) { rounded <<= 1 }
        self.capacity = rounded
        mask = rounded - 1
        self.slotBytes = slotBytes
        storage = .allocate(byteCount: rounded * slotBytes, alignment: 64)
    }

    /// The slot an index falls on.
    @inline(__always)
    public func slot(_ index: Int) -> UnsafeMutableRawPointer {
        storage + (index & mask) * slotBytes
    }

    public func deallocate() {
        storage.deallocate()
    }
}
