import Foundation
import SignalingProtocol
import SwitchyardClient
import Synchronization

extension BenchRun {
    /// One session created with connection events suppressed; its publishers and a moderator join,
    /// then `clients` signaling-only viewers (WebSocket clients that never publish or subscribe)
    /// join at `churnRate` a second, and once every count has settled, leave at once (a crowd of
    /// more than 1,000 in two waves: 1,000, then the rest). Each
    /// join is timed from sending `connect` to its reply; the daemon's memory is read before and
    /// after the crowd; the moderator must hear every join and leave, each viewer none, and every
    /// viewer's count must reach the crowd's size.
    func runBroadcast() async throws {
        let sessionId = "\(sessionPrefix)-broadcast"
        try await createSession(#"{"sessionId":"\#(sessionId)","connectionEventsSuppressed":true}"#)
        var publishers: [Session] = []
        for _ in 0..<options.broadcastPublishers { publishers.append(try await connect(session: sessionId, role: .publisher)) }
        let moderator = try await connect(session: sessionId, role: .moderator)
        let heard = ModeratorTally()
        let listening = Task {
            for await event in moderator.events {
                switch event {
                case .connectionCreated: heard.created()
                case .connectionDestroyed(_, let reason): heard.destroyed(atGraceEnd: reason == .networkDisconnected)
                default: continue
                }
            }
        }
        defer { listening.cancel() }
        var broadcast = BenchReport.Broadcast(viewers: options.clients, joinsPerSecond: options.churnRate)
        broadcast.publishers = publishers.count
        let benchBefore = ProcessUsageSample.current(at: MonotonicClock.now())
        let daemonBefore = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }

        say("\(options.clients) viewers joining at \(options.churnRate) a second")
        let joinStart = ContinuousClock.now
        let (viewers, failures) = await joinCrowd(options.clients, of: sessionId)
        report.errors += Array(Set(failures).prefix(3)).map { "viewer join: \($0)" }
        let joinSeconds = Double((ContinuousClock.now - joinStart) / .milliseconds(1)) / 1000
        broadcast.joined = viewers.count
        broadcast.joinFailures = options.clients - viewers.count
        let replyTimes = viewers.compactMap { $0.connectReplyTime.map { Double($0 / .microseconds(1)) / 1000 } }.sorted()
        broadcast.joinP50Ms = Measurement.percentile(replyTimes, 0.5)
        broadcast.joinP99Ms = Measurement.percentile(replyTimes, 0.99)
        broadcast.joinMaxMs = replyTimes.last
        broadcast.joinSeconds = joinSeconds

        // Counts go out at most once a second: two seconds let the last one arrive.
        let everyone = viewers.count + publishers.count + 1
        let settleDeadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < settleDeadline, viewers.contains(where: { $0.connectionCount != everyone }) || heard.counts.created < viewers.count {
            try await Task.sleep(for: .milliseconds(200))
        }
        let now = MonotonicClock.now()
        let benchAfter = ProcessUsageSample.current(at: now)
        let daemonAfter = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: now) }
        if let daemonBefore, let daemonAfter, !viewers.isEmpty {
            broadcast.daemonRSSBeforeMB = daemonBefore.rssMB
            broadcast.daemonRSSAfterMB = daemonAfter.rssMB
            broadcast.memoryPerConnectionKiB = (daemonAfter.rssMB - daemonBefore.rssMB) * 1024 / Double(viewers.count)
            broadcast.daemonCPUPercentWhileJoining = 100 * (daemonAfter.cpuSeconds - daemonBefore.cpuSeconds) / max(joinSeconds, 0.001)
        }
        broadcast.benchCPUPercentWhileJoining = 100 * (benchAfter.cpuSeconds - benchBefore.cpuSeconds) / max(joinSeconds, 0.001)
        report.measuredSeconds = joinSeconds
        report.bench = ProcessUsageSample.usage(from: benchBefore, to: benchAfter, peakMB: benchAfter.rssMB)
        if let daemonBefore, let daemonAfter {
            report.server = ProcessUsageSample.usage(from: daemonBefore, to: daemonAfter, peakMB: daemonAfter.rssMB)
        }
        broadcast.viewersWithTheRightCount = viewers.filter { $0.connectionCount == everyone }.count
        // A viewer's picture holds itself and the publishers; any other connection came by an event it should not have had.
        broadcast.viewersThatHeardJoins = viewers.filter { $0.connections.count > 1 + publishers.count }.count
        broadcast.moderatorJoinsHeard = heard.counts.created

        if options.mediaViewers > 0 {
            try await watchTheBroadcast(sessionId, publishers: publishers, into: &broadcast)
        }

        let leftBefore = heard.counts.destroyed
        var staying = viewers
        if viewers.count > 1000 {
            say("1000 of the \(viewers.count) viewers leaving at once")
            broadcast.thousandLeavingSeconds = try await leaveAtOnce(Array(staying.prefix(1000)), heard: heard)
            staying.removeFirst(1000)
        }
        say("\(staying.count == viewers.count ? "all" : "the other") \(staying.count) viewers leaving at once")
        broadcast.leaveSeconds = try await leaveAtOnce(staying, heard: heard)
        broadcast.moderatorLeavesHeard = heard.counts.destroyed - leftBefore
        try await measureGraceEnd(in: sessionId, heard: heard, into: &broadcast)
        forget(publishers)
        for publisher in publishers { await publisher.disconnect() }
        report.clients.subscribers = viewers.count
        report.broadcast = broadcast
    }

    /// `leavers` all leave at once: the time from their start to the moderator hearing the last of
    /// their leaves (at most 30 s).
    private func leaveAtOnce(_ leavers: [Session], heard: ModeratorTally) async throws -> Double {
        let heardBefore = heard.counts.destroyed
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for viewer in leavers { group.addTask { await viewer.disconnect() } }
        }
        forget(leavers)
        let deadline = ContinuousClock.now + .seconds(30)
        while heard.counts.destroyed - heardBefore < leavers.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return Double((ContinuousClock.now - start) / .milliseconds(1)) / 1000
    }

    /// `count` signaling-only viewers of `sessionId`, each asking to suppress connection events,
    /// joining at `churnRate` a second: those that joined, and why the others could not.
    private func joinCrowd(_ count: Int, of sessionId: String) async -> (joined: [Session], failures: [String]) {
        let start = ContinuousClock.now
        let spacing = 1 / options.churnRate
        return await withTaskGroup(of: Result<Session, any Error>.self) { group in
            for index in 0..<count {
                group.addTask {
                    try? await Task.sleep(until: start + .seconds(Double(index) * spacing), clock: .continuous)
                    do {
                        return .success(try await self.connect(session: sessionId, role: .subscriber, suppressConnectionEvents: true))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var joined: [Session] = []
            var failures: [String] = []
            for await result in group {
                switch result {
                case .success(let viewer): joined.append(viewer)
                case .failure(let error): failures.append("\(error)")
                }
            }
            return (joined, failures)
        }
    }

    /// With the crowd in, each publisher publishes audio and three simulcast layers (every viewer
    /// hears `streamCreated`) and `mediaViewers` more viewers subscribe to every stream and decode
    /// it for `durationSeconds`, on the layer the router gives them: the report's frame, latency and
    /// freeze figures are theirs, and its CPU and memory lines are the daemon's and the bench's over
    /// that window. In a cluster with cascading, those served by
    /// another node than the session's (told by their media server's address) are counted, and the
    /// latency of each kind over the window given apart. They leave before the crowd does.
    private func watchTheBroadcast(_ sessionId: String, publishers: [Session], into broadcast: inout BenchReport.Broadcast) async throws {
        say("\(publishers.count) publishing simulcast to the crowd; \(options.mediaViewers) viewers receiving and decoding it")
        var published: [Publisher] = []
        for (index, publisher) in publishers.enumerated() {
            published.append(try await publisher.publish(PublisherSettings(name: "broadcast-\(index + 1)", media: media)))
        }
        let streams = published
        report.clients.publishers = streams.count
        let watchers: [([TrackedSubscriber], Session)] = await concurrently(options.mediaViewers) { [self] index in
            let session = try await connect(session: sessionId, role: .subscriber, suppressConnectionEvents: true)
            var tracked: [TrackedSubscriber] = []
            for (streamIndex, stream) in streams.enumerated() {
                let subscriber = try await session.subscribe(to: stream.streamId, settings: SubscriberSettings(decodes: true))
                tracked.append(TrackedSubscriber(label: "m\(index + 1)-p\(streamIndex + 1)", subscriber: subscriber, isImpaired: false))
            }
            return (tracked, session)
        }
        broadcast.mediaViewers = watchers.count
        let originHost = URLComponents(string: publishers[0].serverURL)?.host ?? ""
        let subscriptions = watchers.flatMap(\.0)
        let servedElsewhere = { (tracked: TrackedSubscriber) in !tracked.subscriber.mediaServer.hasPrefix(originHost + ":") }
        let cascaded = subscriptions.map(servedElsewhere)
        broadcast.cascadedMediaViewers = watchers.filter { $0.0.contains(where: servedElsewhere) }.count
        let watched = try await Measurement(run: self, publishers: streams, subscribers: subscriptions).measure()
        var direct = LatencyHistogram()
        var relayed = LatencyHistogram()
        for (snapshot, isCascaded) in zip(watched, cascaded) {
            guard let latency = snapshot.latency else { continue }
            if isCascaded { relayed.merge(latency) } else { direct.merge(latency) }
        }
        (broadcast.directLatencyP50Ms, broadcast.directLatencyP99Ms) = (direct.percentileMilliseconds(0.5), direct.percentileMilliseconds(0.99))
        (broadcast.cascadedLatencyP50Ms, broadcast.cascadedLatencyP99Ms) = (relayed.percentileMilliseconds(0.5), relayed.percentileMilliseconds(0.99))
        let sessions = watchers.map(\.1)
        await withTaskGroup(of: Void.self) { group in
            for session in sessions { group.addTask { await session.disconnect() } }
        }
        forget(sessions)
        for stream in streams { try await stream.unpublish() }
    }

    /// A second crowd (at most 1,000) joins and loses its sockets at once, without a word, and does
    /// not come back: the daemon keeps each connection for its reconnection grace, and all the graces
    /// end together. Times the teardown (the moderator's first to last `networkDisconnected` leave)
    /// while a client of another session sends a signal every 10 ms, whose slowest answer says
    /// whether the teardown held up other sessions' signaling.
    private func measureGraceEnd(in sessionId: String, heard: ModeratorTally, into broadcast: inout BenchReport.Broadcast) async throws {
        let crowd = min(options.clients, 1000)
        say("\(crowd) viewers losing their sockets at once, their graces ending together")
        let (viewers, _) = await joinCrowd(crowd, of: sessionId)
        let grace = viewers.first?.reconnectionGrace ?? .zero
        let probe = try await connect(session: "\(sessionPrefix)-probe", role: .publisher)
        let probing = Task {
            var slowest = Duration.zero
            while !Task.isCancelled {
                let sent = ContinuousClock.now
                try? await probe.signal(type: "probe", data: "")
                slowest = max(slowest, ContinuousClock.now - sent)
                try? await Task.sleep(for: .milliseconds(10))
            }
            return slowest
        }
        for viewer in viewers { viewer.simulateNetworkDrop() }
        forget(viewers)
        let deadline = ContinuousClock.now + grace + .seconds(30)
        while heard.graceEnds.count < viewers.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        probing.cancel()
        let slowest = await probing.value
        forget(probe)
        await probe.disconnect()
        let ends = heard.graceEnds
        broadcast.graceViewers = viewers.count
        broadcast.graceSeconds = Double(grace / .milliseconds(1)) / 1000
        broadcast.graceLeavesHeard = ends.count
        if let first = ends.first, let last = ends.last {
            broadcast.graceTeardownSeconds = Double((last - first) / .microseconds(1)) / 1_000_000
        }
        broadcast.otherSessionSlowestSignalMs = Double(slowest / .microseconds(1)) / 1000
    }
}

/// The joins and leaves a moderator heard, counted as they come, and when it heard each leave at
/// the end of a grace.
private final class ModeratorTally: Sendable {
    private let tally = Mutex((created: 0, destroyed: 0, graceEnds: [ContinuousClock.Instant]()))

    func created() { tally.withLock { $0.created += 1 } }
    func destroyed(atGraceEnd: Bool) {
        let now = ContinuousClock.now
        tally.withLock { tally in
            if atGraceEnd { tally.graceEnds.append(now) } else { tally.destroyed += 1 }
        }
    }
    var counts: (created: Int, destroyed: Int) { tally.withLock { ($0.created, $0.destroyed) } }
    var graceEnds: [ContinuousClock.Instant] { tally.withLock { $0.graceEnds } }
}
