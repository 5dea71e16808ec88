/// When each recently sent packet left and how big it was, by transport-wide sequence number: a
/// fixed ring, so recording a send allocates nothing. Feedback that comes back after the ring has
/// moved on finds its slots reused and is ignored.
struct SentPacketHistory {
    /// Packets remembered: about 5 s at 800 packets a second, far longer than feedback takes.
    static let capacity = 4096

    private struct Entry {
        var sequenceNumber: UInt16 = 0
        var isValid = false
        var sendTime: UInt64 = 0
        var size: Int32 = 0
        var probeCluster: Int32 = 0
    }

    private var entries = [Entry](repeating: Entry(), count: Self.capacity)

    mutating func record(sequenceNumber: UInt16, sendTime: UInt64, size: Int, probeCluster: Int?) {
        entries[Int(sequenceNumber) & (Self.capacity - 1)] = Entry(
            sequenceNumber: sequenceNumber, isValid: true, sendTime: sendTime, size: Int32(clamping: size),
            probeCluster: Int32(clamping: probeCluster ?? 0))
    }

    /// The send of `sequenceNumber`, if the ring still holds it.
    func send(of sequenceNumber: UInt16) -> (sendTime: UInt64, size: Int, probeCluster: Int?)? {
        let entry = entries[Int(sequenceNumber) & (Self.capacity - 1)]
        guard entry.isValid, entry.sequenceNumber == sequenceNumber else { return nil }
        return (entry.sendTime, Int(entry.size), entry.probeCluster == 0 ? nil : Int(entry.probeCluster))
    }
}
