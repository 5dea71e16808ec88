/// The last packets a publisher sent, by sequence number, so NACKs can be answered with the very
/// same bytes. Fixed storage, allocated once.
struct SentPacketRing {
    static let slotBytes = 1400
    let capacity: Int
    private let storage: UnsafeMutableRawBufferPointer
    private var sequenceNumbers: [UInt16]
    private var lengths: [Int]

    init(capacity: Int = 512) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity * Self.slotBytes, alignment: 16)
        sequenceNumbers = Array(repeating: 0, count: capacity)
        lengths = Array(repeating: 0, count: capacity)
    }

    func release() {
        storage.deallocate()
    }

    mutating func store(_ packet: UnsafeRawBufferPointer, sequenceNumber: UInt16) {
        guard packet.count <= Self.slotBytes, let source = packet.baseAddress else { return }
        let index = Int(sequenceNumber) % capacity
        (storage.baseAddress! + index * Self.slotBytes).copyMemory(from: source, byteCount: packet.count)
        sequenceNumbers[index] = sequenceNumber
        lengths[index] = packet.count
    }

    /// Copies the stored packet into `buffer` and returns its length; nil when it was overwritten.
    func copy(sequenceNumber: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let index = Int(sequenceNumber) % capacity
        guard lengths[index] > 0, sequenceNumbers[index] == sequenceNumber else { return nil }
        buffer.baseAddress!.copyMemory(from: storage.baseAddress! + index * Self.slotBytes, byteCount: lengths[index])
        return lengths[index]
    }
}
