import Synchronization

/// The relay rings between every ordered pair of workers, made the first time a router spreads
/// between the two and kept for the plane's life. Each entry is published once, atomically, so the
/// packet path reads it without a lock and the control path makes it without a hop to either worker.
final class RelayRingTable: @unchecked Sendable {
    let workerCount: Int
    private let entries: UnsafeMutablePointer<AtomicLazyReference<RelayRing>>
    private let ringCapacity: Int

    init(workerCount: Int, ringCapacity: Int) {
        self.workerCount = workerCount
        self.ringCapacity = ringCapacity
        let count = workerCount * workerCount
        entries = .allocate(capacity: count)
        for index in 0..<count { (entries + index).initialize(to: AtomicLazyReference()) }
    }

    deinit {
        entries.deinitialize(count: workerCount * workerCount)
        entries.deallocate()
    }

    /// The ring from `source` to `target`, if one was made.
    @inline(__always)
    func ring(from source: Int, to target: Int) -> RelayRing? {
        entries[source * workerCount + target].load()
    }

    /// Makes the rings both ways between two workers, unless they exist.
    func connect(_ first: Int, _ second: Int) {
        for (source, target) in [(first, second), (second, first)] where ring(from: source, to: target) == nil {
            _ = entries[source * workerCount + target].storeIfNil(RelayRing(capacity: ringCapacity))
        }
    }
}
