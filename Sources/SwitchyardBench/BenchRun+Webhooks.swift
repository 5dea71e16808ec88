import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Signaling
import SignalingProtocol
import SwitchyardClient
import Webhooks

extension BenchRun {
    /// `sessions` sessions at once, each one publisher (signaling only) and `clients` subscribers
    /// that join and leave in turn for `durationSeconds`, `churnRate` joins a second, against a
    /// daemon that delivers every event to the bench's receiver. Every event the churn caused must
    /// arrive, correctly signed, once, in its session's order. Beside a local daemon a second one
    /// without webhooks gets the same churn at the same time, for the daemon's CPU per event: run
    /// one after the other on this shared machine, the daemon's CPU for the same churn moved by
    /// ±10 % between runs, as much as the webhooks cost. Each daemon's joins are timed from
    /// sending `connect` to its reply, side by side. With a silent receiver, which holds every POST
    /// unanswered, nothing is owed: the daemon's queue must stay within its bound (read every second
    /// and at the end) and its joins as quick as those of the daemon without webhooks.
    func runWebhooks() async throws {
        guard let receiver = webhookReceiver else { throw BenchError.setupFailed("webhooks: the receiver did not start") }
        let entries = options.clusterURLs.isEmpty ? [url] : options.clusterURLs
        let benchStart = ProcessUsageSample.current(at: MonotonicClock.now())
        var webhooks = BenchReport.Webhooks(
            sessions: options.sessions, subscribersPerSession: options.clients, joinsPerSecondPerSession: options.churnRate,
            churnSeconds: options.durationSeconds, receiverURL: receiver.url, receiver: options.receiver,
            maxQueuedEvents: options.webhookQueueBound)
        let statusBefore: WebhookTotals?
        do {
            statusBefore = try await webhookTotals(at: entries, receiverPort: receiver.port)
        } catch {
            statusBefore = nil
            report.errors.append("webhooks: \(error); the daemon's counts are left out")
        }

        let plain = report.daemon.local ? try await startAnotherDaemon(webhookEndpoint: nil) : nil
        let log = WebhookChurnLog()
        let plainLog = WebhookChurnLog()
        if plain != nil { say("the same churn at the same time against a second daemon, without webhooks") }
        let queueWatch = options.receiver == .silent ? Task { await self.watchQueue(at: entries, receiverPort: receiver.port) } : nil
        // Both churns start at one planned instant, the one without webhooks half a join's spacing
        // later. Started each when its publishers were in, the two daemons' joins came a hair apart
        // and raced each other for the two cores: whichever churn had started first answered its
        // joins faster (with a silent receiver the daemon with webhooks, by 5-35 % at p50).
        let churnStart = ContinuousClock.now + .seconds(Self.webhookPublisherLeadSeconds)
        let halfSpacing = 0.5 / (options.churnRate * Double(options.sessions))
        async let plainChurn = churnWithoutWebhooks(on: plain, log: plainLog, startingAt: churnStart + .seconds(halfSpacing))
        let withWebhooks = try await churn(named: "webhooks", through: entries, pid: serverPID, log: log, startingAt: churnStart) {
            try? await self.webhookTotals(at: entries, receiverPort: receiver.port)
        }
        let withoutWebhooks = try await plainChurn
        queueWatch?.cancel()
        let queueReadings = await queueWatch?.value
        let now = MonotonicClock.now()
        webhooks.rssAtEndMB = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: now)?.rssMB }
        webhooks.rssAtEndWithoutWebhooksMB = plain.flatMap { ProcessUsageSample.read(pid: $0.pid, at: now)?.rssMB }
        var statusAfter: WebhookTotals?
        if options.receiver == .silent {
            // What stays queued behind a receiver that never answers is the point: read it now.
            statusAfter = try? await webhookTotals(at: entries, receiverPort: receiver.port)
        }
        await plain?.stop()
        if options.receiver == .normal {
            let owed = log.snapshot.expected
            say("waiting up to \(Int(Self.webhookDrainSeconds)) s for the \(owed.count) events owed")
            let drainDeadline = ContinuousClock.now + .seconds(Self.webhookDrainSeconds)
            while !WebhookDeliveryAnalysis.allArrived(owed, in: receiver.received.deliveries), ContinuousClock.now < drainDeadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            statusAfter = try? await webhookTotals(at: entries, receiverPort: receiver.port)
        }

        let counts = log.snapshot
        let received = receiver.received
        let analysis = WebhookDeliveryAnalysis(expected: counts.expected, deliveries: received.deliveries, sessions: Set(withWebhooks.sessionIds))
        webhooks.joins = counts.joins
        webhooks.leaves = counts.leaves
        webhooks.connectFailures = counts.failures
        webhooks.eventsExpected = counts.expected.count
        webhooks.eventsReceived = analysis.eventsReceived
        webhooks.deliveriesReceived = analysis.deliveries
        webhooks.eventsLost = analysis.lost.count
        webhooks.lostEvents = analysis.lost.prefix(20).map { "\($0.event) \($0.sessionId)\($0.connectionId.map { " \($0)" } ?? "")" }
        webhooks.eventsUnexpected = analysis.unexpected
        webhooks.outOfOrder = analysis.outOfOrder
        webhooks.duplicates = analysis.duplicates
        webhooks.badSignatures = received.badSignatures
        webhooks.unreadableBodies = received.unreadableBodies
        webhooks.latencyP50Ms = Measurement.percentile(analysis.latenciesMs, 0.5)
        webhooks.latencyP99Ms = Measurement.percentile(analysis.latenciesMs, 0.99)
        webhooks.latencyMaxMs = analysis.latenciesMs.last
        webhooks.eventsByKind = analysis.eventsByKind
        if let statusBefore, let statusAfter {
            let counted = statusAfter.since(statusBefore)
            webhooks.daemonDelivered = counted.delivered
            webhooks.daemonRetries = counted.retries
            webhooks.daemonFailures = counted.failures
            webhooks.daemonDropped = counted.dropped
            webhooks.daemonDroppedByReason = counted.droppedByReason
            webhooks.daemonLatencyP50Ms = statusAfter.latencyP50Seconds.map { $0 * 1000 }
            webhooks.daemonLatencyP99Ms = statusAfter.latencyP99Seconds.map { $0 * 1000 }
        }
        webhooks.daemonQueued = statusAfter?.largestQueue
        let plainCounts = plainLog.snapshot
        webhooks.joinLatency = Self.joinLatency(with: counts.joinReplyMs, without: plain == nil ? nil : plainCounts.joinReplyMs)
        if let held = receiver.held?.counts {
            webhooks.silent = BenchReport.WebhooksSilentReceiver(
                requestsHeld: held.held, heldAtMost: held.heldAtMost, releasedEarly: held.releasedEarly, queuedPeak: queueReadings?.peak,
                statusReadings: queueReadings?.readings ?? 0)
        }
        report.clients.publishers = options.sessions
        report.clients.subscribers = counts.joins
        report.clients.connectFailures += counts.failures
        report.errors += counts.failureReasons
        report.errors += plainCounts.failureReasons.map { "without webhooks: \($0)" }
        report.measuredSeconds = withWebhooks.windowSeconds
        report.server = withWebhooks.serverUsage

        if let withoutWebhooks {
            webhooks.cpu = cpuPerEvent(with: withWebhooks, caused: counts, without: withoutWebhooks, caused: plainCounts)
        }
        let benchEnd = ProcessUsageSample.current(at: MonotonicClock.now())
        report.bench = ProcessUsageSample.usage(from: benchStart, to: benchEnd, peakMB: benchEnd.rssMB)
        report.webhooks = webhooks
    }

    /// After the last leave, how long the CPU window goes on so the deliveries of the last events
    /// fall in it.
    private static let webhookSettleSeconds = 1.0
    /// After the publishers left, how long the owed events have to arrive.
    private static let webhookDrainSeconds = 15.0
    /// How long both churns have to connect their publishers before their joins start.
    private static let webhookPublisherLeadSeconds = 1.0

    /// One churn: its sessions, and the daemon's CPU from the first join to a second after the
    /// last leave.
    private struct ChurnOutcome {
        var sessionIds: [String]
        var windowSeconds: Double
        var cpuSeconds: Double?
        var serverUsage: BenchReport.ProcessUsage?
        var deliveredInWindow: UInt64?
    }

    /// Connects a publisher to each session (through the entries in turn), then from `plannedStart`
    /// (or as soon as they are in, if later) runs every subscriber's joins for `durationSeconds` and
    /// their leaves, then the publishers leave. `status` reads the daemon's webhook counts just
    /// outside both ends of the CPU window.
    private func churn(
        named name: String, through entries: [String], pid: Int32?, log: WebhookChurnLog, startingAt plannedStart: ContinuousClock.Instant,
        status: (@Sendable () async -> WebhookTotals?)?
    ) async throws -> ChurnOutcome {
        let sessionIds = (0..<options.sessions).map { "\(sessionPrefix)-\(name)-\($0)" }
        say("\(name): \(sessionIds.count) sessions, each a publisher")
        var publishers: [Session] = []
        for (index, sessionId) in sessionIds.enumerated() {
            let publisher = try await connect(session: sessionId, role: .publisher, through: entries[index % entries.count])
            guard let connectionId = publisher.connection?.connectionId else {
                throw BenchError.setupFailed("\(name): the publisher of \(sessionId) has no connection id")
            }
            log.sessionCreated(sessionId)
            log.connected(connectionId, in: sessionId, subscriber: false)
            publishers.append(publisher)
        }
        let period = Double(options.clients) / options.churnRate
        say("\(name): \(options.clients) subscribers per session joining and leaving for \(options.durationSeconds) s (each back every \(period) s)")
        let statusAtStart = await status?()
        try? await Task.sleep(until: plannedStart, clock: .continuous)
        let start = max(plannedStart, ContinuousClock.now)
        if start - plannedStart > .milliseconds(10) {
            say("\(name): the churn starts \(start - plannedStart) late; its joins are not interleaved with the other daemon's")
        }
        let startSample = pid.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }
        let deadline = start + .seconds(options.durationSeconds)
        let churnRate = options.churnRate
        let sessionCount = Double(sessionIds.count)
        await withTaskGroup(of: Void.self) { group in
            for (sessionIndex, sessionId) in sessionIds.enumerated() {
                // Subscribers come through the node that holds the session, as its publisher does.
                let entry = publishers[sessionIndex].serverURL
                for slot in 0..<options.clients {
                    group.addTask {
                        // Slots spread evenly over a period, the sessions' slots between each other's.
                        var join = start + .seconds((Double(slot) + Double(sessionIndex) / sessionCount) / churnRate)
                        while join < deadline {
                            try? await Task.sleep(until: join, clock: .continuous)
                            // The last visitors leave at their own time too: cut at the deadline, a
                            // session's every subscriber would leave at once, and that burst
                            // queued in the session's lane would be all the tail latency showed.
                            await self.visit(sessionId, through: entry, leavingAt: join + .seconds(period * 0.75), log: log)
                            join += .seconds(period)
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .seconds(Self.webhookSettleSeconds))
        let endSample = pid.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }
        let window = ContinuousClock.now - start
        let statusAtEnd = await status?()
        for (publisher, sessionId) in zip(publishers, sessionIds) {
            let connectionId = publisher.connection?.connectionId
            await publisher.disconnect()
            forget(publisher)
            if let connectionId { log.disconnected(connectionId, in: sessionId, subscriber: false) }
            log.sessionDestroyed(sessionId)
        }
        var outcome = ChurnOutcome(
            sessionIds: sessionIds, windowSeconds: Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18)
        if let startSample, let endSample {
            outcome.cpuSeconds = endSample.cpuSeconds - startSample.cpuSeconds
            outcome.serverUsage = ProcessUsageSample.usage(from: startSample, to: endSample, peakMB: endSample.rssMB)
        }
        if let statusAtStart, let statusAtEnd { outcome.deliveredInWindow = statusAtEnd.since(statusAtStart).delivered }
        return outcome
    }

    /// The same churn on `plain`, when there is one.
    private func churnWithoutWebhooks(
        on plain: LocalDaemon?, log: WebhookChurnLog, startingAt plannedStart: ContinuousClock.Instant
    ) async throws -> ChurnOutcome? {
        guard let plain else { return nil }
        return try await churn(named: "plain", through: [plain.url], pid: plain.pid, log: log, startingAt: plannedStart, status: nil)
    }

    /// One subscriber's visit: connects, stays until `leave`, disconnects; each step in the log.
    private func visit(_ sessionId: String, through entry: String, leavingAt leave: ContinuousClock.Instant, log: WebhookChurnLog) async {
        let session: Session
        do {
            session = try await connect(session: sessionId, role: .subscriber, through: entry)
        } catch {
            log.connectFailed("\(sessionId): \(error)")
            return
        }
        guard let connectionId = session.connection?.connectionId else {
            log.connectFailed("\(sessionId): connected without a connection id")
            await session.disconnect()
            forget(session)
            return
        }
        log.connected(connectionId, in: sessionId, subscriber: true, replyTime: session.connectReplyTime)
        try? await Task.sleep(until: leave, clock: .continuous)
        await session.disconnect()
        forget(session)
        log.disconnected(connectionId, in: sessionId, subscriber: true)
    }

    /// The daemon's CPU per delivered event: the run with webhooks less the run without, scaled by
    /// the connection events each churn caused, over the deliveries in the window.
    private func cpuPerEvent(
        with withWebhooks: ChurnOutcome, caused withCounts: WebhookChurnLog.Counts, without withoutWebhooks: ChurnOutcome,
        caused withoutCounts: WebhookChurnLog.Counts
    ) -> BenchReport.WebhooksCPU? {
        guard let withCPU = withWebhooks.cpuSeconds, let withoutCPU = withoutWebhooks.cpuSeconds else {
            report.errors.append("webhooks: the daemons' CPU could not be read from /proc")
            return nil
        }
        var cpu = BenchReport.WebhooksCPU(
            windowSeconds: withWebhooks.windowSeconds, withWebhooksSeconds: withCPU, withoutWebhooksSeconds: withoutCPU,
            connectionEventsWith: withCounts.joins + withCounts.leaves, connectionEventsWithout: withoutCounts.joins + withoutCounts.leaves,
            eventsDelivered: withWebhooks.deliveredInWindow ?? 0)
        if cpu.connectionEventsWithout > 0, cpu.eventsDelivered > 0 {
            let scaledWithout = withoutCPU * Double(cpu.connectionEventsWith) / Double(cpu.connectionEventsWithout)
            cpu.extraMicrosecondsPerEvent = (withCPU - scaledWithout) / Double(cpu.eventsDelivered) * 1e6
        } else if options.receiver == .normal {
            // A silent receiver is delivered nothing, so there is no per-event figure to make.
            report.errors.append("webhooks: no CPU per event (\(cpu.connectionEventsWithout) connection events without webhooks, \(cpu.eventsDelivered) delivered with)")
        }
        return cpu
    }

    /// Percentiles of each daemon's join times, and with a daemon without webhooks their ratios.
    private static func joinLatency(with: [Double], without: [Double]?) -> BenchReport.WebhooksJoinLatency {
        let withSorted = with.sorted()
        var latency = BenchReport.WebhooksJoinLatency(
            joinsWith: withSorted.count, p50WithMs: Measurement.percentile(withSorted, 0.5), p99WithMs: Measurement.percentile(withSorted, 0.99))
        guard let without else { return latency }
        let withoutSorted = without.sorted()
        latency.joinsWithout = withoutSorted.count
        latency.p50WithoutMs = Measurement.percentile(withoutSorted, 0.5)
        latency.p99WithoutMs = Measurement.percentile(withoutSorted, 0.99)
        func ratio(_ with: Double?, _ without: Double?) -> Double? {
            guard let with, let without, without > 0 else { return nil }
            return with / without
        }
        latency.p50Ratio = ratio(latency.p50WithMs, latency.p50WithoutMs)
        latency.p99Ratio = ratio(latency.p99WithMs, latency.p99WithoutMs)
        return latency
    }

    /// The longest endpoint queue of the status, read every second until cancelled, and how many
    /// readings there were (a reading that failed is left out).
    private func watchQueue(at entries: [String], receiverPort: Int) async -> (peak: Int?, readings: Int) {
        var peak: Int?
        var readings = 0
        while !Task.isCancelled {
            if let totals = try? await webhookTotals(at: entries, receiverPort: receiverPort) {
                peak = max(peak ?? 0, totals.largestQueue)
                readings += 1
            }
            try? await Task.sleep(for: .seconds(1))
        }
        return (peak, readings)
    }

    /// `GET /v1/webhooks/status` of every node summed, over the endpoints that deliver to the
    /// bench's receiver (those whose URL has its port; every endpoint if none has).
    private func webhookTotals(at entries: [String], receiverPort: Int) async throws(BenchError) -> WebhookTotals {
        var totals = WebhookTotals()
        let token: String
        do {
            token = try await tokens.mintRESTToken(lifetime: 60, now: Date())
        } catch {
            throw .setupFailed("cannot mint a REST token: \(error)")
        }
        for entry in entries {
            guard let base = ClusterNodeAddress.httpBase(ofWebSocket: entry), let address = URL(string: "\(base)/v1/webhooks/status") else {
                throw .setupFailed("no HTTP address for \(entry)")
            }
            var request = URLRequest(url: address, timeoutInterval: 5)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            // A kept-alive connection would hold the daemon's graceful shutdown for its drain time.
            request.setValue("close", forHTTPHeaderField: "Connection")
            let status: WebhookStatus
            do {
                let (body, response) = try await URLSession.shared.data(for: request)
                let code = (response as? HTTPURLResponse)?.statusCode ?? 0
                guard code == 200 else { throw BenchError.setupFailed("GET \(address) answered \(code): \(String(decoding: body, as: UTF8.self))") }
                status = try JSONDecoder().decode(WebhookStatus.self, from: body)
            } catch let error as BenchError {
                throw error
            } catch {
                throw .setupFailed("GET \(address): \(error)")
            }
            let ours = status.endpoints.filter { URL(string: $0.url)?.port == receiverPort }
            totals.add(ours.isEmpty ? status.endpoints : ours, droppedAtIntake: status.droppedAtIntake)
        }
        return totals
    }
}
