import SwitchyardClient

/// Reads the bandwidth scenario's timeline: for each step of the impaired subscriber's schedule, how
/// long the router's estimate took to reach what the path carries and how closely it stayed there.
struct BandwidthAnalysis {
    /// Down to this share above a binding cap, or up to this share below an unbinding target, is
    /// converged; how far under the cap it then goes is the lowest share.
    static let tolerance = 0.15

    let schedule: ImpairmentSchedule
    /// What the router sends the subscriber when nothing limits it, kbps.
    let sendingKbps: Double
    let measuredSeconds: Double

    func analyse(_ series: BenchReport.TimelineSeries, feedback: String) -> BenchReport.Bandwidth {
        var result = BenchReport.Bandwidth(subscriber: series.subscriber, feedback: feedback)
        let steps = schedule.steps.map { (startSeconds: $0.startSeconds, capacityKbps: Double($0.impairment.bandwidth) / 1000) }
        for (index, step) in steps.enumerated() where step.capacityKbps > 0 {
            let end = min(index + 1 < steps.count ? steps[index + 1].startSeconds : measuredSeconds, measuredSeconds)
            guard end > step.startSeconds else { continue }
            let binds = step.capacityKbps < sendingKbps
            let target = min(step.capacityKbps, sendingKbps)
            var entry = BenchReport.BandwidthStep(
                startSeconds: step.startSeconds, endSeconds: end, capacityKbps: step.capacityKbps, targetKbps: target)
            let points = series.points.filter { $0.seconds > step.startSeconds && $0.seconds <= end }
                .compactMap { point in point.estimateKbps.map { (seconds: point.seconds, kbps: $0) } }
            let converged = points.firstIndex { point in
                binds ? point.kbps <= (1 + Self.tolerance) * target : point.kbps >= (1 - Self.tolerance) * target
            }
            if let converged {
                entry.convergedAfterSeconds = points[converged].seconds - step.startSeconds
                let shares = points[converged...].map { $0.kbps / target }
                entry.meanShare = shares.reduce(0, +) / Double(shares.count)
                entry.lowestShare = shares.min()
                entry.highestShare = shares.max()
            }
            result.steps.append(entry)
        }
        return result
    }
}
