import Foundation
import Glibc
import Signaling
import SignalingProtocol
import SwitchyardClient
import Synchronization

/// What the chaos run's background loops share: whether they go on, whether a fault is under way
/// (visitors come only then, so the samples after each recovery see the same load), and what they
/// recorded.
private final class ChaosActivity: Sendable {
    struct Recorded {
        var health: [BenchReport.ChaosHealthPoint] = []
        var media: [BenchReport.ChaosMediaPoint] = []
        var visitorJoins = 0
        var visitorJoinFailures = 0
        var visitorGaps = 0
        var visitorsInside = 0
        var signalSends: [Task<Void, Never>] = []
    }

    let running = Atomic(true)
    let faultUnderWay = Atomic(false)
    let sendsSignals = Atomic(true)
    let recorded = Mutex(Recorded())
    let ledger = ChaosSignalLedger()
    /// The lasting clients' sessions, to leave before the nodes the run started are ended.
    let sessions = Mutex<[Session]>([])
    /// The WebRTC clients' processes, ended with the run.
    let webrtcClients = Mutex<[ChaosWebRTCClient]>([])
    /// The interface the run readied for caps, cleared when it ends.
    let cappedInterface = Mutex<String?>(nil)
}

/// A node taken out by a fault, from then until its `/health` answered again: its own failures
/// there are the fault's, not the invariant's.
private struct NodeDownTime {
    var node: Int
    var from: UInt64
    var to: UInt64
}

extension BenchRun {
    /// Sessions over a running cluster (every `--server`, with its `--node-pid`): a publisher and
    /// subscribers each, signalling each other, visitors joining and leaving, while faults come one
    /// at a time (ChaosSchedule) for `--duration` seconds; each fault is lifted, the run waits until
    /// every client is whole again, samples the nodes, waits `--fault-spacing`, and goes on.
    /// docs/benchmark.md ("chaos") says what is checked.
    func runChaos() async throws {
        let urls = options.clusterURLs
        let nodes = try zip(urls, options.nodePIDs).map { url, pid throws(BenchError) in try ChaosNode(url: url, pid: pid) }
        let activity = ChaosActivity()
        let interruption = Self.endOwnNodesOnInterrupt(nodes, activity: activity)
        var stoppedNode: ChaosNode?
        var databaseStopped = false
        do {
            try await runChaos(nodes: nodes, activity: activity, stoppedNode: &stoppedNode, databaseStopped: &databaseStopped)
        } catch {
            activity.running.store(false, ordering: .releasing)
            // Faults end even when the run does not.
            if let stoppedNode { try? stoppedNode.send(SIGCONT) }
            if databaseStopped, let start = options.postgresStartCommand { _ = try? await Self.shell(start) }
            await endChaos(nodes: nodes, activity: activity, interruption: interruption)
            throw error
        }
        await endChaos(nodes: nodes, activity: activity, interruption: interruption)
    }

    private func endChaos(nodes: [ChaosNode], activity: ChaosActivity, interruption: [any DispatchSourceSignal]) async {
        for client in activity.webrtcClients.withLock({ $0 }) { await client.stop() }
        if let interface = activity.cappedInterface.withLock({ $0 }) {
            try? await KernelCommand.perform([KernelLinkShaper.clearEgress(namespace: nil, interface: interface), KernelLinkShaper.clearIngress(namespace: nil)])
        }
        for session in activity.sessions.withLock({ $0 }) {
            await session.disconnect()
            forget(session)
        }
        for node in nodes { await node.stopOwnProcess(grace: .seconds(20)) }
        interruption.forEach { $0.cancel() }
    }

    private func runChaos(nodes: [ChaosNode], activity: ChaosActivity, stoppedNode: inout ChaosNode?, databaseStopped: inout Bool) async throws {
        let urls = options.clusterURLs
        var chaos = BenchReport.Chaos()
        chaos.nodes = nodes.count
        chaos.sessions = options.sessions
        chaos.clientsPerSession = options.clients + 1
        chaos.nodeTimeoutSeconds = options.nodeTimeoutSeconds
        chaos.spacingSeconds = options.faultSpacingSeconds
        for node in nodes where !(await Self.waitForHealth(of: node, until: ContinuousClock.now + .seconds(30))) {
            throw BenchError.setupFailed("\(node.url) does not answer /health")
        }

        var rooms: [[ChaosClient]] = []
        for index in 0..<options.sessions {
            say("chaos session \(index + 1) of \(options.sessions)")
            let sessionId = "\(sessionPrefix)-chaos-\(index)"
            let entry = urls[index % urls.count]
            let publisherSession = try await connect(
                session: sessionId, role: .publisher, reconnects: true, through: entry, alternatives: urls.filter { $0 != entry },
                reconnectTimeout: Self.chaosReconnectTimeout)
            let publisher = try await publisherSession.publish(PublisherSettings(name: ChaosClient.publisherStreamName, media: media))
            var clients = [ChaosClient(name: "s\(index)/publisher", session: publisherSession, publisher: publisher)]
            for subscriber in 0..<options.clients {
                let through = urls[(index + subscriber + 1) % urls.count]
                let session = try await connect(
                    session: sessionId, role: .subscriber, reconnects: true, through: through, alternatives: urls.filter { $0 != through },
                    reconnectTimeout: Self.chaosReconnectTimeout)
                clients.append(ChaosClient(name: "s\(index)/subscriber-\(subscriber + 1)", session: session, publisher: nil))
            }
            rooms.append(clients)
        }
        report.clients.publishers = rooms.count
        report.clients.subscribers = rooms.count * options.clients
        let everyone = rooms.flatMap { $0 }
        activity.sessions.withLock { $0 = everyone.map(\.session) }
        let webrtc = try await startWebRTCClients(rooms: rooms, activity: activity)
        chaos.webrtcClients = webrtc.count
        let start = MonotonicClock.now()
        let usageStart = ProcessUsageSample.current(at: start)
        func seconds(_ instant: UInt64) -> Double { (Double(instant) - Double(start)) / 1e9 }

        let loops = startChaosLoops(rooms: rooms, webrtc: webrtc, nodes: nodes, activity: activity, start: start)
        say("waiting for media in every session")
        guard await Self.waitUntilWhole(everyone, since: start, until: start + 30_000_000_000) != nil else {
            throw BenchError.setupFailed("not every client had media within 30 s of the start")
        }
        guard await Self.waitUntilWhole(webrtc, since: start, until: start + 60_000_000_000) != nil else {
            let now = MonotonicClock.now()
            throw BenchError.setupFailed("not every WebRTC client decoded frames within 60 s of the start: " + webrtc.map { $0.describe(now: now) }.joined(separator: "; "))
        }
        if options.capKbps > 0 {
            try await KernelCommand.perform(
                KernelLinkShaper.prepareEgress(namespace: nil, interface: options.capInterface) + KernelLinkShaper.prepareIngress(namespace: nil))
            activity.cappedInterface.withLock { $0 = options.capInterface }
        }
        sampleResources(of: nodes, afterFault: -1, into: &chaos)

        let kinds = ChaosFaultKind.scheduled(caps: options.capKbps > 0)
        var schedule = ChaosSchedule(
            kinds: kinds, nodes: nodes.count, sessions: rooms.count, clientsPerSession: options.clients,
            spacingSeconds: options.faultSpacingSeconds, outageSeconds: options.outageSeconds, capSeconds: options.capSeconds,
            allowances: Dictionary(uniqueKeysWithValues: ChaosFaultKind.allCases.map { ($0, allowance(for: $0)) }))
        var downTimes: [NodeDownTime] = []
        let faultsStart = MonotonicClock.now()
        var nodeFaults = 0
        while var fault = schedule.next(nowSeconds: (Double(MonotonicClock.now()) - Double(faultsStart)) / 1e9, endSeconds: options.durationSeconds) {
            if fault.kind.targetsNode {
                // The node serving the next session in turn, so that every node fault hits clients
                // (sessions gather on the nodes that stay up); the schedule's turn when none does.
                let serving = rooms[nodeFaults % rooms.count][0].session.serverURL
                fault.target = nodes.firstIndex { $0.url == serving } ?? fault.target
                nodeFaults += 1
            }
            say("fault \(fault.index + 1): \(fault.kind.rawValue)")
            activity.faultUnderWay.store(true, ordering: .releasing)
            var record = BenchReport.ChaosFault(
                index: fault.index, kind: fault.kind.rawValue, target: "", startSeconds: seconds(MonotonicClock.now()), liftedSeconds: 0,
                allowanceMs: allowance(for: fault.kind) * 1000)
            let faultStart = MonotonicClock.now()
            var lifted = faultStart
            var nodeBack: Task<UInt64?, Never>?
            var videoBack: Task<Double?, Never>?
            switch fault.kind {
            case .nodeKilled, .nodeDrained:
                let node = nodes[fault.target]
                record.target = node.url
                try node.send(fault.kind == .nodeKilled ? SIGKILL : SIGTERM)
                lifted = MonotonicClock.now()
                let drains = fault.kind == .nodeDrained
                let restartDelay = drains ? 0 : Self.restartDelayAfterKill
                nodeBack = Task {
                    if await !node.waitForExit(deadline: ContinuousClock.now + .seconds(drains ? 30 : 5)) {
                        try? node.send(SIGKILL)
                        _ = await node.waitForExit(deadline: ContinuousClock.now + .seconds(5))
                    }
                    try? await Task.sleep(for: .seconds(restartDelay))
                    do {
                        try await node.restart(deadline: ContinuousClock.now + .seconds(60))
                        return MonotonicClock.now()
                    } catch {
                        return nil
                    }
                }
            case .nodeStopped:
                let node = nodes[fault.target]
                record.target = node.url
                try node.send(SIGSTOP)
                stoppedNode = node
                try await Task.sleep(for: .seconds(fault.seconds))
                try node.send(SIGCONT)
                stoppedNode = nil
                lifted = MonotonicClock.now()
                nodeBack = Task { await Self.waitForHealth(of: node, until: ContinuousClock.now + .seconds(30)) ? MonotonicClock.now() : nil }
            case .databaseAway:
                record.target = "PostgreSQL"
                guard let stop = options.postgresStopCommand, let restart = options.postgresStartCommand else { continue }
                try await Self.shell(stop)
                databaseStopped = true
                try await Task.sleep(for: .seconds(fault.seconds))
                try await Self.shell(restart)
                databaseStopped = false
                lifted = MonotonicClock.now()
            case .clientNetworkLost:
                let client = rooms[fault.target][fault.client]
                record.target = client.name
                record.detail = "\(Int(fault.seconds)) s without WebSocket and UDP"
                client.session.simulateNetworkOutage(for: .milliseconds(Int(fault.seconds * 1000)))
                try await Task.sleep(for: .seconds(fault.seconds))
                lifted = MonotonicClock.now()
            case .slowReader:
                let room = rooms[fault.target]
                record.target = "s\(fault.target)/slow-reader"
                let (cut, sent) = try await stallReader(in: room, index: fault.index, seconds: fault.seconds, activity: activity)
                chaos.slowReaders += 1
                if cut { chaos.slowReadersCut += 1 }
                record.detail = "\(sent) broadcasts of 8 kB meanwhile; \(cut ? "cut off by the node" : "still connected at the end")"
                lifted = MonotonicClock.now()
            case .clientCapped:
                let client = rooms[fault.target][fault.client]
                record.target = client.name
                record.detail = "downlink capped at \(options.capKbps) kbps for \(Int(fault.seconds)) s"
                let (cap, subscriber, atLift) = try await capDownlink(of: client, fault: fault, others: everyone.filter { $0 !== client }, webrtc: webrtc)
                chaos.caps.append(cap)
                lifted = atLift.at
                let deadline = lifted + UInt64((allowance(for: .clientCapped) + 30) * 1e9)
                videoBack = Task { await Self.videoBack(of: subscriber, from: atLift, toKbps: cap.videoKbpsBefore / 2, until: deadline) }
            }
            record.liftedSeconds = seconds(lifted)
            if !webrtc.isEmpty { record.webrtcAllowanceMs = webrtcAllowance(for: fault.kind) * 1000 }
            let liftedAt = lifted
            let webrtcDeadline = lifted + UInt64((webrtcAllowance(for: fault.kind) + 30) * 1e9)
            async let webrtcRecovered = Self.waitUntilWhole(webrtc, since: liftedAt, until: webrtcDeadline)
            let recovered = await Self.waitUntilWhole(everyone, since: lifted, until: lifted + UInt64((allowance(for: fault.kind) + 30) * 1e9))
            if let recovered {
                record.recoveredSeconds = seconds(recovered)
                record.recoveryMs = (Double(recovered) - Double(lifted)) / 1e6
            } else {
                let now = MonotonicClock.now()
                let broken = everyone.filter { !$0.isWhole(since: lifted, now: now, freshness: 600_000_000) }.map { $0.describe(now: now) }
                report.errors.append(
                    "fault \(fault.index + 1) (\(fault.kind.rawValue)): not every client whole again within \(allowance(for: fault.kind) + 30) s: "
                        + broken.joined(separator: "; "))
                say(report.errors.last!)
            }
            if let videoBack {
                // A cap is over once its subscriber's video is back, too.
                let back = await videoBack.value
                chaos.caps[chaos.caps.count - 1].videoBackMs = back
                record.recoveryMs = back.flatMap { back in record.recoveryMs.map { max($0, back) } }
                record.recoveredSeconds = record.recoveryMs.map { record.liftedSeconds + $0 / 1000 }
            }
            if let webrtcRecovered = await webrtcRecovered {
                if !webrtc.isEmpty {
                    record.webrtcRecoveredSeconds = seconds(webrtcRecovered)
                    record.webrtcRecoveryMs = (Double(webrtcRecovered) - Double(lifted)) / 1e6
                }
            } else {
                let now = MonotonicClock.now()
                report.errors.append(
                    "fault \(fault.index + 1) (\(fault.kind.rawValue)): not every WebRTC client decoding again within \(webrtcAllowance(for: fault.kind) + 30) s: "
                        + webrtc.filter { $0.resumed(since: lifted, now: now) == nil }.map { $0.describe(now: now) }.joined(separator: "; "))
                say(report.errors.last!)
            }
            if let nodeBack {
                let back = await nodeBack.value
                record.nodeBackSeconds = back.map(seconds)
                downTimes.append(NodeDownTime(node: fault.target, from: faultStart, to: back ?? MonotonicClock.now()))
                if back == nil { throw BenchError.setupFailed("\(record.target) did not answer /health again after \(fault.kind.rawValue)") }
            }
            activity.faultUnderWay.store(false, ordering: .releasing)
            say(
                "fault \(fault.index + 1): \(fault.kind.rawValue) on \(record.target): whole again after \(record.recoveryMs.map { String(format: "%.0f ms", $0) } ?? "never")"
                    + (webrtc.isEmpty ? "" : ", WebRTC clients after \(record.webrtcRecoveryMs.map { String(format: "%.0f ms", $0) } ?? "never")"))
            let visitorsGone = ContinuousClock.now + .seconds(30)
            while activity.recorded.withLock({ $0.visitorsInside }) > 0, ContinuousClock.now < visitorsGone { try await Task.sleep(for: .milliseconds(100)) }
            // Settled: what the nodes hold now is what they held after the last fault.
            try await Task.sleep(for: .seconds(2))
            if recovered != nil {
                // Whole again must stay whole: a fault's damage can come after the recovery it let
                // be seen (an edge dropping a live origin's routes once the database is back).
                let now = MonotonicClock.now()
                let relapsed = everyone.filter { !$0.hasMedia(now: now, freshness: 600_000_000) }.map { $0.describe(now: now) }
                if !relapsed.isEmpty {
                    record.relapsed = relapsed
                    chaos.relapses += 1
                    report.errors.append("fault \(fault.index + 1) (\(fault.kind.rawValue)): whole again, then not 2 s later: " + relapsed.joined(separator: "; "))
                    say(report.errors.last!)
                }
            }
            chaos.faults.append(record)
            sampleResources(of: nodes, afterFault: fault.index, into: &chaos)
            try await Task.sleep(for: .seconds(max(0, options.faultSpacingSeconds - 2)))
        }

        say("faults over; letting every signal finish")
        activity.sendsSignals.store(false, ordering: .releasing)
        _ = await Self.waitUntilWhole(everyone, since: start, until: MonotonicClock.now() + 30_000_000_000)
        let sends = activity.recorded.withLock { $0.signalSends }
        let sendsDeadline = ContinuousClock.now + .seconds(40)
        for send in sends {
            while ContinuousClock.now < sendsDeadline, activity.ledger.pendingCount > 0 { try await Task.sleep(for: .milliseconds(100)) }
            send.cancel()
        }
        try await Task.sleep(for: .seconds(3))
        activity.running.store(false, ordering: .releasing)
        for loop in loops { await loop.value }

        // A connection held for its client's return ends at the grace (20 s by default); the client
        // comes back as a new one within seconds of its network: 40 s after the reply.
        chaos.signals = activity.ledger.tally(excuseWindow: 40_000_000_000)
        let recorded = activity.recorded.withLock { $0 }
        chaos.eventGaps = everyone.map(\.session.eventSequenceGaps).reduce(0, +) + recorded.visitorGaps
        chaos.visitorJoins = recorded.visitorJoins
        chaos.visitorJoinFailures = recorded.visitorJoinFailures
        chaos.mediaTimeline = recorded.media
        chaos.health.timeline = recorded.health
        chaos.health.samples = recorded.health.count
        for point in recorded.health where !point.ok {
            chaos.health.failures += 1
            let at = start &+ UInt64(max(0, point.seconds) * 1e9)
            // A request begun up to its 2 s timeout before the node went, or answered just after it
            // came back, belongs to the fault too.
            let own = downTimes.contains { $0.node == point.node && at + 2_500_000_000 >= $0.from && at <= $0.to + 500_000_000 }
            if !own {
                chaos.health.failuresOutsideOwnFaults += 1
                if chaos.health.examples.count < 10 { chaos.health.examples.append("\(urls[point.node]) at \(String(format: "%.1f", point.seconds)) s") }
            }
        }
        chaos.recovery = ChaosInvariants.recovery(of: chaos.faults)
        chaos.webrtcRecovery = ChaosInvariants.webrtcRecovery(of: chaos.faults)
        chaos.webrtcSubscriptions = webrtc.map(\.subscriptions).reduce(0, +)
        chaos.trends = ChaosInvariants.trends(
            of: chaos.resources, nodeNames: urls,
            retainingFaults: Set(chaos.faults.filter { $0.kind == ChaosFaultKind.slowReader.rawValue }.map(\.index)))
        let usageEnd = ProcessUsageSample.current(at: MonotonicClock.now())
        report.measuredSeconds = seconds(usageEnd.at)
        report.bench = ProcessUsageSample.usage(from: usageStart, to: usageEnd, peakMB: usageEnd.rssMB)
        report.chaos = chaos
    }

    /// How long the lasting clients try to come back after a drop: the client's default, 30 s, is
    /// the longest outage the run imposes, so a client would give up just as its network returned.
    static let chaosReconnectTimeout = Duration.seconds(60)

    /// How long a killed node stays down before the run starts it again, as a supervisor would
    /// (systemd's `RestartSec`), well within the node timeout: the new process is another instance,
    /// which the other nodes tell from the killed one at their next heartbeat.
    static let restartDelayAfterKill = 1.0

    /// The longest a fault of `kind` may take, from being lifted to every client whole again
    /// (docs/operations.md has what was measured against these).
    func allowance(for kind: ChaosFaultKind) -> Double {
        switch kind {
        // Until the dead node's heartbeat is older than the timeout, placement still sends its
        // sessions there; then a reconnect, a publish again and a subscribe.
        // A subscriber cascaded from the killed node waits for its origin's next look at the
        // live nodes (every node timeout) after the timeout: up to twice the timeout.
        case .nodeKilled: 2 * options.nodeTimeoutSeconds + 6
        case .nodeDrained: 6
        case .clientNetworkLost: 6
        case .databaseAway: 3
        case .nodeStopped: 6
        case .slowReader: 3
        // The router lowers what it sends (or turns video off) under the cap and probes its way
        // back up after it: video at half its rate again, and everyone whole.
        case .clientCapped: 15
        }
    }

    /// A WebRTC client's allowance: the plain clients' plus what aiortc adds to come back: noticing
    /// its node gone only when no frame came for 8 s (a stopped node keeps the WebSocket), a new
    /// WebSocket, ICE, DTLS and a key frame.
    func webrtcAllowance(for kind: ChaosFaultKind) -> Double { allowance(for: kind) + 10 }

    /// Frames decoded within this long count as media now: aiortc prints its totals at most every
    /// 0.2 s, and the run reads them every 0.2 s.
    static let webrtcFreshness: UInt64 = 1_000_000_000

    /// One aiortc subscriber in each of the first `--webrtc-clients` sessions, coming in through the
    /// node after the session's publisher's and trying the others in turn.
    private func startWebRTCClients(rooms: [[ChaosClient]], activity: ChaosActivity) async throws -> [ChaosWebRTCClient] {
        guard options.webrtcClients > 0, let peer = options.aiortcPeer else { return [] }
        let urls = options.clusterURLs
        var clients: [ChaosWebRTCClient] = []
        for index in 0..<options.webrtcClients {
            let sessionId = rooms[index][0].session.sessionId
            // Valid for the whole run: the peer presents it again at every reconnect.
            let token = try await tokens.mintClientToken(
                sessionId: sessionId, role: .subscriber, lifetime: Int64(options.durationSeconds) + 3600, now: Date())
            let first = (index + 1) % urls.count
            let client = try ChaosWebRTCClient(
                name: "s\(index)/webrtc", peer: peer, urls: Array(urls[first...] + urls[..<first]), sessionId: sessionId, token: token,
                streamName: ChaosClient.publisherStreamName, seconds: options.durationSeconds + 600,
                outputPath: FileManager.default.temporaryDirectory.appendingPathComponent("chaos-webrtc-\(getpid())-\(index).jsonl").path)
            clients.append(client)
            activity.webrtcClients.withLock { $0.append(client) }
        }
        return clients
    }

    /// Caps `client`'s downlink by its media port for the fault's seconds: its video before (2 s) and
    /// under the cap (its second half), and whether anybody else was without media meanwhile.
    /// Returns what it saw, the subscription, and its statistics when the cap lifted.
    private func capDownlink(
        of client: ChaosClient, fault: ChaosSchedule.Fault, others: [ChaosClient], webrtc: [ChaosWebRTCClient]
    ) async throws -> (BenchReport.ChaosCap, Subscriber, (at: UInt64, statistics: SubscriberMediaStatistics)) {
        guard let subscriber = client.state.withLock({ $0.subscriber }) else { throw BenchError.setupFailed("\(client.name) has no subscription to cap") }
        let shaper = KernelLinkShaper(
            port: subscriber.mediaPort, direction: .toClient,
            placement: .init(egressNamespace: nil, egressInterface: options.capInterface, ingressNamespace: nil, ingressInterface: options.capInterface),
            classMinor: UInt16(2 + fault.index % 4000))
        let capped = NetworkImpairment(bandwidth: options.capKbps * 1000)
        func kbps(_ from: SubscriberMediaStatistics.Track, _ to: SubscriberMediaStatistics.Track, seconds: Double) -> Double {
            Double(to.bytesReceived &- from.bytesReceived) * 8 / 1000 / seconds
        }
        let before = await subscriber.statistics()
        try await Task.sleep(for: .seconds(2))
        let atCap = await subscriber.statistics()
        var cap = BenchReport.ChaosCap(
            faultIndex: fault.index, target: client.name, capKbps: options.capKbps, videoKbpsBefore: kbps(before.video, atCap.video, seconds: 2),
            videoKbpsCapped: 0, audioKbpsCapped: 0, videoDisabled: false, videoBackMs: nil, othersWithoutMedia: [])
        try await KernelCommand.perform(try shaper.install(capped))
        let capStart = MonotonicClock.now()
        let capEnd = capStart + UInt64(fault.seconds * 1e9)
        var secondHalf: SubscriberMediaStatistics?
        var affected = Set<String>()
        while MonotonicClock.now() < capEnd {
            let now = MonotonicClock.now()
            if secondHalf == nil, now >= capStart + UInt64(fault.seconds / 2 * 1e9) { secondHalf = await subscriber.statistics() }
            if !subscriber.isVideoExpected { cap.videoDisabled = true }
            for other in others where !other.hasMedia(now: now, freshness: 1_000_000_000) { affected.insert(other.name) }
            for other in webrtc where !other.hasMedia(now: now, freshness: 2 * Self.webrtcFreshness) { affected.insert(other.name) }
            try await Task.sleep(for: .milliseconds(200))
        }
        let atEnd = await subscriber.statistics()
        try await KernelCommand.perform(try shaper.change(from: capped, to: .clean))
        let lifted = MonotonicClock.now()
        if let secondHalf {
            let seconds = Double(lifted - capStart) / 1e9 - fault.seconds / 2
            cap.videoKbpsCapped = kbps(secondHalf.video, atEnd.video, seconds: seconds)
            cap.audioKbpsCapped = kbps(secondHalf.audio, atEnd.audio, seconds: seconds)
        }
        cap.othersWithoutMedia = affected.sorted()
        return (cap, subscriber, (lifted, atEnd))
    }

    /// Milliseconds from `lift` until a second in which `subscriber` received video at `toKbps` or
    /// more; nil at `deadline`.
    private static func videoBack(
        of subscriber: Subscriber, from lift: (at: UInt64, statistics: SubscriberMediaStatistics), toKbps: Double, until deadline: UInt64
    ) async -> Double? {
        var previous = lift
        while MonotonicClock.now() < deadline {
            try? await Task.sleep(for: .milliseconds(250))
            let now = MonotonicClock.now()
            guard now - previous.at >= 1_000_000_000 else { continue }
            let statistics = await subscriber.statistics()
            let kbps = Double(statistics.video.bytesReceived &- previous.statistics.video.bytesReceived) * 8 / 1000 / (Double(now - previous.at) / 1e9)
            if kbps >= toKbps { return Double(now - lift.at) / 1e6 }
            previous = (now, statistics)
        }
        return nil
    }

    /// The background of the run: clients tended (subscribed again, media noted) every 200 ms and the
    /// sessions' media drawn every second, signals, `/health` of every node every second, and
    /// visitors while a fault is under way. Each ends once `activity.running` is false.
    private func startChaosLoops(rooms: [[ChaosClient]], webrtc: [ChaosWebRTCClient], nodes: [ChaosNode], activity: ChaosActivity, start: UInt64) -> [Task<Void, Never>] {
        let everyone = rooms.flatMap { $0 }
        let ledger = activity.ledger
        var loops: [Task<Void, Never>] = []
        loops.append(
            Task {
                var lastDrawn: UInt64 = 0
                while activity.running.load(ordering: .acquiring) {
                    let now = MonotonicClock.now()
                    for client in everyone { await client.tend(now: now) }
                    for client in webrtc { client.tend(now: now) }
                    if now &- lastDrawn >= 1_000_000_000 {
                        lastDrawn = now
                        let whole = rooms.map { room in room.allSatisfy { $0.hasMedia(now: now, freshness: 1_000_000_000) } }
                        let webrtcWhole = webrtc.map { $0.hasMedia(now: now, freshness: Self.webrtcFreshness) }
                        activity.recorded.withLock {
                            $0.media.append(BenchReport.ChaosMediaPoint(seconds: (Double(now) - Double(start)) / 1e9, sessionsWhole: whole, webrtcWhole: webrtcWhole))
                        }
                    }
                    try? await Task.sleep(for: .milliseconds(200))
                }
            })
        loops.append(
            Task {
                var turn = 0
                while activity.running.load(ordering: .acquiring) {
                    if activity.sendsSignals.load(ordering: .acquiring) {
                        let room = rooms[turn % rooms.count]
                        turn += 1
                        let sender = room[Int.random(in: 0..<room.count)]
                        let recipient = room.filter { $0 !== sender }.randomElement()!
                        let status = sender.session.connectionStatus
                        if status == .connected || status == .reconnecting {
                            let send = ledger.send(from: sender, to: recipient, checkedAt: [recipient])
                            activity.recorded.withLock { $0.signalSends.append(send) }
                        }
                    }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            })
        loops.append(
            Task {
                await withTaskGroup(of: Void.self) { group in
                    while activity.running.load(ordering: .acquiring) {
                        for (index, node) in nodes.enumerated() {
                            group.addTask {
                                let asked = MonotonicClock.now()
                                let ok = await node.healthAnswers(timeout: 2)
                                activity.recorded.withLock {
                                    $0.health.append(BenchReport.ChaosHealthPoint(node: index, seconds: (Double(asked) - Double(start)) / 1e9, ok: ok))
                                }
                            }
                        }
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
            })
        for (index, room) in rooms.enumerated() {
            let sessionId = room[0].session.sessionId
            loops.append(
                Task {
                    while activity.running.load(ordering: .acquiring) {
                        guard activity.faultUnderWay.load(ordering: .acquiring) else {
                            try? await Task.sleep(for: .milliseconds(200))
                            continue
                        }
                        activity.recorded.withLock { $0.visitorsInside += 1 }
                        let joined = await visit(sessionId, through: options.clusterURLs[(index + Int.random(in: 0..<3)) % options.clusterURLs.count])
                        activity.recorded.withLock {
                            $0.visitorsInside -= 1
                            if let gaps = joined {
                                $0.visitorJoins += 1
                                $0.visitorGaps += gaps
                            } else {
                                $0.visitorJoinFailures += 1
                            }
                        }
                        // A node that refuses at once must not make a visitor a flood.
                        if joined == nil { try? await Task.sleep(for: .seconds(1)) }
                    }
                })
        }
        return loops
    }

    /// A visitor: joins `sessionId`, subscribes to its publisher, waits up to 5 s for media, stays
    /// a second or two and leaves. The event gaps it saw, or nil when it could not join and receive.
    private func visit(_ sessionId: String, through entry: String) async -> Int? {
        guard let session = try? await connect(session: sessionId, role: .subscriber, through: entry) else { return nil }
        defer { forget(session) }
        let deadline = MonotonicClock.now() + 5_000_000_000
        var received = false
        while MonotonicClock.now() < deadline, !received {
            if let stream = session.streams.first(where: { $0.name == ChaosClient.publisherStreamName }),
                let subscriber = try? await session.subscribe(to: stream.streamId)
            {
                while MonotonicClock.now() < deadline, !received {
                    let statistics = await subscriber.statistics()
                    received = statistics.audio.packetsReceived + statistics.video.packetsReceived > 0
                    try? await Task.sleep(for: .milliseconds(50))
                }
            } else {
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        try? await Task.sleep(for: .milliseconds(Int.random(in: 1000...2000)))
        let gaps = session.eventSequenceGaps
        await session.disconnect()
        return received ? gaps : nil
    }

    /// A client that never reads joins `room`'s session at its node, and the publisher broadcasts
    /// 8 kB signals at 40 a second for `seconds` (each checked at every lasting client). Whether the
    /// node cut the reader off, and how many broadcasts went out.
    private func stallReader(in room: [ChaosClient], index: Int, seconds: Double, activity: ChaosActivity) async throws -> (Bool, Int) {
        let publisher = room[0]
        let marker = "slow-reader-\(index)"
        let token = try await tokens.mintClientToken(
            sessionId: publisher.session.sessionId, role: .subscriber, connectionData: marker, lifetime: 600, now: Date())
        let reader = try StalledWebSocket(url: publisher.session.serverURL, sessionId: publisher.session.sessionId, token: token)
        try await Task.sleep(for: .milliseconds(500))
        let end = MonotonicClock.now() + UInt64(seconds * 1e9)
        var sent = 0
        while MonotonicClock.now() < end {
            let send = activity.ledger.send(from: publisher, to: nil, checkedAt: room, padding: 8000)
            activity.recorded.withLock { $0.signalSends.append(send) }
            sent += 1
            try await Task.sleep(for: .milliseconds(25))
        }
        let seenLeaving = room.contains { $0.state.withLock { $0.departedData.contains(marker) } }
        return (seenLeaving || reader.isClosedByServer(), sent)
    }

    private func sampleResources(of nodes: [ChaosNode], afterFault index: Int, into chaos: inout BenchReport.Chaos) {
        for (node, chaosNode) in nodes.enumerated() {
            guard let sample = chaosNode.resources() else { continue }
            chaos.resources.append(
                BenchReport.ChaosResourceSample(
                    afterFault: index, node: node, pid: chaosNode.pid, ageSeconds: sample.ageSeconds, rssMB: sample.rssMB, descriptors: sample.descriptors,
                    udpSockets: sample.udpSockets))
        }
    }

    /// When every client was whole again after `since` (connected; subscribers with media that
    /// arrived after it, the last within 600 ms), checked every 100 ms; nil at `deadline`.
    private static func waitUntilWhole(_ clients: [ChaosClient], since: UInt64, until deadline: UInt64) async -> UInt64? {
        while MonotonicClock.now() < deadline {
            let now = MonotonicClock.now()
            if clients.allSatisfy({ $0.isWhole(since: since, now: now, freshness: 600_000_000) }) { return now }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// When every WebRTC client was decoding again after `since` (the latest of their
    /// `ChaosWebRTCClient.resumed`), checked every 100 ms; nil at `deadline`.
    private static func waitUntilWhole(_ clients: [ChaosWebRTCClient], since: UInt64, until deadline: UInt64) async -> UInt64? {
        while MonotonicClock.now() < deadline {
            let now = MonotonicClock.now()
            let resumed = clients.map { $0.resumed(since: since, now: now) }
            if resumed.allSatisfy({ $0 != nil }) { return resumed.compactMap { $0 }.max() ?? since }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    private static func waitForHealth(of node: ChaosNode, until deadline: ContinuousClock.Instant) async -> Bool {
        while ContinuousClock.now < deadline {
            if await node.healthAnswers(timeout: 1) { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// Runs `command` with /bin/sh (the script's PostgreSQL stop and start) and waits for it.
    private static func shell(_ command: String) async throws(BenchError) {
        let status = try await ShellProcess(command: command).waitForExit()
        guard status == 0 else { throw .setupFailed("\(command) exited with \(status)") }
    }

    /// Ctrl-C or SIGTERM during the run: end the node processes and WebRTC clients the run started
    /// (and let a stopped node go on first), lift the caps, then exit 130.
    private static func endOwnNodesOnInterrupt(_ nodes: [ChaosNode], activity: ChaosActivity) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("switchyard-bench: interrupted; ending the nodes the chaos run started\n".utf8))
                for node in nodes {
                    kill(node.pid, SIGCONT)
                    if let own = node.ownPID { kill(own, SIGKILL) }
                }
                for client in activity.webrtcClients.withLock({ $0 }) { client.endAtOnce() }
                if let interface = activity.cappedInterface.withLock({ $0 }) {
                    _ = try? KernelLinkShaper.clearEgress(namespace: nil, interface: interface).run()
                    _ = try? KernelLinkShaper.clearIngress(namespace: nil).run()
                }
                Foundation.exit(130)
            }
            source.resume()
            return source
        }
    }
}
