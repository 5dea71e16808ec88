/// Datagrams held back by an impairment until their delivery time, first in first out (an impaired
/// path never reorders, so the head is always the next due). Storage is allocated on first use and
/// never grows; a packet that finds it full is dropped, like a full queue.
struct DelayLine {
    static let slotBytes = 1536
    let capacity: Int
    private var storage: UnsafeMutableRawBufferPointer?
    private var dueTimes: [UInt64] = []
    private var lengths: [Int] = []
    private var head = 0
    private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = capacity
    }

    mutating func release() {
        storage?.deallocate()
        storage = nil
    }

    /// Holds a copy of `bytes` until `dueAt`; false when the line is full and the datagram is dropped.
    mutating func enqueue(_ bytes: UnsafeRawBufferPointer, dueAt: UInt64) -> Bool {
        if storage == nil {
            storage = .allocate(byteCount: capacity * Self.slotBytes, alignment: 16)
            dueTimes = Array(repeating: 0, count: capacity)
            lengths = Array(repeating: 0, count: capacity)
        }
        guard count < capacity, bytes.count <= Self.slotBytes, let storage, let source = bytes.baseAddress else { return false }
        let index = (head + count) % capacity
        (storage.baseAddress! + index * Self.slotBytes).copyMemory(from: source, byteCount: bytes.count)
        dueTimes[index] = dueAt
        lengths[index] = bytes.count
        count += 1
        return true
    }

    /// Hands every datagram due by `now` to `body`, in order; `body` may change the bytes in place.
    mutating func drain(now: UInt64, _ body: (UnsafeMutableRawBufferPointer, Int) -> Void) {
        while count > 0, dueTimes[head] <= now, let storage {
            let slot = UnsafeMutableRawBufferPointer(start: storage.baseAddress! + head * Self.slotBytes, count: Self.slotBytes)
            let length = lengths[head]
            head = (head + 1) % capacity
            count -= 1
            body(slot, length)
        }
    }
}
