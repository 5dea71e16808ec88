import Foundation

/// What a chaos run must hold, computed from what it recorded: recovery per fault kind within its
/// allowance, signals exactly once or refused, no event gaps, `/health` answering outside a node's
/// own faults, and no node's memory, descriptors or UDP sockets growing across repeated faults.
enum ChaosInvariants {
    /// Slopes the resource samples may show at most, per fault.
    static let descriptorsPerFaultBound = 1.0
    static let udpSocketsPerFaultBound = 0.5
    static let rssMBPerFaultBound = 0.5
    /// A node process's memory is judged over at least this many samples taken once it has run
    /// `rssWarmUpSeconds`: a node just started takes sessions on, and what it keeps for a while
    /// (events for replay 45 s, signal ids for the 20 s grace, its allocator's arenas) fills up to its
    /// bounds, once; in the runs measured every process grew about 6 MB over its first 100-150 s and
    /// the one that lived on stayed there for 20 faults. What must not happen is growth fault after
    /// fault.
    static let rssSeriesMinimum = 6
    static let rssWarmUpSeconds = 150.0

    /// The least-squares slope of `values` over their indices; nil for fewer than 3 values.
    static func slope(_ values: [Double]) -> Double? {
        slope(values.enumerated().map { (Double($0.offset), $0.element) })
    }

    /// The least-squares slope of `points`; nil for fewer than 3 points or a single x.
    static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        guard points.count >= 3 else { return nil }
        let count = Double(points.count)
        let meanX = points.map(\.x).reduce(0, +) / count
        let meanY = points.map(\.y).reduce(0, +) / count
        var numerator = 0.0
        var denominator = 0.0
        for point in points {
            numerator += (point.x - meanX) * (point.y - meanY)
            denominator += (point.x - meanX) * (point.x - meanX)
        }
        return denominator > 0 ? numerator / denominator : nil
    }

    /// - Parameter retainingFaults: Faults after which a node holds memory by design until it ends
    ///   them (a reader that stopped reading: up to 4 MiB of its outbox, until the daemon cuts it off
    ///   after missed pings); the sample right after such a fault is left out of the memory trend.
    static func trends(of samples: [BenchReport.ChaosResourceSample], nodeNames: [String], retainingFaults: Set<Int> = [])
        -> BenchReport.ChaosTrends
    {
        var trends = BenchReport.ChaosTrends(
            descriptorsBound: descriptorsPerFaultBound, udpSocketsBound: udpSocketsPerFaultBound, rssMBBound: rssMBPerFaultBound)
        // The sample before the first fault is left out: the first fault moves sessions, and with
        // them what each node carries (cascade legs too), once; the trend is across repeated faults.
        let samples = samples.filter { $0.afterFault >= 0 }
        let rounds = Dictionary(grouping: samples, by: \.afterFault).sorted { $0.key < $1.key }.map(\.value)
        // A round missing a node (not back yet when sampled) would look like a drop: left out.
        let complete = rounds.filter { Set($0.map(\.node)).count == nodeNames.count }
        trends.descriptorsPerFault = slope(complete.map { Double($0.map(\.descriptors).reduce(0, +)) })
        trends.udpSocketsPerFault = slope(complete.map { Double($0.map(\.udpSockets).reduce(0, +)) })
        let series = Dictionary(grouping: samples) { "\($0.node)/\($0.pid)" }
        var pooled: [(x: Double, y: Double)] = []
        for values in series.values {
            let judged = values.filter { $0.ageSeconds >= rssWarmUpSeconds && !retainingFaults.contains($0.afterFault) }
                .sorted { $0.afterFault < $1.afterFault }
            if judged.count >= 2 {
                // Each process around its own means, so that one that runs higher is no slope.
                let meanFault = judged.map { Double($0.afterFault) }.reduce(0, +) / Double(judged.count)
                let meanRSS = judged.map(\.rssMB).reduce(0, +) / Double(judged.count)
                pooled += judged.map { (Double($0.afterFault) - meanFault, $0.rssMB - meanRSS) }
                trends.rssProcessesPooled += 1
            }
            guard judged.count >= rssSeriesMinimum, let rss = slope(judged.map { (Double($0.afterFault), $0.rssMB) }) else { continue }
            trends.rssSeriesJudged += 1
            if trends.rssMBPerFault.map({ rss > $0 }) ?? true {
                trends.rssMBPerFault = rss
                let node = values[0].node
                trends.rssSteepestNode = "\(nodeNames[node]) pid \(values[0].pid) (\(judged.count) samples judged)"
            }
        }
        trends.rssMBPerFaultWithinProcesses = slope(pooled)
        return trends
    }

    static func recovery(of faults: [BenchReport.ChaosFault]) -> [String: BenchReport.ChaosRecovery] {
        recovery(of: faults, time: \.recoveryMs, allowance: \.allowanceMs)
    }

    /// The WebRTC clients' recovery by kind, from the faults that had them (a WebRTC allowance).
    static func webrtcRecovery(of faults: [BenchReport.ChaosFault]) -> [String: BenchReport.ChaosRecovery] {
        recovery(of: faults.filter { $0.webrtcAllowanceMs > 0 }, time: \.webrtcRecoveryMs, allowance: \.webrtcAllowanceMs)
    }

    private static func recovery(
        of faults: [BenchReport.ChaosFault], time: KeyPath<BenchReport.ChaosFault, Double?>, allowance: KeyPath<BenchReport.ChaosFault, Double>
    ) -> [String: BenchReport.ChaosRecovery] {
        var result: [String: BenchReport.ChaosRecovery] = [:]
        for (kind, ofKind) in Dictionary(grouping: faults, by: \.kind) {
            let times = ofKind.compactMap { $0[keyPath: time] }.sorted()
            result[kind] = BenchReport.ChaosRecovery(
                count: ofKind.count, p50Ms: Measurement.percentile(times, 0.5), maxMs: times.last, allowanceMs: ofKind[0][keyPath: allowance],
                notRecovered: ofKind.count - times.count)
        }
        return result
    }

    static func checks(for chaos: BenchReport.Chaos?) -> [BenchReport.TargetCheck] {
        guard let chaos else { return [BenchReport.TargetCheck(name: "chaos run", limit: "a report", measured: "none", met: false)] }
        var checks: [BenchReport.TargetCheck] = []
        func check(_ name: String, _ limit: String, _ measured: Double?, unit: String = "", _ passes: (Double) -> Bool) {
            let shown = measured.map { String(format: "%.3g", $0) + unit } ?? "not measured"
            checks.append(BenchReport.TargetCheck(name: name, limit: limit, measured: shown, met: measured.map(passes) ?? false))
        }
        check("faults injected", "≥ 1", Double(chaos.faults.count)) { $0 >= 1 }
        let tables: [([String: BenchReport.ChaosRecovery], (String) -> String)] = [
            (chaos.recovery, { "\($0): every client whole again" }), (chaos.webrtcRecovery, { "WebRTC clients, \($0): decoding again" }),
        ]
        for (table, label) in tables {
            for kind in ChaosFaultKind.allCases {
                guard let recovery = table[kind.rawValue] else { continue }
                let allowance = recovery.allowanceMs / 1000
                let prefix = label(kind.rawValue)
                check(
                    "\(prefix), max over \(recovery.count)", "≤ \(String(format: "%g", allowance)) s",
                    recovery.notRecovered > 0 ? .infinity : recovery.maxMs.map { $0 / 1000 }, unit: " s"
                ) { $0 <= allowance }
            }
        }
        if !chaos.caps.isEmpty {
            check("caps under which the subscriber's video did not give way while its audio went on", "0", Double(chaos.caps.filter { !$0.gaveWay }.count)) { $0 == 0 }
            check("caps after which the subscriber's video did not come back", "0", Double(chaos.caps.filter { $0.videoBackMs == nil }.count)) { $0 == 0 }
            check("other clients without media during a cap", "0", Double(chaos.caps.map(\.othersWithoutMedia.count).reduce(0, +))) { $0 == 0 }
        }
        check("faults after whose recovery a client lost media again within 2 s", "0", Double(chaos.relapses)) { $0 == 0 }
        let signals = chaos.signals
        check("signals sent", "≥ 1", Double(signals.sent)) { $0 >= 1 }
        check("signals delivered twice", "0", Double(signals.duplicated)) { $0 == 0 }
        check("signals accepted and lost without a move", "0", Double(signals.lost)) { $0 == 0 }
        check("signals never answered nor delivered", "0", Double(signals.unanswered)) { $0 == 0 }
        check("event seq gaps", "0", Double(chaos.eventGaps)) { $0 == 0 }
        check("/health failures outside a node's own faults", "0", Double(chaos.health.failuresOutsideOwnFaults)) { $0 == 0 }
        let trends = chaos.trends
        check("descriptors over all nodes, per fault", "≤ \(trends.descriptorsBound)", trends.descriptorsPerFault) { $0 <= trends.descriptorsBound }
        check("UDP sockets over all nodes, per fault", "≤ \(trends.udpSocketsBound)", trends.udpSocketsPerFault) { $0 <= trends.udpSocketsBound }
        check("node RSS, steepest per fault", "≤ \(trends.rssMBBound) MB", trends.rssMBPerFault, unit: " MB") { $0 <= trends.rssMBBound }
        check("node RSS, within every process past its warm-up, per fault", "≤ \(trends.rssMBBound) MB", trends.rssMBPerFaultWithinProcesses, unit: " MB") {
            $0 <= trends.rssMBBound
        }
        return checks
    }
}
