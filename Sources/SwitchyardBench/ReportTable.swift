import Foundation

/// The report as a readable table for a terminal.
public enum ReportTable {
    public static func render(_ report: BenchReport) -> String {
        var rows: [(String, String)] = []
        func row(_ name: String, _ value: String) { rows.append((name, value)) }
        func number(_ value: Double?, _ unit: String = "", digits: Int = 1) -> String {
            guard let value else { return "–" }
            return String(format: "%.\(digits)f", value) + unit
        }
        let options = report.options
        row("scenario", report.scenario.rawValue)
        row("daemon", "\(report.daemon.local ? "local" : "remote") \(report.daemon.url)\(report.daemon.srtpBuild.map { " (srtp \($0))" } ?? "")")
        row("clients", "\(report.clients.publishers) publishers, \(report.clients.subscribers) subscribers, \(report.clients.connectFailures) failed to connect")
        row("media", options.sendsVideo
            ? "VP8 \(options.width)x\(options.height)@\(options.frameRate) \(options.videoBitrate / 1000) kbps + Opus \(options.audioBitrate / 1000) kbps"
            : "Opus \(options.audioBitrate / 1000) kbps")
        row("measured", number(report.measuredSeconds, " s"))
        let broadcastCarriedMedia = (report.broadcast?.mediaViewers ?? 0) > 0
        if ![.join, .cluster, .speakers, .webhooks, .chaos, .broadcast, .archive].contains(report.scenario) || broadcastCarriedMedia {
            let forwarding = report.forwarding
            row("forwarded packets/s", number(forwarding.packetsPerSecond, digits: 0))
            row("forwarded packets per server CPU-s", number(forwarding.packetsPerServerCPUSecond, digits: 0))
            row("received by subscribers", "\(number(forwarding.receivedPacketsPerSecond, " packets/s", digits: 0)), \(number(forwarding.receivedMbitPerSecond, " Mbit/s", digits: 2))")
            row("latency p50 / p95 / p99 / max", [report.latency.p50Ms, report.latency.p95Ms, report.latency.p99Ms, report.latency.maxMs].map { number($0, digits: 2) }.joined(separator: " / ") + " ms (\(report.latency.samples) packets)")
            row("loss (clean subscribers)", "\(number(report.loss.lossPercent, " %", digits: 3)) (\(report.loss.packetsLost) of \(report.loss.packetsExpected))")
            row("jitter mean / max", "\(number(report.jitter.meanMs, digits: 2)) / \(number(report.jitter.maxMs, " ms", digits: 2))")
        }
        let video = report.video
        row("frames sent / received / decoded", "\(video.framesSent) / \(video.framesReceived) / \(video.framesDecoded) (audio frames decoded \(video.audioFramesDecoded))")
        row("decode errors / counter mismatches", "\(video.decodeErrors) / \(video.counterMismatches)")
        row("freezes", "\(video.freezes) (\(number(video.freezeSeconds, " s", digits: 2))), key-frame waits \(video.keyFrameWaits), PLIs \(video.pictureLossIndications), NACKed \(video.nackedPackets)")
        if let cluster = report.cluster {
            func pair(_ first: Double?, _ second: Double?) -> String { "\(number(first, digits: 1)) / \(number(second, " ms", digits: 1))" }
            row("cluster", "\(cluster.sessions) sessions over \(cluster.nodes) nodes: " + cluster.sessionsPerNode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            row("placement p50 / p99", pair(cluster.placementP50Ms, cluster.placementP99Ms) + " (\(cluster.placementsRedirected) sent to another node)")
            row("join existing p50 / p99", pair(cluster.joinP50Ms, cluster.joinP99Ms) + " (\(cluster.joinsRedirected) sent to another node)")
            row("REST signal, session's node p50 / p99", pair(cluster.signalDirectP50Ms, cluster.signalDirectP99Ms))
            row("REST signal, other node p50 / p99", pair(cluster.signalForwardedP50Ms, cluster.signalForwardedP99Ms) + " (\(cluster.signalsLost) lost)")
            if cluster.cascadeSubscribers > 0 {
                row("cascade 1 → \(cluster.cascadeSubscribers)", "\(cluster.cascadedSubscribers) served by other nodes over relay legs; loss there \(number(cluster.cascadedLossPercent, digits: 2)) %")
                row("latency on the session's node p50 / p99", pair(cluster.cascadeDirectLatencyP50Ms, cluster.cascadeDirectLatencyP99Ms))
                row("latency cascaded p50 / p99", pair(cluster.cascadedLatencyP50Ms, cluster.cascadedLatencyP99Ms))
                for node in cluster.cascadeNodes {
                    row("  \(node.nodeId) (\(node.role), \(node.subscribers) subscribers)", "\(number(node.forwardedPacketsPerSecond, digits: 0)) packets/s forwarded, \(number(node.cpuCores * 100, digits: 1)) % of a core, \(number(node.cpuMsPerThousandPackets, digits: 2)) CPU ms per 1000 packets")
                }
            }
            if let killed = cluster.killedNode {
                row("kill -9 \(killed)", "\(cluster.clientsMoved) of \(cluster.clientsOnKilledNode) clients moved; move p50 / max \(pair(cluster.moveP50Ms, cluster.moveMaxMs)); media again p50 / max \(pair(cluster.mediaAgainP50Ms, cluster.mediaAgainMaxMs))")
            }
        }
        if let join = report.join {
            row("join p50 / p95 / max", "\([join.p50Ms, join.p95Ms, join.maxMs].map { number($0, digits: 1) }.joined(separator: " / ")) ms (\(join.count) joins, \(join.failures) failed)")
        }
        if let reconnect = report.reconnect {
            row("reconnect grace", number(reconnect.graceSeconds, " s", digits: 0))
            for drop in reconnect.drops {
                let times = [drop.reconnectedMs, drop.firstPacketMs, drop.firstFrameMs].map { number($0, digits: 0) }.joined(separator: " / ")
                row(
                    "drop \(number(drop.seconds, " s", digits: 1))\(drop.belowGrace ? "" : " (past grace)")",
                    "\(drop.outcome); reconnected / first packet / first frame \(times) ms after the return; "
                        + "signals \(drop.signalsSent) sent, \(drop.signalsDelivered) delivered, \(drop.signalsDuplicated) twice; "
                        + "events \(drop.eventsMissed) missed, \(drop.eventsReplayed) replayed, \(drop.eventsDuplicated) twice; "
                        + "destroy events seen by others \(drop.destroyEventsSeenByOthers)")
            }
        }
        if let server = report.server {
            row("server CPU / RSS", "\(number(server.cpuPercent, " %")) of a core, \(number(server.rssStartMB, digits: 1)) → \(number(server.rssEndMB, " MB", digits: 1)) (peak \(number(server.rssPeakMB, " MB", digits: 1)))")
        } else {
            row("server CPU / RSS", "– (remote daemon; pass --server-pid)")
        }
        for worker in report.workers {
            row(
                "server worker \(worker.index)",
                "busy \(number(worker.busyPercent, " %")) of a core, \(worker.consumers) consumers, \(number(worker.packetsSentPerSecond, " packets/s", digits: 0)) sent, "
                    + "\(number(worker.relayMessagesPerSecond, "/s", digits: 0)) relayed to other workers (\(worker.relayDrops) dropped)")
        }
        if let bench = report.bench {
            row("bench CPU / RSS", "\(number(bench.cpuPercent, " %")) of a core, \(number(bench.rssEndMB, " MB", digits: 1))")
            if let thread = report.benchMediaThread {
                row("bench media thread busy", "\(number(thread.busyPercent, " %")) (receiving \(number(thread.receivePercent, " %")), ticking \(number(thread.tickPercent, " %"))), \(number(thread.socketsReadPerSecond, digits: 0)) socket reads/s")
            }
        }
        if let fallback = report.fallback {
            row("impairment", "\(fallback.schedule) (from \(number(fallback.impairmentStartSeconds, " s")) to \(number(fallback.impairmentEndSeconds, " s")))")
            row("→ warning / → disabled / recovery → enabled", [fallback.warningAfterSeconds, fallback.disabledAfterSeconds, fallback.enabledAfterRecoverySeconds].map { number($0, " s", digits: 2) }.joined(separator: " / "))
            if let publisher = fallback.publisher {
                row("publisher events", publisher.events.map { String(format: "%.2fs %@", $0.seconds, $0.event) }.joined(separator: ", "))
                row("subscribers following the publisher", "\(fallback.subscribersFollowingPublisher ?? 0) of \(report.clients.subscribers)")
            } else {
                row("transitions (impaired) / events on clean", "\(fallback.transitions) / \(fallback.cleanSubscriberEvents)")
            }
            for subscriber in fallback.subscribers where subscriber.impaired {
                row("  \(subscriber.subscriber)", subscriber.events.map { String(format: "%.2fs %@", $0.seconds, $0.event) }.joined(separator: ", "))
            }
            if fallback.cleanSpells.count > 1 {
                for spell in fallback.cleanSpells {
                    let back = spell.subscribersWithVideoOff == 0 ? "video stayed on" : "\(spell.subscribersBack) of \(spell.subscribersWithVideoOff) back, the last after \(number(spell.videoBackAfterSeconds, " s", digits: 2))"
                    let layers = spell.layersOnReturn.isEmpty ? "" : " on \(spell.layersOnReturn.joined(separator: ", "))"
                    row("clean spell from \(number(spell.startSeconds, " s"))", back + layers)
                }
            }
            if let cycles = fallback.fullQualityCycles {
                row("full-quality cycles (most of one subscriber) / per 5 min", "\(cycles) / \(number(fallback.fullQualityCyclesPerFiveMinutes, "", digits: 2))")
            }
        }
        if let red = report.red {
            row("RED from · earlier frames per packet · schedule", "\(red.source) · \(red.source == "router" ? "the daemon's" : "\(red.redundantFrames)") · \(red.schedule)")
            for (name, group) in [("with RED", red.withRed), ("without RED", red.withoutRed)] {
                row(
                    "\(name): subscribers · packets lost · frames recovered · concealed",
                    "\(group.subscribers) · \(group.packetsLost) · \(group.framesRecovered) · \(group.framesConcealed) (\(number(group.concealedPercent, " %", digits: 2)))")
            }
            row("frames concealed, with RED against without", number(red.concealedReduction.map { $0 * 100 }, " % fewer"))
        }
        if let overload = report.overload {
            row(
                "offered / forwarded packets/s",
                "\(number(overload.offeredPacketsPerSecond, digits: 0)) / \(number(overload.forwardedPacketsPerSecond, digits: 0)) (\(number(overload.forwardedShare.map { $0 * 100 }, " %")) forwarded)")
            row(
                "one worker's capacity; the offer against it",
                "\(number(overload.capacityPacketsPerSecond, " packets/s", digits: 0)); \(number(overload.offeredShareOfCapacity.map { $0 * 100 }, " %", digits: 0))")
            row("late packets dropped", "\(overload.latePackets)")
            row(
                "video shed: subscribers at the end; of the sample, ever",
                "\(overload.subscribersShedAtEnd); \(overload.sampledEverShed) of \(overload.sampled); steps off \(overload.sheddingSteps), back on \(overload.restoringSteps)")
            row("subscribers refused at join", "\(overload.refusedAtJoin)")
        }
        if let simulcast = report.simulcast {
            row("simulcast layers", simulcast.layers.joined(separator: " · "))
            row("schedule (impaired)", "\(simulcast.schedule) (drop at \(number(simulcast.capDropSeconds, " s")), rise at \(number(simulcast.capRiseSeconds, " s")))")
            row("clean subscribers on the right layer", "\(simulcast.rightLayer) of \(simulcast.cleanSubscribers)")
            if let stop = simulcast.layerStop {
                let affected = stop.subscribers.map { "\($0.subscriber) froze \(number($0.freezeSeconds, " s", digits: 2)), then \($0.decodedWidthAfter) wide (\($0.reason ?? "no change"))" }
                row("top layer stopped", "at \(number(stop.atSeconds, " s")) for \(number(stop.forSeconds, " s")): \(affected.isEmpty ? "nobody was decoding it" : affected.joined(separator: "; "))")
            }
            for subscriber in simulcast.subscribers {
                let frames = subscriber.framesByWidth.sorted { Int($0.key) ?? 0 < Int($1.key) ?? 0 }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                var line = "wants \(subscriber.preference) → expected \(subscriber.expectedWidth), decoded \(subscriber.finalWidth) wide (frames by width \(frames))"
                if subscriber.impaired {
                    line += "; down \(number(subscriber.downSwitchSeconds, " s", digits: 2)), up \(number(subscriber.upSwitchSeconds, " s", digits: 2))"
                }
                line += "; freezes \(subscriber.freezes), decode errors \(subscriber.decodeErrors), counter jumps \(subscriber.counterMismatches), PictureID gaps \(subscriber.pictureIDGaps)"
                row("\(subscriber.subscriber)\(subscriber.impaired ? " (impaired)" : "")", line)
                let changes = subscriber.layerChanges.map { "\(number($0.seconds, " s")) \($0.layer)→\($0.target) (\($0.reason))" }
                if !changes.isEmpty { row("  layer changes", changes.joined(separator: "; ")) }
            }
        }
        if let bandwidth = report.bandwidth {
            row("bandwidth steps (\(bandwidth.subscriber), \(bandwidth.feedback))", "converged after; estimate mean / lowest / highest as shares of the target")
            for step in bandwidth.steps {
                let shares = [step.meanShare, step.lowestShare, step.highestShare].map { number($0, digits: 2) }.joined(separator: " / ")
                row(
                    "  \(number(step.startSeconds, " s", digits: 0))–\(number(step.endSeconds, " s", digits: 0)) cap \(number(step.capacityKbps, " kbps", digits: 0))",
                    "target \(number(step.targetKbps, " kbps", digits: 0)): \(number(step.convergedAfterSeconds, " s", digits: 2)); \(shares)")
            }
        }
        if let speakers = report.speakers {
            let named = speakers.turns.filter { $0.namedAfterMs != nil }.count
            row(
                "talker start → named at a listener",
                "p50 / p95 / max \([speakers.detectionP50Ms, speakers.detectionP95Ms, speakers.detectionMaxMs].map { number($0, digits: 0) }.joined(separator: " / ")) ms "
                    + "(\(named) of \(speakers.turns.count) turns of \(number(speakers.turnSeconds, " s", digits: 1)), \(number(speakers.turnGapSeconds, " s", digits: 1)) apart; \(speakers.wrongSwitchesDuringTurns) wrong switches)")
            row(
                "  turns: named (speaking reported), ms",
                speakers.turns.map { "\($0.room) \($0.talker) \(number($0.namedAfterMs, digits: 0)) (\(number($0.speakingReportedAfterMs, digits: 0)))" }.joined(separator: ", "))
            row(
                "one talker for \(number(speakers.steadySeconds, " s", digits: 0))",
                "named after \(number(speakers.steadyTalkerNamedAfterMs, " ms", digits: 0)), then \(speakers.falseSwitches) false switches"
                    + (speakers.falseSwitchEvents.isEmpty ? "" : ": " + speakers.falseSwitchEvents.prefix(10).map { String(format: "%.2fs %@", $0.seconds, $0.event) }.joined(separator: ", ")))
            let downlink = speakers.downlink
            row(
                "downlink per participant, all / loudest \(downlink.forwardLoudest)",
                "\(number(downlink.packetsPerSecondAll, digits: 0)) / \(number(downlink.packetsPerSecondLoudest, digits: 0)) audio packets/s, "
                    + "\(number(downlink.kbpsAll, digits: 1)) / \(number(downlink.kbpsLoudest, " kbit/s", digits: 1)) of payload: "
                    + "\(number(downlink.packetRatio, "×", digits: 3)) the packets, \(number(downlink.byteRatio, "×", digits: 3)) the bytes")
            if let cpu = speakers.cpu {
                row(
                    "media worker CPU per forwarded audio packet",
                    "\(number(cpu.withLevelsMicroseconds, " µs", digits: 2)) with levels (worker \(cpu.withLevelsWorker)), \(number(cpu.withoutLevelsMicroseconds, " µs", digits: 2)) without (worker \(cpu.withoutLevelsWorker)): "
                        + "\(number(cpu.ratio, "×", digits: 3)); \(cpu.windows.count) windows of \(number(cpu.windowSeconds, " s", digits: 0)) between \(number(cpu.ratioLowest, "×", digits: 3)) and \(number(cpu.ratioHighest, "×", digits: 3)) "
                        + "(\(number(cpu.packetsPerSecondWithLevels, digits: 0)) / \(number(cpu.packetsPerSecondWithoutLevels, " packets/s", digits: 0)); rest of the daemon \(number(cpu.restOfDaemonMillisecondsPerSecond, " ms/s", digits: 1)))")
            }
        }
        if let chaos = report.chaos { rows += chaos.tableRows }
        if let archive = report.archive {
            row(
                "forwarding, archive off / on",
                "1 → \(archive.subscribers), 2 windows of \(number(archive.windowSeconds, " s", digits: 0)) each: "
                    + "\(number(archive.cpuPerForwardedPacketWithoutMicroseconds, " µs", digits: 2)) / \(number(archive.cpuPerForwardedPacketWithMicroseconds, " µs", digits: 2)) "
                    + "daemon CPU per forwarded packet (\(number(archive.cpuRatio, "×", digits: 3))); "
                    + "\(number(archive.forwardedPerSecondWithout, digits: 0)) / \(number(archive.forwardedPerSecondWith, " packets/s", digits: 0))")
            row(
                "individual archive",
                "\(archive.recordedStreams) streams for \(number(archive.recordedSeconds, " s", digits: 1)): \(archive.recordedFiles) files, "
                    + "\(number(archive.recordedMegabytes, " MB", digits: 1)); writer dropped \(archive.writerDrops.map { "\($0)" } ?? "–"), "
                    + "CPU \(number(archive.writerCPUPercent, " %", digits: 1)) of a core; recordingFull drops \(number(archive.recordingFullDrops, digits: 0))")
            for composed in archive.composed {
                row(
                    "composed, \(composed.tiles) tiles",
                    "\(composed.resolution) at \(composed.frameRate) fps for \(number(composed.seconds, " s", digits: 1)): \(composed.outputFrames) frames, "
                        + "\(number(composed.cpuMillisecondsPerFrame, " ms", digits: 1)) CPU a frame (\(number(composed.cpuPercent, " %", digits: 0)) of a core); "
                        + "writer dropped \(composed.writerDrops)")
            }
        }
        if let broadcast = report.broadcast {
            row(
                "viewers joining",
                "\(broadcast.joined) of \(broadcast.viewers) at \(number(broadcast.joinsPerSecond, "/s", digits: 0)) in \(number(broadcast.joinSeconds, " s")), "
                    + "\(broadcast.joinFailures) failed; connect → reply p50 / p99 / max "
                    + [broadcast.joinP50Ms, broadcast.joinP99Ms, broadcast.joinMaxMs].map { number($0, digits: 1) }.joined(separator: " / ") + " ms")
            row(
                "daemon memory",
                "\(number(broadcast.daemonRSSBeforeMB, " MB")) → \(number(broadcast.daemonRSSAfterMB, " MB")), "
                    + "\(number(broadcast.memoryPerConnectionKiB, " KiB", digits: 1)) per viewer")
            row(
                "CPU while joining",
                "daemon \(number(broadcast.daemonCPUPercentWhileJoining, " %", digits: 0)), bench \(number(broadcast.benchCPUPercentWhileJoining, " %", digits: 0)) of a core")
            row(
                "events",
                "moderator heard \(broadcast.moderatorJoinsHeard) joins and \(broadcast.moderatorLeavesHeard) leaves; "
                    + "\(broadcast.viewersWithTheRightCount) viewers with the right count, \(broadcast.viewersThatHeardJoins) told of other viewers")
            if broadcast.mediaViewers > 0 {
                row(
                    "media viewers",
                    "\(broadcast.mediaViewers) watching \(broadcast.publishers) simulcast publisher\(broadcast.publishers == 1 ? "" : "s"), "
                        + "\(broadcast.cascadedMediaViewers) served by other nodes; latency p50 / p99 on the session's node "
                        + "\(number(broadcast.directLatencyP50Ms, digits: 2)) / \(number(broadcast.directLatencyP99Ms, " ms", digits: 2)), cascaded "
                        + "\(number(broadcast.cascadedLatencyP50Ms, digits: 2)) / \(number(broadcast.cascadedLatencyP99Ms, " ms", digits: 2))")
            }
            if let thousandLeaving = broadcast.thousandLeavingSeconds {
                row("1,000 of them leaving at once", number(thousandLeaving, " s", digits: 2))
            }
            row(broadcast.thousandLeavingSeconds == nil ? "all leaving at once" : "the rest leaving at once", number(broadcast.leaveSeconds, " s", digits: 2))
            row(
                "graces ending together",
                "\(broadcast.graceLeavesHeard) of \(broadcast.graceViewers) leaves heard after a \(number(broadcast.graceSeconds, " s", digits: 0)) grace, first → last "
                    + "\(broadcast.graceTeardownSeconds.map { number($0, " s", digits: 3) } ?? "–"); another session's slowest signal "
                    + "\(broadcast.otherSessionSlowestSignalMs.map { number($0, " ms", digits: 1) } ?? "–")")
        }
        if let webhooks = report.webhooks {
            row(
                "churn",
                "\(webhooks.sessions) sessions of 1 → \(webhooks.subscribersPerSession), \(number(webhooks.joinsPerSecondPerSession, digits: 1)) joins/s each for \(number(webhooks.churnSeconds, " s", digits: 0)): "
                    + "\(webhooks.joins) joins, \(webhooks.leaves) leaves, \(webhooks.connectFailures) failed")
            row(
                "webhook events",
                "\(webhooks.eventsExpected) owed, \(webhooks.eventsReceived) received (\(webhooks.deliveriesReceived) POSTs) at \(webhooks.receiverURL); daemon delivered \(webhooks.daemonDelivered.map { "\($0)" } ?? "–"), "
                    + "retried \(webhooks.daemonRetries.map { "\($0)" } ?? "–"), dropped \(webhooks.daemonDropped.map { "\($0)" } ?? "–")"
                    + ((webhooks.daemonFailures ?? [:]).isEmpty ? "" : ", failures " + (webhooks.daemonFailures ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
            if let silent = webhooks.silent {
                row(
                    "silent receiver",
                    "held \(silent.requestsHeld) POSTs unanswered (at most \(silent.heldAtMost) at once, \(silent.releasedEarly) let go early); daemon queue at the end "
                        + "\(webhooks.daemonQueued.map { "\($0)" } ?? "–"), longest of \(silent.statusReadings) readings \(silent.queuedPeak.map { "\($0)" } ?? "–") "
                        + "(maxQueuedEvents \(webhooks.maxQueuedEvents.map { "\($0)" } ?? "–")); dropped "
                        + (webhooks.daemonDroppedByReason ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            } else {
                row(
                    "delivery latency p50 / p99 / max",
                    "\([webhooks.latencyP50Ms, webhooks.latencyP99Ms, webhooks.latencyMaxMs].map { number($0, digits: 1) }.joined(separator: " / ")) ms "
                        + "(the daemon's own p50 / p99 \(number(webhooks.daemonLatencyP50Ms, digits: 1)) / \(number(webhooks.daemonLatencyP99Ms, " ms", digits: 1)))")
                row(
                    "lost / out of order / duplicates / bad signatures",
                    "\(webhooks.eventsLost) / \(webhooks.outOfOrder) / \(webhooks.duplicates) / \(webhooks.badSignatures) (unexpected \(webhooks.eventsUnexpected), unreadable \(webhooks.unreadableBodies))"
                        + (webhooks.lostEvents.isEmpty ? "" : "; lost: " + webhooks.lostEvents.prefix(5).joined(separator: ", ")))
                row("events by kind", webhooks.eventsByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            let joins = webhooks.joinLatency
            row(
                "join p50 / p99 (connect → reply)",
                "with webhooks \(number(joins.p50WithMs, digits: 2)) / \(number(joins.p99WithMs, " ms", digits: 2)) (\(joins.joinsWith) joins)"
                    + (joins.joinsWithout.map {
                        ", without \(number(joins.p50WithoutMs, digits: 2)) / \(number(joins.p99WithoutMs, " ms", digits: 2)) (\($0)); "
                            + "with / without \(number(joins.p50Ratio, "×", digits: 2)) / \(number(joins.p99Ratio, "×", digits: 2))"
                    } ?? ""))
            row(
                "daemon RSS at the end",
                "with webhooks \(number(webhooks.rssAtEndMB, " MB"))" + (webhooks.rssAtEndWithoutWebhooksMB.map { ", without \(number($0, " MB"))" } ?? ""))
            if let cpu = webhooks.cpu {
                let both =
                    "\(number(cpu.withWebhooksSeconds, " s", digits: 2)) with webhooks (\(cpu.connectionEventsWith) connection events), "
                    + "\(number(cpu.withoutWebhooksSeconds, " s", digits: 2)) without (\(cpu.connectionEventsWithout))"
                if webhooks.receiver == .silent {
                    row("daemon CPU over the churn", "\(both) in \(number(cpu.windowSeconds, " s", digits: 1))")
                } else {
                    row(
                        "daemon CPU per delivered event",
                        "\(number(cpu.extraMicrosecondsPerEvent, " µs", digits: 1)): \(both), \(cpu.eventsDelivered) delivered in \(number(cpu.windowSeconds, " s", digits: 1))")
                }
            }
        }
        if let soak = report.soak {
            row("server RSS over the soak", "\(soak.rssSamplesMB.map { String(format: "%.1f", $0) }.joined(separator: " ")) MB (growth \(number(soak.rssGrowthMB, " MB", digits: 1)))")
            row("errors", "\(soak.errors)")
            if let flood = soak.flood {
                row(
                    "flood", "\(flood.idleSockets) idle WebSockets, \(flood.joins) clients churned in \(number(flood.churnSeconds, " s", digits: 0)) (\(flood.failures) failed)")
                row(
                    "server RSS around the flood",
                    "before \(number(flood.rssBaselineMB, " MB", digits: 1)), peak \(number(flood.rssPeakMB, " MB", digits: 1)), at its end \(number(flood.rssAtEndMB, " MB", digits: 1)), then every second: \(flood.rssSamplesMB.map { String(format: "%.0f", $0) }.joined(separator: " ")) MB")
                row("  back within \(Int(BenchReport.Flood.settleMarginMB)) MB of before", flood.backWithinMarginAfterSeconds.map { "\(Int($0)) s after the flood" } ?? "not within \(Int(BenchReport.Flood.settleSeconds)) s")
            }
        }
        for target in report.targets {
            row("\(target.met ? "✓" : "✗") \(target.name)", "\(target.measured) (target \(target.limit))")
        }
        for error in report.errors.prefix(5) { row("error", error) }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }
}
