/// Decides when the daemon hands back to the system the memory a burst of clients left behind.
///
/// glibc keeps what the daemon frees inside its heaps, and returns only what lies at the top of one:
/// after a flood of connections the pages their buffers, channels and event logs used stay
/// resident, free but scattered, until a `malloc_trim` gives them back. A trim walks every heap, so
/// the daemon asks for one only when a burst is over: when what it holds for clients has fallen from
/// the most it held since the last trim by `largeDrop`, or to half of it (by at least
/// `smallestDrop`), and never twice within `minimumInterval`.
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
    /// At most one trim per this interval, even when the load swings up and down.
    var minimumInterval: Duration = .seconds(5)

    /// The most clients held since the last trim.
    private var peak = 0
    private var lastTrim: ContinuousClock.Instant?

    /// Takes the number of clients the daemon holds now (open HTTP connections and session
    /// connections) and says whether to trim.
    mutating func observe(load: Int, now: ContinuousClock.Instant) -> Action {
        peak = max(peak, load)
        let drop = peak - load
        guard drop >= largeDrop || (drop >= smallestDrop && load * 2 <= peak) else { return .wait }
        if let lastTrim, now - lastTrim < minimumInterval { return .wait }
        lastTrim = now
        peak = load
        return .trim
    }
}
