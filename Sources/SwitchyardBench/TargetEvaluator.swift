import Foundation

/// The targets the project claims, checked against a report. A target is listed only when the run
/// is the kind that can show it.
enum TargetEvaluator {
    static func targets(for report: BenchReport) -> [BenchReport.TargetCheck] {
        var checks: [BenchReport.TargetCheck] = []
        func check(_ name: String, _ limit: String, _ measured: Double?, unit: String, _ passes: (Double) -> Bool) {
            let shown = measured.map { String(format: "%.3g", $0) + unit } ?? "not measured"
            checks.append(BenchReport.TargetCheck(name: name, limit: limit, measured: shown, met: measured.map(passes) ?? false))
        }
        switch report.scenario {
        case .fanout where report.options.overload:
            let overload = report.overload
            check("offered load, share of one worker's capacity", "≥ 150 %", overload?.offeredShareOfCapacity.map { $0 * 100 }, unit: " %") { $0 >= 150 }
            check("p99 added latency under overload", "≤ 200 ms", report.latency.p99Ms, unit: " ms") { $0 <= 200 }
        case .fanout, .audioOnly, .room, .soak:
            check("no loss on clean subscribers", "0 %", report.loss.lossPercent, unit: " %") { $0 == 0 }
            check("p99 added latency", "≤ 5 ms", report.latency.p99Ms, unit: " ms") { $0 <= 5 }
            if report.scenario == .soak {
                check("soak errors", "0", report.soak.map { Double($0.errors) }, unit: "") { $0 == 0 }
                if report.options.floodSeconds > 0 {
                    let flood = report.soak?.flood
                    check(
                        "RSS \(Int(BenchReport.Flood.settleSeconds)) s after the flood, above the baseline", "≤ \(Int(BenchReport.Flood.settleMarginMB)) MB",
                        flood.flatMap { flood in flood.rssSettledMB.map { $0 - flood.rssBaselineMB } }, unit: " MB"
                    ) { $0 <= BenchReport.Flood.settleMarginMB }
                }
            }
        case .speakers:
            let speakers = report.speakers
            check("talker start → named at a listener, p95", "≤ 300 ms", speakers?.detectionP95Ms, unit: " ms") { $0 <= 300 }
            check("scripted talkers named", "all \(speakers?.turns.count ?? 0)", speakers.map { Double($0.turns.count - $0.turnsMissed) }, unit: "") {
                Int($0) == speakers?.turns.count
            }
            check("false switches while one talks", "0", speakers?.steadyTalkerNamedAfterMs == nil ? nil : speakers.map { Double($0.falseSwitches) }, unit: "") {
                $0 == 0
            }
            check("media worker CPU per forwarded audio packet, levels / none", "≤ 1.02", speakers?.cpu?.ratio, unit: "×") { $0 <= 1.02 }
        case .cluster:
            // The issue sets no targets for a cluster; the report's table carries its figures.
            break
        case .chaos:
            checks += ChaosInvariants.checks(for: report.chaos)
        case .webhooks where report.webhooks?.receiver == .silent:
            // Events are dropped by design here, so what is owed never arrives: the promises are a
            // bounded queue and signaling that does not notice.
            let webhooks = report.webhooks
            let bound = Double(webhooks?.maxQueuedEvents ?? 0)
            let limit = "≤ \(webhooks?.maxQueuedEvents ?? 0) (maxQueuedEvents)"
            check("webhook queue at the end, receiver never answering", limit, webhooks?.daemonQueued.map(Double.init), unit: "") { $0 <= bound }
            check("longest webhook queue read during the churn", limit, webhooks?.silent?.queuedPeak.map(Double.init), unit: "") { $0 <= bound }
            check("joins that failed, receiver never answering", "0", webhooks.map { Double($0.connectFailures) }, unit: "") { $0 == 0 }
            if report.daemon.local {
                check("join p99 (connect → reply) with / without webhooks, receiver never answering", "≤ 1.2×", webhooks?.joinLatency.p99Ratio, unit: "×") {
                    $0 <= 1.2
                }
            }
        case .webhooks:
            let webhooks = report.webhooks
            check("webhook delivery p99 (event → receiver)", "≤ 1 s", webhooks?.latencyP99Ms.map { $0 / 1000 }, unit: " s") { $0 <= 1 }
            check("events the churn caused that never arrived", "0", webhooks.map { Double($0.eventsLost) }, unit: "") { $0 == 0 }
            check("events out of their session's order", "0", webhooks.map { Double($0.outOfOrder) }, unit: "") { $0 == 0 }
            check("bad signatures", "0", webhooks.map { Double($0.badSignatures) }, unit: "") { $0 == 0 }
            // A duplicate is a retry of an attempt the receiver did get; more than the daemon retried is a bug.
            check(
                "duplicates beyond the daemon's retries", "0",
                webhooks.map { Double(max($0.duplicates - Int($0.daemonRetries ?? 0), 0)) }, unit: ""
            ) { $0 == 0 }
        case .archive:
            let archive = report.archive
            check("daemon CPU per forwarded packet, individual archive on / off", "≤ 1.1×", archive?.cpuRatio, unit: "×") { $0 <= 1.1 }
            check(
                "writer drops, \(archive?.recordedStreams ?? 0) streams recorded individually", "0", archive?.writerDrops.map(Double.init), unit: ""
            ) { $0 == 0 }
            for composed in archive?.composed ?? [] {
                // Real time at 15 fps on one core is 66.7 ms a frame; half of that leaves the core's
                // other half to forwarding, and room for the machine's noise.
                check(
                    "composer CPU per output frame, \(composed.tiles) tiles \(composed.resolution) at \(composed.frameRate) fps", "≤ 33 ms",
                    composed.cpuMillisecondsPerFrame, unit: " ms"
                ) { $0 <= 33 }
            }
        case .broadcast:
            let broadcast = report.broadcast
            check("join p99 (connect → reply), connection events suppressed", "≤ 250 ms", broadcast?.joinP99Ms, unit: " ms") { $0 <= 250 }
            check("daemon memory per signaling-only connection", "≤ 32 KiB", broadcast?.memoryPerConnectionKiB, unit: " KiB") { $0 <= 32 }
            // The crowd's first 1,000 leaving, or a crowd of at most 1,000 leaving whole.
            let thousandLeaving = broadcast.flatMap { $0.thousandLeavingSeconds ?? ($0.viewers <= 1000 ? $0.leaveSeconds : nil) }
            check("1,000 viewers leaving at once → the moderator heard the last", "≤ 1 s", thousandLeaving, unit: " s") { $0 <= 1 }
            check("1,000 graces ending together: first → last leave", "≤ 1 s", broadcast?.graceTeardownSeconds, unit: " s") { $0 <= 1 }
            check("events lost to the connections owed them", "0", broadcast.map { Double($0.eventsLost) }, unit: "") { $0 == 0 }
            check("viewers told of other viewers joining", "0", broadcast.map { Double($0.viewersThatHeardJoins) }, unit: "") { $0 == 0 }
        case .red:
            let red = report.red
            check(
                "frames concealed at \(red?.schedule ?? "the schedule"), with RED against without", "≥ 50 % fewer",
                red?.concealedReduction.map { $0 * 100 }, unit: " % fewer"
            ) { $0 >= 50 }
            check("audio decode errors", "0", red.map { Double($0.withRed.decodeErrors + $0.withoutRed.decodeErrors) }, unit: "") { $0 == 0 }
        case .join:
            check("join p95 (connect → first decoded frame)", "≤ 150 ms", report.join?.p95Ms, unit: " ms") { $0 <= 150 }
        case .reconnect:
            let drops = report.reconnect?.drops.filter(\.belowGrace) ?? []
            let worst = { (value: (BenchReport.Drop) -> Double?) -> Double? in
                drops.isEmpty || drops.contains { value($0) == nil } ? nil : drops.compactMap(value).max()
            }
            check("network back → reconnected (drops below the grace)", "≤ 1 s", worst { $0.reconnectedMs }.map { $0 / 1000 }, unit: " s") { $0 <= 1 }
            check("network back → first decoded frame", "≤ 1.5 s", worst { $0.firstFrameMs }.map { $0 / 1000 }, unit: " s") { $0 <= 1.5 }
            check("signals lost or duplicated", "0", worst { Double($0.signalsSent - $0.signalsDelivered + $0.signalsDuplicated) }, unit: "") { $0 == 0 }
            check("events missed and not replayed, or replayed twice", "0", worst { Double($0.eventsMissed - $0.eventsReplayed + $0.eventsDuplicated) }, unit: "") {
                $0 == 0
            }
            check("destroy events seen by others below the grace", "0", worst { Double($0.destroyEventsSeenByOthers) }, unit: "") { $0 == 0 }
        case .bandwidth:
            for step in report.bandwidth?.steps ?? [] {
                // A cap that binds is to be found within 5 s; the climb back after one, within 10 s.
                let binds = step.targetKbps >= step.capacityKbps
                let name = "estimate converged to \(Int(step.targetKbps)) kbps after the step at \(Int(step.startSeconds)) s"
                check(name, binds ? "≤ 5 s" : "≤ 10 s", step.convergedAfterSeconds, unit: " s") { $0 <= (binds ? 5 : 10) }
            }
        case .simulcast:
            let simulcast = report.simulcast
            let subscribers = simulcast?.subscribers ?? []
            check("clean subscribers on the layer their preference picks", "all \(simulcast?.cleanSubscribers ?? 0)", simulcast.map { Double($0.rightLayer) }, unit: "") {
                Int($0) == simulcast?.cleanSubscribers
            }
            let impaired = subscribers.filter(\.impaired)
            let worst = { (value: (BenchReport.SimulcastSubscriber) -> Double?) -> Double? in
                impaired.isEmpty || impaired.contains { value($0) == nil } ? nil : impaired.compactMap(value).max()
            }
            check("cap drop → lower layer decoded", "≤ 2 s", worst(\.downSwitchSeconds), unit: " s") { $0 <= 2 }
            check("cap lifted → layer back", "≤ 5 s", worst(\.upSwitchSeconds), unit: " s") { $0 <= 5 }
            if report.options.topLayerStopAtSeconds != nil {
                let stop = simulcast?.layerStop
                let affected = stop?.subscribers ?? []
                check(
                    "top layer stopped → next layer decoded (longest freeze)", "≤ 0.6 s",
                    affected.isEmpty ? nil : affected.map(\.freezeSeconds).max(), unit: " s"
                ) { $0 <= 0.6 }
                check(
                    "top layer stopped → reason unavailable", "all \(affected.count)",
                    stop.map { _ in Double(affected.filter { $0.reason == "unavailable" }.count) }, unit: ""
                ) { Int($0) == affected.count && !affected.isEmpty }
            }
            let freezes = subscribers.reduce(UInt64(0)) { $0 + $1.freezes } - (simulcast?.layerStop?.freezes ?? 0)
            let errors = subscribers.reduce(UInt64(0)) { $0 + $1.decodeErrors + $1.counterMismatches }
            check("freezes (besides the top layer's stop)", "0", simulcast == nil ? nil : Double(freezes), unit: "") { $0 == 0 }
            check("decoder errors and counter jumps", "0", simulcast == nil ? nil : Double(errors), unit: "") { $0 == 0 }
        case .fallback where report.fallback?.simulcast == true:
            let fallback = report.fallback
            let impaired = fallback?.subscribers.filter(\.impaired) ?? []
            check("impaired subscribers stepping down a layer before any warning", "all \(impaired.count)",
                  Double(impaired.filter { $0.steppedDownBeforeWarning == true }.count), unit: "") { Int($0) == impaired.count && !impaired.isEmpty }
            let spells = fallback?.cleanSpells.filter { $0.subscribersWithVideoOff > 0 } ?? []
            let everyoneBack = spells.allSatisfy { $0.subscribersBack == $0.subscribersWithVideoOff }
            check("clean spell → video back on the lowest layer, every spell", "≤ 6 s",
                  spells.isEmpty || !everyoneBack ? nil : spells.compactMap(\.videoBackAfterSeconds).max(), unit: " s") { $0 <= 6 }
            check("full-quality cycles per 5 minutes", "≤ 2", fallback?.fullQualityCyclesPerFiveMinutes, unit: "") { $0 <= 2 }
            check("fallback events on clean subscribers", "0", fallback.map { Double($0.cleanSubscriberEvents) }, unit: "") { $0 == 0 }
        case .fallback:
            let fallback = report.fallback
            check("impairment → warning", "≤ 2 s", fallback?.warningAfterSeconds, unit: " s") { $0 <= 2 }
            check("impairment → video disabled", "≤ 4 s", fallback?.disabledAfterSeconds, unit: " s") { $0 <= 4 }
            check("recovery → video enabled", "≤ 6 s", fallback?.enabledAfterRecoverySeconds, unit: " s") { $0 <= 6 }
            if let following = fallback?.subscribersFollowingPublisher {
                check("subscribers whose video followed the publisher's", "all \(report.clients.subscribers)", Double(following), unit: "") {
                    Int($0) == report.clients.subscribers
                }
            } else {
                check("fallback events on clean subscribers", "0", fallback.map { Double($0.cleanSubscriberEvents) }, unit: "") { $0 == 0 }
            }
        }
        let benchLimit = 90.0 * Double(report.options.mediaThreads)
        check("bench below its CPU limit (not the bottleneck)", "< \(Int(benchLimit)) % of a core", report.bench?.cpuPercent, unit: " %") {
            $0 < benchLimit && (report.benchMediaThread?.busyPercent ?? 0) < 90
        }
        return checks
    }
}
