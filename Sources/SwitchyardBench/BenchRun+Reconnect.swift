import Foundation
import SignalingProtocol
import SwitchyardClient
import Synchronization

extension BenchRun {
    /// What the clients of one outage saw, collected from their event streams.
    private final class DropWitness: Sendable {
        struct Seen {
            var reconnectedAt: UInt64?
            var ended = false
            /// Signal types received, by the dropped client and by the observer.
            var receivedByDropped: [String: Int] = [:]
            var receivedByObserver: [String: Int] = [:]
            var destroyEvents = 0
        }

        let seen = Mutex(Seen())
    }

    /// A source publishes; for each outage a fresh client publishes and watches the source, a fresh
    /// observer watches it back, and the client loses its network (WebSocket and media both ways) for
    /// that long. Signals go both ways while it is away.
    func runReconnects() async throws {
        let sessionId = "\(sessionPrefix)-reconnect"
        let sourceSession = try await connect(session: sessionId, role: .publisher)
        let source = try await sourceSession.publish(PublisherSettings(name: "source", media: media))
        report.clients.publishers = 1
        var reconnect = BenchReport.Reconnect()
        let start = ProcessUsageSample.current(at: MonotonicClock.now())
        let serverStart = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }
        for (index, seconds) in options.dropSeconds.enumerated() {
            say("outage \(index + 1) of \(options.dropSeconds.count): \(seconds) s")
            let drop = try await measureOutage(seconds: seconds, session: sessionId, source: source, reconnect: &reconnect)
            reconnect.drops.append(drop)
        }
        report.reconnect = reconnect
        report.clients.publishers += reconnect.drops.count
        report.clients.subscribers = 2 * reconnect.drops.count
        let end = ProcessUsageSample.current(at: MonotonicClock.now())
        report.measuredSeconds = Double(end.at - start.at) / 1e9
        report.bench = ProcessUsageSample.usage(from: start, to: end, peakMB: end.rssMB)
        if let serverStart, let pid = serverPID, let serverEnd = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) {
            report.server = ProcessUsageSample.usage(from: serverStart, to: serverEnd, peakMB: serverEnd.rssMB)
        }
    }

    private func measureOutage(
        seconds: Double, session sessionId: String, source: Publisher, reconnect: inout BenchReport.Reconnect
    ) async throws -> BenchReport.Drop {
        // A session's events can be read by one loop only, and only once: each outage has its own pair.
        let observer = try await connect(session: sessionId, role: .publisher)
        let dropped = try await connect(session: sessionId, role: .publisher, reconnects: true)
        let grace = dropped.reconnectionGrace.map { Double($0.components.seconds) }
        reconnect.graceSeconds = grace
        var drop = BenchReport.Drop(seconds: seconds, belowGrace: grace.map { seconds < $0 } ?? false, outcome: "ended")
        let publisher = try await dropped.publish(PublisherSettings(name: "dropped", media: media))
        let watching = try await dropped.subscribe(to: source.streamId, settings: SubscriberSettings(decodes: true))
        let watchedBack = try await observer.subscribe(to: publisher.streamId)
        let droppedId = dropped.connection?.connectionId ?? ""
        let witness = DropWitness()
        let listeners = [
            Task {
                for await event in dropped.events {
                    switch event {
                    case .sessionDidReconnect: witness.seen.withLock { $0.reconnectedAt = $0.reconnectedAt ?? MonotonicClock.now() }
                    case .sessionDidDisconnect: witness.seen.withLock { $0.ended = true }
                    case .signalReceived(let type, _, _): witness.seen.withLock { $0.receivedByDropped[type, default: 0] += 1 }
                    default: break
                    }
                }
            },
            Task {
                for await event in observer.events {
                    switch event {
                    case .connectionDestroyed(let connection, _) where connection.connectionId == droppedId:
                        witness.seen.withLock { $0.destroyEvents += 1 }
                    case .streamDestroyed(let stream, _) where stream.streamId == publisher.streamId:
                        witness.seen.withLock { $0.destroyEvents += 1 }
                    case .signalReceived(let type, _, let from) where from == droppedId:
                        witness.seen.withLock { $0.receivedByObserver[type, default: 0] += 1 }
                    default: break
                    }
                }
            },
        ]
        try await Task.sleep(for: .seconds(max(options.warmupSeconds, 1)))

        let outage = Duration.milliseconds(Int(seconds * 1000))
        let droppedAt = MonotonicClock.now()
        let returnsAt = droppedAt + UInt64(seconds * 1e9)
        dropped.simulateNetworkOutage(for: outage)
        let signals = options.signalsPerDrop
        let sending = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<signals {
                    group.addTask { try? await dropped.signal(type: "up-\(index)", data: "", to: observer.connection?.connectionId, retryAfterReconnect: true) }
                }
            }
        }
        for index in 0..<signals {
            try? await observer.signal(type: "down-\(index)", data: "", to: droppedId)
        }
        let firstMedia = Task { await Self.firstMedia(on: watching, after: returnsAt) }
        let deadline = returnsAt + 15_000_000_000
        while MonotonicClock.now() < deadline, witness.seen.withLock({ $0.reconnectedAt == nil && !$0.ended }) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let (firstPacketAt, firstFrameAt) = await firstMedia.value
        await sending.value
        try await Task.sleep(for: .seconds(1))

        let seen = witness.seen.withLock { $0 }
        if let reconnectedAt = seen.reconnectedAt, !seen.ended {
            drop.outcome = "reconnected"
            drop.reconnectedMs = Self.milliseconds(from: returnsAt, to: reconnectedAt)
            drop.firstPacketMs = firstPacketAt.map { Self.milliseconds(from: returnsAt, to: $0) }
            drop.firstFrameMs = firstFrameAt.map { Self.milliseconds(from: returnsAt, to: $0) }
        }
        drop.signalsSent = signals
        drop.signalsDelivered = (0..<signals).filter { seen.receivedByObserver["up-\($0)", default: 0] > 0 }.count
        drop.signalsDuplicated = seen.receivedByObserver.values.reduce(0) { $0 + max($1 - 1, 0) }
        drop.eventsMissed = signals
        drop.eventsReplayed = (0..<signals).filter { seen.receivedByDropped["down-\($0)", default: 0] > 0 }.count
        drop.eventsDuplicated = seen.receivedByDropped.values.reduce(0) { $0 + max($1 - 1, 0) }
        drop.destroyEventsSeenByOthers = seen.destroyEvents
        add(video: await watching.statistics())

        for listener in listeners { listener.cancel() }
        try? await watchedBack.unsubscribe()
        for session in [dropped, observer] {
            await session.disconnect()
            forget(session)
        }
        return drop
    }

    /// When `subscriber` got its first packet and decoded its first frame after `instant`, watching
    /// for at most 15 s.
    private static func firstMedia(on subscriber: Subscriber, after instant: UInt64) async -> (packet: UInt64?, frame: UInt64?) {
        while MonotonicClock.now() < instant { try? await Task.sleep(for: .milliseconds(2)) }
        let before = await subscriber.statistics()
        var packetAt: UInt64?
        var frameAt: UInt64?
        let deadline = instant + 15_000_000_000
        while frameAt == nil, MonotonicClock.now() < deadline {
            let now = await subscriber.statistics()
            let at = MonotonicClock.now()
            if packetAt == nil, now.video.packetsReceived + now.audio.packetsReceived > before.video.packetsReceived + before.audio.packetsReceived {
                packetAt = at
            }
            if now.framesDecoded > before.framesDecoded { frameAt = at }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return (packetAt, frameAt)
    }

    private static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        (Double(end) - Double(start)) / 1e6
    }
}
