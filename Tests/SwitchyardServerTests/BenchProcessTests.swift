import Foundation
import Glibc
import Testing

/// The `switchyard-bench` executable end to end: it starts its own daemon, runs each kind of
/// scenario briefly, and writes a report with every field docs/benchmark.md documents.
@Suite(.serialized) struct BenchProcessTests {
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("switchyard-bench")
    }

    /// The report fields docs/benchmark.md lists, with the scenarios that have them.
    static let documentedFields: [(path: String, scenarios: String)] = {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/benchmark.md")
        guard let text = try? String(contentsOf: docs, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1].hasPrefix("`report."), cells[1].hasSuffix("`") else { return nil }
            return (String(cells[1].dropFirst(8).dropLast()), cells[2])
        }
    }()

    struct Outcome {
        var status: Int32
        var errors: String
        var report: [String: Any]
        var pid: Int32 = 0
    }

    private func run(_ arguments: [String]) throws -> Outcome {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let process = Process()
        process.executableURL = Self.executable
        // Small pictures keep the one-off encoding cheap in a debug build, so the tests running
        // beside these (some of them timed end-to-end runs) keep their CPU.
        // A test's own options come last, so they win.
        process.arguments = Array(arguments.prefix(1)) + ["--json", json, "--width", "256", "--height", "144", "--video-bitrate", "200000"]
            + arguments.dropFirst()
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let report = (try? Data(contentsOf: URL(fileURLWithPath: json))).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        return Outcome(status: process.terminationStatus, errors: errorText, report: report ?? [:], pid: process.processIdentifier)
    }

    private func value(_ report: [String: Any], _ path: String) -> Any? {
        path.split(separator: ".").reduce(report as Any?) { ($0 as? [String: Any])?[String($1)] }
    }

    private func expectDocumentedFields(_ report: [String: Any], scenario: String) {
        let fields = Self.documentedFields.filter { $0.scenarios == "all" || $0.scenarios.contains(scenario) }
        #expect(fields.count > 20, "docs/benchmark.md lists the report fields")
        for field in fields {
            #expect(value(report, field.path) != nil, "report field \(field.path) (documented for \(field.scenarios)) missing from a \(scenario) run")
        }
    }

    /// The default policy warns after 0.5 s below 70, disables 1.5 s later below 45 and enables after
    /// 2 s of a good probed path; the targets are 2, 4 and 6 s. The bench times each event when the
    /// client receives it, and on a loaded 2-core machine one event can reach the client later than
    /// the next one's delay: so the gap between warning and disable, which the router keeps at 1.5 s
    /// or more, is allowed to look up to 0.5 s shorter at the client. The bounds measured from the
    /// loss itself are not loosened: lateness only moves events later, and the targets are promises.
    private func expectTimingsWithinThePolicy(_ report: [String: Any], at path: String) throws {
        let warning = try #require(value(report, "\(path).warningAfterSeconds") as? Double)
        let disabled = try #require(value(report, "\(path).disabledAfterSeconds") as? Double)
        let enabled = try #require(value(report, "\(path).enabledAfterRecoverySeconds") as? Double)
        let deliverySpread = 0.5
        #expect(warning >= 0.5 && warning <= 2, "warning after \(warning) s")
        #expect(disabled >= warning + 1.5 - deliverySpread && disabled <= 4, "disabled after \(disabled) s, warning after \(warning) s")
        #expect(enabled >= 2 && enabled <= 6, "enabled \(enabled) s after recovery")
    }

    @Test func fanoutReportsForwardingLatencyAndBothProcesses() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        // A spread threshold of 1 puts the subscribers after the first on the other worker too.
        let outcome = try run([
            "fanout", "--clients", "3", "--duration", "2", "--warmup", "0.5", "--decoders", "1", "--media-threads", "2", "--workers", "2",
            "--spread-threshold", "1",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "fanout")
        let workers = value(outcome.report, "workers") as? [[String: Any]] ?? []
        #expect(workers.count == 2)
        #expect(workers.allSatisfy { ($0["consumers"] as? Int ?? 0) > 0 })
        #expect(workers.contains { ($0["relayMessagesPerSecond"] as? Double ?? 0) > 0 })
        #expect(value(outcome.report, "clients.subscribers") as? Int == 3)
        #expect(value(outcome.report, "loss.packetsLost") as? Int == 0)
        #expect((value(outcome.report, "video.framesDecoded") as? Int ?? 0) > 30)
        #expect((value(outcome.report, "forwarding.packetsPerServerCPUSecond") as? Double ?? 0) > 0)
        #expect(value(outcome.report, "daemon.local") as? Bool == true)
    }

    /// A small overload run: every documented figure is there and adds up; whether 150 % is reached
    /// and 200 ms met is for `make bench`, on a machine with nothing else running.
    @Test func anOverloadRunReportsTheOfferWhatWasForwardedAndTheShedding() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run([
            "fanout", "--overload", "--clients", "24", "--sampled", "8", "--duration", "2", "--warmup", "0.5",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "overload")
        #expect(value(outcome.report, "clients.subscribers") as? Int == 24)
        #expect(value(outcome.report, "overload.sampled") as? Int == 8, "the measured sample, not the silent audience")
        #expect(value(outcome.report, "overload.refusedAtJoin") as? Int == 0, "everyone joined an idle worker")
        let offered = try #require(value(outcome.report, "overload.offeredPacketsPerSecond") as? Double)
        let forwarded = try #require(value(outcome.report, "overload.forwardedPacketsPerSecond") as? Double)
        #expect(offered > 0 && forwarded > 0)
        #expect(forwarded <= offered * 1.5, "forwarded \(forwarded) against an offer of \(offered)")
        let targets = (value(outcome.report, "targets") as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(targets.contains("p99 added latency under overload"))
        #expect(!targets.contains("no loss on clean subscribers"), "shedding drops by design")
        #expect(try !run(["audio-only", "--overload"]).errors.isEmpty, "--overload is for the fanout scenario")
    }

    @Test func fallbackTimingsFallWithinTheConfiguredPolicy() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run([
            "fallback", "--clients", "2", "--impaired", "1", "--schedule", "1s:loss=0.3;5s:clean", "--duration", "10", "--warmup", "1",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "fallback")
        try expectTimingsWithinThePolicy(outcome.report, at: "fallback")
        #expect(value(outcome.report, "fallback.cleanSubscriberEvents") as? Int == 0)
    }

    /// Issue 40's ladder on a simulcast stream whose link comes and goes: the layer steps down before
    /// any warning, video goes off only once the lowest layer cannot pass either, and it comes back
    /// on the lowest layer within 6 s of each clean spell, the second time at back-off level 1 too
    /// (a single encoding would need 8 s there).
    @Test func aSimulcastSubscriberOnALinkThatComesAndGoesGetsVideoBackOnTheLowestLayerInEverySpell() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run([
            "fallback", "--simulcast", "--clients", "2", "--impaired", "1", "--schedule", "4s:loss=0.3;12s:clean;24s:loss=0.3;32s:clean",
            "--duration", "44", "--warmup", "2", "--width", "1024", "--height", "576", "--video-bitrate", "800000",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "fallback")
        #expect(value(outcome.report, "fallback.simulcast") as? Bool == true)
        let spells = try #require(value(outcome.report, "fallback.cleanSpells") as? [[String: Any]])
        #expect(spells.count == 2)
        for spell in spells {
            #expect(spell["subscribersWithVideoOff"] as? Int == 1, "video off as the spell at \(spell["startSeconds"] ?? "?") s began")
            #expect(spell["subscribersBack"] as? Int == 1)
            let back = try #require(spell["videoBackAfterSeconds"] as? Double)
            #expect(back >= 2 && back <= 6, "video back \(back) s into the spell")
            #expect(spell["layersOnReturn"] as? [String] == ["256x144"])
        }
        let impaired = try #require((value(outcome.report, "fallback.subscribers") as? [[String: Any]])?.first { $0["impaired"] as? Bool == true })
        #expect(impaired["steppedDownBeforeWarning"] as? Bool == true)
        #expect(value(outcome.report, "fallback.cleanSubscriberEvents") as? Int == 0)
    }

    /// Issue 38's measurement: behind the same 20 % random loss, the subscribers taking RED (the
    /// publisher's, or the router's added to plain Opus) conceal at least half fewer frames than
    /// those getting plain Opus, and nothing fails to decode.
    @Test(arguments: [[], ["--red-from-router"]])
    func subscribersTakingRedConcealAtLeastHalfFewerFramesBehindTheSameLoss(source: [String]) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run(["red", "--clients", "4", "--duration", "8", "--warmup", "1"] + source)
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "red")
        #expect(value(outcome.report, "red.withRed.subscribers") as? Int == 2)
        #expect(value(outcome.report, "red.source") as? String == (source.isEmpty ? "publisher" : "router"))
        #expect((value(outcome.report, "red.withoutRed.packetsLost") as? Int ?? 0) > 0, "the loss reached the subscribers without RED")
        #expect((value(outcome.report, "red.withRed.framesRecovered") as? Int ?? 0) > 0)
        #expect((value(outcome.report, "red.concealedReduction") as? Double ?? 0) >= 0.5)
        let targets = value(outcome.report, "targets") as? [[String: Any]] ?? []
        #expect(!targets.isEmpty && targets.allSatisfy { $0["met"] as? Bool == true }, "\(targets)")
    }

    @Test func publisherSideFallbackIsTimedAndEverySubscriberFollows() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        // The uplink is judged from what the router receives every 500 ms, so it needs a stream
        // about the size of a real camera's to be judged as quickly as the policy promises.
        let outcome = try run([
            "fallback", "--clients", "2", "--publisher-schedule", "1s:loss=0.3;5s:clean", "--duration", "10", "--warmup", "1",
            "--video-bitrate", "500000",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(value(outcome.report, "fallback.side") as? String == "publisher")
        try expectTimingsWithinThePolicy(outcome.report, at: "fallback.publisher")
        #expect(value(outcome.report, "fallback.subscribersFollowingPublisher") as? Int == 2)
    }

    @Test func aRunningDaemonIsUsedWhenGivenItsURL() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let harness = try await DaemonHarness.start()
        let outcome = try run([
            "fanout", "--server", "ws://127.0.0.1:\(harness.port)/v1/ws", "--server-pid", "\(getpid())", "--clients", "2", "--duration", "2",
            "--warmup", "0.5",
        ])
        try await harness.stop()
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(value(outcome.report, "daemon.local") as? Bool == false)
        #expect(value(outcome.report, "clients.subscribers") as? Int == 2)
        #expect((value(outcome.report, "forwarding.packetsForwarded") as? Int ?? 0) > 0, "read from the running daemon's /metrics")
        #expect(value(outcome.report, "server.cpuSeconds") != nil, "read from /proc for --server-pid")
    }

    @Test func joinAndSoakReportTheirOwnSections() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let join = try run(["join", "--joins", "2", "--join-interval", "1.1", "--warmup", "0.5"])
        #expect(join.status == 0, "\(join.errors)")
        expectDocumentedFields(join.report, scenario: "join")
        #expect(value(join.report, "join.count") as? Int == 2)
        let soak = try run(["soak", "--clients", "2", "--duration", "3", "--warmup", "0.5"])
        #expect(soak.status == 0, "\(soak.errors)")
        expectDocumentedFields(soak.report, scenario: "soak")
    }

    @Test func aClientThatLosesItsNetworkBrieflyComesBackWithNothingLostAndUnseenByTheOthers() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run(["reconnect", "--drops", "0.5", "--signals-per-drop", "3", "--warmup", "0.5"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "reconnect")
        let drop = try #require((value(outcome.report, "reconnect.drops") as? [[String: Any]])?.first)
        #expect(drop["outcome"] as? String == "reconnected", "\(drop)")
        #expect(drop["belowGrace"] as? Bool == true)
        #expect((drop["reconnectedMs"] as? Double).map { $0 >= 0 } == true, "\(drop)")
        #expect(drop["firstFrameMs"] as? Double != nil, "\(drop)")
        #expect(drop["signalsDelivered"] as? Int == 3 && drop["signalsDuplicated"] as? Int == 0, "\(drop)")
        #expect(drop["eventsReplayed"] as? Int == 3 && drop["eventsDuplicated"] as? Int == 0, "\(drop)")
        #expect(drop["destroyEventsSeenByOthers"] as? Int == 0, "\(drop)")
    }

    @Test func bandwidthFollowsTheRoutersEstimateThroughEachStepOfTheCap() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run([
            "bandwidth", "--schedule", "0s:rate=2mbps;3s:rate=300kbps", "--duration", "7", "--warmup", "1", "--video-bitrate", "800000",
            "--width", "640", "--height", "360",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "bandwidth")
        let steps = try #require(value(outcome.report, "bandwidth.steps") as? [[String: Any]])
        #expect(steps.map { $0["capacityKbps"] as? Double } == [2000, 300])
        #expect(value(outcome.report, "bandwidth.feedback") as? String == "transport-cc")
        // A 832 kbps stream into a 300 kbps cap: the estimate must come down to the cap.
        #expect(steps.last?["convergedAfterSeconds"] as? Double != nil, "\(steps)")
        let points = try #require((value(outcome.report, "timeline") as? [[String: Any]])?.first?["points"] as? [[String: Any]])
        #expect(points.contains { $0["estimateKbps"] as? Double != nil } && points.contains { $0["capacityKbps"] as? Double == 300 })
    }

    /// `--network kernel`: the same cap, applied by a kernel queue on the veth into the subscriber's
    /// namespace. What arrives is what the queue let through: at most about the cap while it holds
    /// (the queue's own 200 ms aside), the whole stream again once it is lifted; and the namespaces
    /// the bench made are gone when it exits.
    @Test func aKernelShapedCapHoldsTheDeliveredRateAndLiftsAndTheNamespacesGoAfterwards() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        try #require(geteuid() == 0, "--network kernel makes network namespaces: run the tests as root")
        let capStart = 3.0
        let capEnd = 10.0
        let outcome = try run([
            "bandwidth", "--network", "kernel", "--schedule", "0s:rate=2mbps;\(Int(capStart))s:rate=300kbps;\(Int(capEnd))s:rate=2mbps", "--duration", "14",
            "--warmup", "1", "--video-bitrate", "800000", "--width", "640", "--height", "360",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(value(outcome.report, "options.network") as? String == "kernel")
        #expect((value(outcome.report, "daemon.url") as? String)?.contains("10.233.0.1") == true, "the daemon listened in its namespace")
        #expect((value(outcome.report, "errors") as? [String])?.isEmpty == true, "\(value(outcome.report, "errors") ?? "")")
        let points = try #require((value(outcome.report, "timeline") as? [[String: Any]])?.first?["points"] as? [[String: Any]])
        func meanKbps(_ range: ClosedRange<Double>) -> Double {
            let inside = points.filter { range.contains($0["seconds"] as? Double ?? -1) }.compactMap { $0["kbps"] as? Double }
            return inside.isEmpty ? 0 : inside.reduce(0, +) / Double(inside.count)
        }
        let sending = 832.0
        let before = meanKbps(1...capStart)
        // The queue empties within its 200 ms; a second later what arrives is the cap's.
        let capped = meanKbps((capStart + 1)...capEnd)
        let after = meanKbps((capEnd + 1.5)...14)
        #expect(before >= 0.6 * sending, "before the cap: \(before) kbps")
        #expect(capped > 0 && capped <= 1.3 * 300, "under the 300 kbps kernel cap: \(capped) kbps")
        #expect(after >= 0.6 * sending, "after the cap was lifted: \(after) kbps")
        let namespaces = try ChildProcess.run("/usr/sbin/ip", ["netns", "list"])
        #expect(!namespaces.contains("swy-\(outcome.pid)-"), "left behind: \(namespaces)")
    }

    @Test func speakersTimesTheTalkersWatchesOneTalkerAndComparesDownlinkAndWorkerCPU() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run([
            "speakers", "--clients", "4", "--turns", "2", "--turn-seconds", "2", "--steady-seconds", "3", "--duration", "1", "--forward-loudest", "1",
            "--warmup", "1",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "speakers")
        #expect(value(outcome.report, "clients.publishers") as? Int == 12)
        #expect(value(outcome.report, "clients.subscribers") as? Int == 36)
        // Two turns in the room forwarding everything, the same two in the one forwarding the loudest.
        let turns = try #require(value(outcome.report, "speakers.turns") as? [[String: Any]])
        #expect(turns.map { "\($0["room"] ?? "")/\($0["talker"] ?? "")" } == ["levels/p1", "levels/p2", "loudest/p1", "loudest/p2"])
        #expect(turns.allSatisfy { ($0["namedAfterMs"] as? Double ?? 0) > 0 }, "every talker named: \(turns)")
        #expect(value(outcome.report, "speakers.steadyTalkerNamedAfterMs") as? Double != nil)
        #expect(value(outcome.report, "speakers.falseSwitches") as? Int == 0, "\(value(outcome.report, "speakers.falseSwitchEvents") ?? "")")
        // Each listens to 3 others; with forwardLoudest 1 fewer of their packets come through.
        let all = try #require(value(outcome.report, "speakers.downlink.packetsPerSecondAll") as? Double)
        #expect(all > 120 && all <= 151, "3 streams of 50 packets/s: \(all)")
        let ratio = try #require(value(outcome.report, "speakers.downlink.packetRatio") as? Double)
        #expect(ratio > 0 && ratio < 0.9)
        let windows = try #require(value(outcome.report, "speakers.cpu.windows") as? [[String: Any]])
        #expect(windows.count == 3, "one window of --duration 1 s per second of --steady-seconds 3")
        #expect(value(outcome.report, "speakers.cpu.withLevelsWorker") as? Int != value(outcome.report, "speakers.cpu.withoutLevelsWorker") as? Int)
        #expect((value(outcome.report, "speakers.cpu.withLevelsMicroseconds") as? Double ?? 0) > 0)
        #expect((value(outcome.report, "speakers.cpu.withoutLevelsMicroseconds") as? Double ?? 0) > 0)
    }

    @Test func aBroadcastCrowdJoinsHearsOnlyTheCountAndLeaves() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run([
            "broadcast", "--clients", "60", "--churn-rate", "120", "--publishers", "2", "--media-viewers", "2", "--duration", "2", "--warmup", "0.5",
            "--width", "1024", "--height", "64",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "broadcast")
        #expect(value(outcome.report, "broadcast.joined") as? Int == 60)
        #expect(value(outcome.report, "broadcast.moderatorJoinsHeard") as? Int == 60)
        #expect(value(outcome.report, "broadcast.moderatorLeavesHeard") as? Int == 60, "the crowd's leaves, not the media viewers'")
        #expect(value(outcome.report, "broadcast.viewersWithTheRightCount") as? Int == 60)
        #expect(value(outcome.report, "broadcast.viewersThatHeardJoins") as? Int == 0)
        #expect((value(outcome.report, "broadcast.memoryPerConnectionKiB") as? Double).map { $0 > 0 } == true)
        // Two viewers also decoded both publishers' simulcast video (2 s of 30 fps each; a debug build decodes slower).
        #expect(value(outcome.report, "broadcast.publishers") as? Int == 2)
        #expect(value(outcome.report, "clients.publishers") as? Int == 2)
        #expect(value(outcome.report, "broadcast.mediaViewers") as? Int == 2)
        #expect((value(outcome.report, "video.framesDecoded") as? Int ?? 0) > 60)
        #expect(value(outcome.report, "video.decodeErrors") as? Int == 0)
        // The second crowd's sockets dropped; the moderator heard each leave when the 3 s graces ended.
        #expect(value(outcome.report, "broadcast.graceViewers") as? Int == 60)
        #expect(value(outcome.report, "broadcast.graceLeavesHeard") as? Int == 60)
        #expect(value(outcome.report, "broadcast.graceSeconds") as? Double == 3)
        #expect((value(outcome.report, "broadcast.graceTeardownSeconds") as? Double).map { $0 >= 0 } == true)
        #expect((value(outcome.report, "broadcast.otherSessionSlowestSignalMs") as? Double).map { $0 > 0 } == true)
    }

    @Test func webhooksDeliverEveryEventTheChurnCausedInOrderAndSigned() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run(["webhooks", "--sessions", "2", "--clients", "4", "--churn-rate", "4", "--duration", "3"])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "webhooks")
        let joins = try #require(value(outcome.report, "webhooks.joins") as? Int)
        #expect(joins >= 16, "2 sessions × 4 joins/s × 3 s: \(joins)")
        // Each join and leave, and each session's publisher, creation and end.
        #expect(value(outcome.report, "webhooks.eventsExpected") as? Int == 2 * joins + 2 * 2 + 2 * 2)
        #expect(value(outcome.report, "webhooks.eventsLost") as? Int == 0, "\(value(outcome.report, "webhooks.lostEvents") ?? "")")
        #expect(value(outcome.report, "webhooks.outOfOrder") as? Int == 0)
        #expect(value(outcome.report, "webhooks.badSignatures") as? Int == 0)
        #expect(value(outcome.report, "webhooks.unreadableBodies") as? Int == 0)
        #expect(value(outcome.report, "webhooks.eventsReceived") as? Int == value(outcome.report, "webhooks.eventsExpected") as? Int)
        #expect((value(outcome.report, "webhooks.daemonDelivered") as? Int ?? 0) >= 2 * joins + 8)
        #expect(value(outcome.report, "webhooks.cpu.connectionEventsWithout") as? Int ?? 0 > 0, "the churn ran again without webhooks")
        // Every join timed on both daemons, the daemon without webhooks given the same churn.
        #expect(value(outcome.report, "webhooks.joinLatency.joinsWith") as? Int == joins)
        #expect(value(outcome.report, "webhooks.joinLatency.joinsWithout") as? Int ?? 0 >= 16)
        #expect(value(outcome.report, "webhooks.joinLatency.p99Ratio") as? Double != nil)
    }

    @Test func aReceiverThatNeverAnswersLeavesTheQueueWithinItsBoundAndEveryJoinSucceeding() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        // 2 sessions × 4 joins/s × 3 s cause well over 10 events, and none is ever answered.
        let outcome = try run([
            "webhooks", "--receiver", "silent", "--max-queued-events", "10", "--sessions", "2", "--clients", "4", "--churn-rate", "4", "--duration", "3",
        ])
        #expect(outcome.status == 0, "\(outcome.errors)")
        expectDocumentedFields(outcome.report, scenario: "silent")
        #expect(value(outcome.report, "webhooks.maxQueuedEvents") as? Int == 10)
        let joins = try #require(value(outcome.report, "webhooks.joins") as? Int)
        #expect(joins >= 16, "2 sessions × 4 joins/s × 3 s: \(joins)")
        #expect(value(outcome.report, "webhooks.connectFailures") as? Int == 0, "\(value(outcome.report, "errors") ?? "")")
        #expect(value(outcome.report, "webhooks.joinLatency.joinsWith") as? Int == joins)
        #expect(value(outcome.report, "webhooks.joinLatency.joinsWithout") as? Int ?? 0 >= 16)
        let queued = try #require(value(outcome.report, "webhooks.daemonQueued") as? Int)
        #expect(queued <= 10 && queued > 0, "queued at the end: \(queued)")
        let peak = try #require(value(outcome.report, "webhooks.silent.queuedPeak") as? Int)
        #expect(peak <= 10)
        #expect((value(outcome.report, "webhooks.daemonDroppedByReason.queueFull") as? Int ?? 0) > 0)
        #expect(value(outcome.report, "webhooks.daemonDelivered") as? Int == 0)
        #expect((value(outcome.report, "webhooks.silent.requestsHeld") as? Int ?? 0) > 0)
        #expect(value(outcome.report, "webhooks.silent.releasedEarly") as? Int == 0)
        #expect(value(outcome.report, "webhooks.rssAtEndMB") as? Double != nil)
        #expect(value(outcome.report, "webhooks.rssAtEndWithoutWebhooksMB") as? Double != nil)
    }

    @Test(arguments: [
        (["webhooks", "--sessions", "0"], "--sessions must be within 1...100"),
        (["webhooks", "--churn-rate", "0"], "--churn-rate must be within (0, 1000]"),
        (["webhooks", "--server", "ws://127.0.0.1:9/v1/ws"], "--receiver-port must name the port of the webhook endpoint"),
        (["webhooks", "--server", "ws://127.0.0.1:9/v1/ws", "--receiver-port", "9"], "--webhook-secret must be the secret of the daemon's endpoint"),
        (["webhooks", "--webhook-secret", "too-short"], "--webhook-secret is 9 bytes; the daemon takes at least 32"),
        (["webhooks", "--receiver-port", "70000"], "--receiver-port must be within 0...65535"),
        (["webhooks", "--receiver", "rude"], "--receiver must be one of normal, silent, not rude"),
        (["webhooks", "--max-queued-events", "5"], "--max-queued-events must be within 10...1000000"),
        (
            ["webhooks", "--server", "ws://127.0.0.1:9/v1/ws", "--receiver-port", "9", "--webhook-secret", String(repeating: "s", count: 32), "--receiver", "silent"],
            "--max-queued-events must be the webhooks.maxQueuedEvents of the daemon at --server"
        ),
        (["speakers", "--clients", "2"], "--clients must be at least 3 for speakers"),
        (["speakers", "--forward-loudest", "0"], "--forward-loudest must be within 1...100"),
        (["speakers", "--turn-seconds", "0.5"], "--turn-seconds must be within 1...60"),
        (["speakers", "--steady-seconds", "5", "--duration", "8"], "--steady-seconds must hold at least one CPU window"),
        (["speakers", "--workers", "1"], "speakers runs two rooms on two media workers at once"),
        (["speakers", "--worker-loop", "dispatch-wait"], "--worker-loop must be epoll, not dispatch-wait"),
        (["bandwidth", "--feedback", "pigeon"], "--feedback must be one of remb, transport-cc"),
        (["bandwidth", "--schedule", "1s:loss=0.1"], "bandwidth needs a --schedule with a rate cap"),
        (["fanout", "--clients", "0"], "--clients must be at least 1"),
        (["reconnect", "--drops", "1,soon"], "--drops: \"1,soon\" is not a comma-separated list of seconds"),
        (["reconnect", "--drops", "0"], "--drops must be seconds within (0, 600]"),
        (["teleport"], "unknown scenario \"teleport\""),
        (["broadcast", "--clients", "20000"], "--clients (viewers) must be within 1...15000 for broadcast"),
        (["broadcast", "--media-viewers", "101"], "--media-viewers must be within 0...100"),
        (["broadcast", "--publishers", "11"], "--publishers must be within 1...10 for broadcast"),
        (["fallback", "--schedule", "3:loss=0.3"], "schedule step \"3:loss=0.3\" is not <seconds>s:<impairment>"),
        (["fanout", "--srtp-profile", "NULL"], "--srtp-profile NULL is not one of"),
        (["fallback", "--publisher-schedule", "1s:loss=0.3", "--impaired", "1"], "--publisher-schedule measures the publisher side"),
        (["fanout", "--media-threads", "0"], "--media-threads must be within 1...64"),
        (["bandwidth", "--network", "lan"], "--network must be one of client, kernel, not lan"),
        (["fanout", "--network", "kernel"], "--network kernel is for the fallback, bandwidth, simulcast, red scenarios"),
        (["red", "--clients", "1"], "--clients must be at least 2 for red: half take RED, half do not"),
        (["red", "--red-frames", "3"], "--red-frames must be 1 or 2, not 3"),
        (["bandwidth", "--network", "kernel", "--server", "ws://127.0.0.1:9/v1/ws"], "it cannot shape a daemon given with --server"),
        (["fallback", "--network", "kernel", "--schedule", "3s:loss=0.3,delay=40ms;6s:clean"], "needs the kernel's netem, and this kernel has none"),
        (["fallback", "--network", "kernel", "--schedule", "3s:loss=0.3,burst=4;6s:clean"], "nftables' numgen drops each packet independently"),
    ])
    func badOptionsAreRefusedWithTheirName(arguments: [String], message: String) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build first: swift build --build-tests")
        let outcome = try run(arguments)
        #expect(outcome.status != 0)
        #expect(outcome.errors.contains(message), "\(outcome.errors)")
    }
}
