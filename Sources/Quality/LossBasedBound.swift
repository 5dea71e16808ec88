import Foundation

/// The loss-based ceiling on the estimate, from the share of packets the feedback reports lost.
/// There is none until loss first passes 10 %; then the ceiling is cut by half the loss (10 % loss
/// → −5 %) at most once per 300 ms, but not below what the receiver acknowledged as it is now (a
/// sender that cannot slow down, like a router forwarding one encoding into a full queue or a
/// policer, would otherwise drive it to the minimum while the path still carries the bottleneck's
/// rate). What arrives is the bottleneck's rate, not 85 % of it: with a margin, and with a floor that
/// could only fall (it was also held under the last estimate), one encoding into a kernel's 300 kbps
/// queue kept the estimate at 0.66-0.70 of the cap for the whole cap. Draining a queue the sender
/// filled is the delay-based part's cut, not this ceiling's. It holds while loss
/// stays between 2 % and 10 %, grows 8 % a second once loss is down to 2 % (at once to what the
/// receiver acknowledged, when that is more), and goes away when it has grown past the delay-based
/// rate. Random loss below 10 % therefore never drags the estimate
/// down; the delay-based part alone decides.
public struct LossBasedBound: Equatable, Sendable {
    static let lowLoss = 0.02
    static let highLoss = 0.10
    static let minimumPackets = 50
    static let minimumIntervalNanoseconds: UInt64 = 500_000_000
    static let cutIntervalNanoseconds: UInt64 = 300_000_000

    /// The ceiling, nil while loss has not called for one.
    public private(set) var bound: Double?
    /// The share lost in the last judged interval.
    public private(set) var lastLossFraction: Double = 0
    private var received = 0
    private var lost = 0
    private var lastEvaluation: UInt64?
    private var lastCut: UInt64?

    public init() {}

    public mutating func count(received: Bool) {
        if received { self.received += 1 } else { lost += 1 }
    }

    /// Judges the packets counted since the last judgement, if there are enough; `estimate` is the
    /// current estimate and `delayBased` the delay-based rate. Returns the ceiling.
    public mutating func update(estimate: Double, delayBased: Double, acknowledged: Double?, now: UInt64) -> Double? {
        let total = received + lost
        guard total >= Self.minimumPackets else { return bound }
        if let lastEvaluation, now &- lastEvaluation < Self.minimumIntervalNanoseconds { return bound }
        let elapsedSeconds = lastEvaluation.map { min(Double(now &- $0) / 1e9, 1) } ?? 0
        lastEvaluation = now
        let fraction = Double(lost) / Double(total)
        lastLossFraction = fraction
        received = 0
        lost = 0
        if fraction > Self.highLoss {
            if lastCut.map({ now &- $0 >= Self.cutIntervalNanoseconds }) ?? true {
                lastCut = now
                let cut = min(bound ?? estimate, estimate) * (1 - 0.5 * fraction)
                bound = max(cut, acknowledged ?? 0)
            }
        } else if fraction <= Self.lowLoss, let current = bound {
            // What arrived with no loss to speak of, the path evidently carries: a router forwarding
            // more than the ceiling (one encoding does not follow it) shows it at once.
            let grown = max(current * pow(1.08, elapsedSeconds) + 1000 * elapsedSeconds, acknowledged ?? 0)
            bound = grown >= delayBased ? nil : grown
        }
        return bound
    }

    /// A probe showed the path carries `proven`. Not while loss is heavy: a policer lets a short
    /// probe through on its burst allowance and drops the media that follows.
    public mutating func raise(to proven: Double) {
        guard lastLossFraction <= Self.highLoss, let current = bound else { return }
        bound = max(current, proven)
    }
}
