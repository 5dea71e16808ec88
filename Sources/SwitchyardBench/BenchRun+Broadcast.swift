import Foundation
import SignalingProtocol
import SwitchyardClient
import Synchronization

extension BenchRun {
    /// One session created with connection events suppressed; a publisher and a moderator join,
    /// then `clients` signaling-only viewers (WebSocket clients that never publish or subscribe)
    /// join at `churnRate` a second, and once every count has settled, all leave at once. Each
    /// join is timed from sending `connect` to its reply; the daemon's memory is read before and
    /// after the crowd; the moderator must hear every join and leave, each viewer none, and every
    /// viewer's count must reach the crowd's size.
    func runBroadcast() async throws {
        let sessionId = "\(sessionPrefix)-broadcast"
        try await createSession(#"{"sessionId":"\#(sessionId)","connectionEventsSuppressed":true}"#)
        let publisher = try await connect(session: sessionId, role: .publisher)
        let moderator = try await connect(session: sessionId, role: .moderator)
        let heard = ModeratorTally()
        let listening = Task {
            for await event in moderator.events {
                switch event {
                case .connectionCreated: heard.created()
                case .connectionDestroyed: heard.destroyed()
                default: continue
                }
            }
        }
        defer { listening.cancel() }
        var broadcast = BenchReport.Broadcast(viewers: options.clients, joinsPerSecond: options.churnRate)
        let benchBefore = ProcessUsageSample.current(at: MonotonicClock.now())
        let daemonBefore = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }

        say("\(options.clients) viewers joining at \(options.churnRate) a second")
        let joinStart = ContinuousClock.now
        let spacing = 1 / options.churnRate
        let (viewers, failures) = await withTaskGroup(of: Result<Session, any Error>.self) { group in
            for index in 0..<options.clients {
                group.addTask {
                    try? await Task.sleep(until: joinStart + .seconds(Double(index) * spacing), clock: .continuous)
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
        let everyone = viewers.count + 2
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
        // A viewer's picture holds itself and the publisher; any other connection came by an event it should not have had.
        broadcast.viewersThatHeardJoins = viewers.filter { $0.connections.count > 2 }.count
        broadcast.moderatorJoinsHeard = heard.counts.created

        say("all \(viewers.count) viewers leaving at once")
        let leaveStart = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for viewer in viewers { group.addTask { await viewer.disconnect() } }
        }
        forget(viewers)
        let leaveDeadline = ContinuousClock.now + .seconds(30)
        while heard.counts.destroyed < viewers.count, ContinuousClock.now < leaveDeadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        broadcast.leaveSeconds = Double((ContinuousClock.now - leaveStart) / .milliseconds(1)) / 1000
        broadcast.moderatorLeavesHeard = heard.counts.destroyed
        forget(publisher)
        await publisher.disconnect()
        report.clients.subscribers = viewers.count
        report.broadcast = broadcast
    }
}

/// The joins and leaves a moderator heard, counted as they come.
private final class ModeratorTally: Sendable {
    private let tally = Mutex((created: 0, destroyed: 0))

    func created() { tally.withLock { $0.created += 1 } }
    func destroyed() { tally.withLock { $0.destroyed += 1 } }
    var counts: (created: Int, destroyed: Int) { tally.withLock { $0 } }
}
