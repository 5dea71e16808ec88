import HummingbirdWSClient
import Logging
import SignalingProtocol
import SwitchyardClient
import Synchronization

extension BenchRun {
    /// What the flood's tasks count together.
    private final class FloodTally: Sendable {
        struct Counts {
            var openedSockets: Set<Int> = []
            var socketsThatFailed = 0
            var joins = 0
            var failures = 0
            var peakMB = 0.0
        }

        let counts = Mutex(Counts())
    }

    /// The soak's flood, while its fanout goes on: `floodIdleSockets` WebSockets that never send
    /// `connect`, then `floodClients` clients churning for `floodSeconds`, each joining one of ten
    /// sessions, sending three signals of 512 bytes and leaving, half with `disconnect` and half by
    /// dropping the socket (the server keeps those for the reconnection grace). Then the daemon's
    /// memory is read every second for `Flood.settleSeconds`.
    func runFlood() async {
        guard let pid = serverPID, let baseline = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) else {
            report.errors.append("flood: the daemon's memory cannot be read (a remote --server needs --server-pid)")
            return
        }
        var flood = BenchReport.Flood(rssBaselineMB: baseline.rssMB)
        let tally = FloodTally()
        tally.counts.withLock { $0.peakMB = baseline.rssMB }
        let watcher = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                guard let sample = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) else { continue }
                tally.counts.withLock { $0.peakMB = max($0.peakMB, sample.rssMB) }
            }
        }

        say("flood: \(options.floodIdleSockets) idle WebSockets")
        let idle = openIdleSockets(options.floodIdleSockets, tally: tally)
        let wanted = options.floodIdleSockets
        let openingDeadline = ContinuousClock.now + .seconds(15)
        while tally.counts.withLock({ $0.openedSockets.count + $0.socketsThatFailed }) < wanted, ContinuousClock.now < openingDeadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        flood.idleSockets = tally.counts.withLock { $0.openedSockets.count }

        say("flood: \(options.floodClients) clients churning for \(options.floodSeconds) s")
        let sessions = (0..<10).map { "\(sessionPrefix)-flood-\($0)" }
        let churnStart = ContinuousClock.now
        let deadline = churnStart + .seconds(options.floodSeconds)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<options.floodClients {
                group.addTask { await self.churn(until: deadline, sessions: sessions, tally: tally) }
            }
        }
        idle.cancel()
        _ = await idle.value
        watcher.cancel()
        let over = ContinuousClock.now
        let churned = (over - churnStart).components
        flood.churnSeconds = Double(churned.seconds) + Double(churned.attoseconds) / 1e18
        (flood.joins, flood.failures, flood.rssPeakMB) = tally.counts.withLock { ($0.joins, $0.failures, $0.peakMB) }
        flood.rssAtEndMB = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now())?.rssMB ?? 0

        say("flood over: reading the daemon's memory for \(Int(BenchReport.Flood.settleSeconds)) s")
        for second in 1...Int(BenchReport.Flood.settleSeconds) {
            try? await Task.sleep(until: over + .seconds(second), clock: .continuous)
            guard let sample = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) else { break }
            flood.rssSamplesMB.append(sample.rssMB)
            if flood.backWithinMarginAfterSeconds == nil, sample.rssMB <= baseline.rssMB + BenchReport.Flood.settleMarginMB {
                flood.backWithinMarginAfterSeconds = Double(second)
            }
        }
        flood.rssSettledMB = flood.rssSamplesMB.count == Int(BenchReport.Flood.settleSeconds) ? flood.rssSamplesMB.last : nil
        report.soak?.flood = flood
    }

    /// WebSockets that never send `connect`, each held until the server closes it or the returned
    /// task is cancelled; `tally` counts those that opened and those that could not.
    private func openIdleSockets(_ count: Int, tally: FloodTally) -> Task<Void, Never> {
        let url = self.url
        let logger = {
            var logger = Logger(label: "switchyard-bench-flood")
            logger.logLevel = .critical
            return logger
        }()
        return Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask {
                        _ = try? await WebSocketClient.connect(url: url, logger: logger) { inbound, _, _ in
                            tally.counts.withLock { _ = $0.openedSockets.insert(index) }
                            for try await _ in inbound {}
                        }
                        tally.counts.withLock { if !$0.openedSockets.contains(index) { $0.socketsThatFailed += 1 } }
                    }
                }
            }
        }
    }

    /// One churning client after another until `deadline`.
    private func churn(until deadline: ContinuousClock.Instant, sessions: [String], tally: FloodTally) async {
        let payload = String(repeating: "x", count: 512)
        while ContinuousClock.now < deadline {
            let session: Session
            do {
                session = try await connect(session: sessions.randomElement() ?? sessions[0], role: .publisher)
            } catch {
                tally.counts.withLock { $0.failures += 1 }
                // A daemon refusing everyone is not to be hammered in a tight loop.
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            var failed = false
            for _ in 0..<3 {
                do { try await session.signal(type: "flood", data: payload) } catch { failed = true }
            }
            if Bool.random() { await session.disconnect() } else { session.simulateNetworkDrop() }
            forget(session)
            tally.counts.withLock { failed ? ($0.failures += 1) : ($0.joins += 1) }
        }
    }
}
