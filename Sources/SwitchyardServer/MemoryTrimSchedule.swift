/// Decides when the daemon hands back to the system the memory that freeing left resident.
///
/// glibc keeps what the daemon frees inside its heaps, and returns only what lies at the top of one:
/// after a flood of connections the pages their buffers, channels and event logs used stay
/// resident, free but scattered, until a `malloc_trim` gives them back. A trim walks every heap, so
/// the daemon asks for one only when there is something to give back: when a burst is over (what it
/// holds for clients has fallen from the most it held since the last trim by `largeDrop`, or to half
/// of it by at least `smallestDrop`), or when the freed memory glibc keeps resident has grown by
/// `freedGrowthWorthATrim` since the last trim left it; and never twice within `minimumInterval`.
struct MemoryTrimSchedule {
    enum Action: Equatable {
        case trim
        case wait
    }

    /// Clients gone that end a burst whatever the daemon still holds.
    var largeDrop = 100
    /// Fewer clients gone than this are not worth a walk over the heaps, even when they were half of
    /// the load. Clients that leave after their reconnection grace can hold their event logs, up to
    /// `maxReplayBytes` each: a few dozen of them are tens of MB.
    var smallestDrop = 16
    /// Freed memory kept resident, grown by this much since the last trim, is worth a trim even when
    /// the number of clients hardly moved: faults, reconnections and large broadcasts to the same few
    /// clients free memory scattered through the heaps, which otherwise stays resident and, since
    /// later allocations land elsewhere, keeps growing (a chaos run's nodes: 0.4–1.7 MB per fault,
    /// three quarters of it free to glibc).
    var freedGrowthWorthATrim = 2 << 20
    /// At most one trim per this interval, even when the load swings up and down.
    var minimumInterval: Duration = .seconds(5)

    /// The most clients held since the last trim.
    private var peak = 0
    private var lastTrim: ContinuousClock.Instant?
    /// The freed memory kept resident after the last trim (before one, at the first reading).
    private var freedAfterTrim: Int?

    /// Takes the number of clients the daemon holds now (open HTTP connections and session
    /// connections) and the freed memory glibc keeps resident now (`switchyard_freed_resident_bytes`),
    /// and says whether to trim.
    mutating func observe(load: Int, freedResidentBytes: Int, now: ContinuousClock.Instant) -> Action {
        peak = max(peak, load)
        let freedBaseline = freedAfterTrim ?? freedResidentBytes
        freedAfterTrim = freedBaseline
        let drop = peak - load
        let burstEnded = drop >= largeDrop || (drop >= smallestDrop && load * 2 <= peak)
        let freedMemoryGrew = freedResidentBytes - freedBaseline >= freedGrowthWorthATrim
        guard burstEnded || freedMemoryGrew else { return .wait }
        if let lastTrim, now - lastTrim < minimumInterval { return .wait }
        lastTrim = now
        peak = load
        return .trim
    }

    /// Takes the freed memory kept resident once a trim is done: what a trim cannot give back (whole
    /// pages only, and the rest that is not malloc's), from which the next growth counts.
    mutating func trimmed(freedResidentBytes: Int) {
        freedAfterTrim = freedResidentBytes
    }
}
