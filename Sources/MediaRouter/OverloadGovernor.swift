/// Decides when a worker turns video off for a share of its subscribers, and when back on, from how
/// long packets waited in its sockets and how busy it was.
///
/// A packet's wait runs from the kernel taking it in (its receive timestamp) to its forwarding: the
/// time in its socket, and behind the fan-out of the packets read before it. The measure is the
/// least wait of an evaluation: a worker that keeps up catches up between bursts, so some packet of
/// every 100 ms goes out at once, however long the last packets of a big frame wait while the first
/// are fanned out to a thousand subscribers. A worker offered more than it can forward never catches
/// up: even its least wait grows, until packets wait past their limit and are dropped, which counts
/// as the same.
///
/// Fed the wait of every packet on the packet path (`observe`), judged at each evaluation
/// (`evaluate`, from the worker's tick); the worker carries its actions out. Time is `now:` in
/// nanoseconds.
struct OverloadGovernor {
    enum Action: Equatable {
        /// Turn video off for this many more subscribers.
        case shed(Int)
        /// Turn it back on for this many of those it is off for.
        case restore(Int)
    }

    /// How often the waits seen are judged.
    static let evaluationInterval: UInt64 = 100_000_000
    /// Least time after a step off before the next: the backlog of before the step must drain first.
    static let settleTime: UInt64 = 300_000_000
    /// `restoreAfter` doubles at most this many times.
    static let maximumBackoff = 16

    let configuration: OverloadShedding
    /// The least and the worst wait since the last evaluation (`UInt64.max`: no packet yet), and the
    /// last evaluation's (what the statistics show).
    private var leastWait = UInt64.max
    private var worstWait: UInt64 = 0
    private(set) var lastWaits: (least: UInt64, worst: UInt64) = (0, 0)
    private var nextEvaluationAt: UInt64?
    private var lastShedAt: UInt64?
    private var lastRestoreAt: UInt64?
    private var calmSince: UInt64?
    private var evaluationsOverThreshold = 0
    private var lateSinceEvaluation = false
    private(set) var backoff = 1
    private(set) var steps: (shed: UInt64, restored: UInt64) = (0, 0)

    init(configuration: OverloadShedding) {
        self.configuration = configuration
    }

    /// One packet's wait, from the kernel taking it in to its forwarding; 0 (no kernel stamp) is no
    /// measure. `late`: it waited past its kind's limit and was dropped.
    @inline(__always)
    mutating func observe(wait: UInt64, late: Bool) {
        guard wait != 0 else { return }
        if wait < leastWait { leastWait = wait }
        if wait > worstWait { worstWait = wait }
        if late { lateSinceEvaluation = true }
    }

    /// Judges the waits seen since the last evaluation, once per `evaluationInterval`.
    /// - Parameters:
    ///   - busyShare: The share of a core the worker was busy since the last evaluation.
    ///   - hasRoom: Whether the worker would stay under `restoreBelowBusyShare` of a core with the
    ///     next subscriber's video back on (the worker knows what it costs).
    ///   - subscribers: The worker's subscribers receiving video, whether shedding has it off or not.
    ///   - shed: How many of them shedding has turned off.
    /// - Returns: `.restore(n)`: at most n, as many as have room.
    mutating func evaluate(now: UInt64, busyShare: Double, hasRoom: Bool, subscribers: Int, shed: Int) -> Action? {
        guard configuration.enabled else { return nil }
        guard let due = nextEvaluationAt, now >= due else {
            if nextEvaluationAt == nil { nextEvaluationAt = now + Self.evaluationInterval }
            return nil
        }
        nextEvaluationAt = now + Self.evaluationInterval
        let wait = leastWait == .max ? 0 : leastWait
        let late = lateSinceEvaluation
        lastWaits = (wait, worstWait)
        leastWait = .max
        worstWait = 0
        lateSinceEvaluation = false
        let shedAbove = UInt64(configuration.shedAbove.nanoseconds)
        let step = max(1, Int((Double(subscribers) * configuration.stepShare).rounded(.up)))
        // Late drops clear a backlog fast, so the least wait falls while the worker still cannot keep
        // up: a drop for lateness counts as a wait past the threshold.
        if wait > shedAbove || late, busyShare >= configuration.busyShareToShed {
            calmSince = nil
            evaluationsOverThreshold += 1
            guard evaluationsOverThreshold >= configuration.evaluationsBeforeShedding, shed < subscribers,
                lastShedAt.map({ now - $0 >= Self.settleTime }) ?? true
            else { return nil }
            // Shedding again soon after a step back on: that step was one too many, so wait longer
            // before the next.
            if let restored = lastRestoreAt, now - restored < 2 * restoreAfter {
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
            lastShedAt = now
            steps.shed += 1
            return .shed(min(step, subscribers - shed))
        }
        evaluationsOverThreshold = 0
        guard shed > 0 else {
            backoff = 1
            calmSince = nil
            return nil
        }
        guard wait < shedAbove / 4, hasRoom else {
            calmSince = nil
            return nil
        }
        let since = calmSince ?? now
        calmSince = since
        guard now - since >= restoreAfter else { return nil }
        calmSince = now
        lastRestoreAt = now
        steps.restored += 1
        return .restore(min(shed, max(1, step / 2)))
    }

    private var restoreAfter: UInt64 {
        UInt64(configuration.restoreAfter.nanoseconds) * UInt64(backoff)
    }

    /// Whether the worker sheds, or is about to (its backlog has lasted as long as shedding waits
    /// for): it resends nothing then.
    func isShedding(shed: Int) -> Bool {
        configuration.enabled && (shed > 0 || evaluationsOverThreshold >= configuration.evaluationsBeforeShedding)
    }
}
