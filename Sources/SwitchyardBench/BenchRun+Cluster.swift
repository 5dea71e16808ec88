import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Glibc
import Signaling
import SignalingProtocol
import SwitchyardClient
import Synchronization

/// What one client of the cluster scenario saw, and when (monotonic nanoseconds).
private final class ClusterWitness: Sendable {
    struct Seen {
        var signals: [String: UInt64] = [:]
        var movedAt: UInt64?
    }

    let seen = Mutex(Seen())

    /// Watches `session`'s events until they end (the session's disconnect finishes them).
    static func watching(_ session: Session) -> ClusterWitness {
        let witness = ClusterWitness()
        Task {
            for await event in session.events {
                switch event {
                case .signalReceived(_, let data, _): witness.seen.withLock { $0.signals[data] = MonotonicClock.now() }
                case .sessionDidMove: witness.seen.withLock { $0.movedAt = $0.movedAt ?? MonotonicClock.now() }
                default: break
                }
            }
        }
        return witness
    }
}

/// One session of the scenario: a publisher and a subscriber that came in through different nodes.
private struct ClusterRoom {
    var sessionId: String
    var publisherSession: Session
    var subscriberSession: Session
    var publisher: Publisher
    var publisherWitness: ClusterWitness
    var subscriberWitness: ClusterWitness
}

extension BenchRun {
    func runCluster() async throws {
        let urls = options.clusterURLs
        var cluster = BenchReport.Cluster()
        cluster.nodes = urls.count
        let start = ProcessUsageSample.current(at: MonotonicClock.now())
        let rest = try await tokens.mintRESTToken(lifetime: 300, now: Date())
        // First, while the nodes carry nothing else, so their figures are the room's alone.
        if options.cascadeSubscribers > 0 {
            try await measureCascade(through: urls[0], rest: rest, into: &cluster)
        }
        var placements: [Double] = []
        var joins: [Double] = []
        var rooms: [ClusterRoom] = []
        for index in 0..<options.clients {
            say("session \(index + 1) of \(options.clients)")
            let sessionId = "\(sessionPrefix)-cluster-\(index)"
            let entry = urls[index % urls.count]
            let placed = MonotonicClock.now()
            // The other nodes are the clients' other ways in, as a list of edge addresses would be.
            let publisherSession = try await connect(
                session: sessionId, role: .publisher, reconnects: true, through: entry, alternatives: urls.filter { $0 != entry })
            placements.append(Self.milliseconds(since: placed))
            if publisherSession.serverURL != entry { cluster.placementsRedirected += 1 }
            let next = urls[(index + 1) % urls.count]
            let joined = MonotonicClock.now()
            let subscriberSession = try await connect(
                session: sessionId, role: .subscriber, reconnects: true, through: next, alternatives: urls.filter { $0 != next })
            joins.append(Self.milliseconds(since: joined))
            if subscriberSession.serverURL != next { cluster.joinsRedirected += 1 }
            let publisher = try await publisherSession.publish(PublisherSettings(name: "bench", media: media))
            try await receive(publisher, at: subscriberSession)
            cluster.sessionsPerNode[publisherSession.serverURL, default: 0] += 1
            rooms.append(
                ClusterRoom(
                    sessionId: sessionId, publisherSession: publisherSession, subscriberSession: subscriberSession, publisher: publisher,
                    publisherWitness: .watching(publisherSession), subscriberWitness: .watching(subscriberSession)))
        }
        report.clients.publishers = rooms.count
        report.clients.subscribers = rooms.count
        cluster.sessions = rooms.count
        (cluster.placementP50Ms, cluster.placementP99Ms) = Self.p50p99(placements)
        (cluster.joinP50Ms, cluster.joinP99Ms) = Self.p50p99(joins)

        var direct: [Double] = []
        var forwarded: [Double] = []
        for room in rooms {
            let holder = room.publisherSession.serverURL
            let other = urls.first { $0 != holder } ?? holder
            for round in 0..<options.signalsPerSession {
                for (through, isDirect) in [(holder, true), (other, false)] {
                    let data = "\(room.sessionId)-\(round)-\(isDirect ? "direct" : "forwarded")"
                    let sent = MonotonicClock.now()
                    let status = try await Self.post(
                        "\(ClusterNodeAddress.httpBase(ofWebSocket: through) ?? through)/v1/sessions/\(room.sessionId)/signal", token: rest,
                        body: #"{"type":"bench","data":"\#(data)"}"#)
                    if let arrived = await Self.arrival(of: data, at: room.subscriberWitness), status == 204 {
                        let milliseconds = Double(arrived &- sent) / 1e6
                        if isDirect { direct.append(milliseconds) } else { forwarded.append(milliseconds) }
                    } else {
                        cluster.signalsLost += 1
                    }
                }
            }
        }
        (cluster.signalDirectP50Ms, cluster.signalDirectP99Ms) = Self.p50p99(direct)
        (cluster.signalForwardedP50Ms, cluster.signalForwardedP99Ms) = Self.p50p99(forwarded)

        if let pid = options.killPID {
            try await measureFailover(killing: pid, at: urls[0], rooms: rooms, into: &cluster)
        }
        let end = ProcessUsageSample.current(at: MonotonicClock.now())
        report.measuredSeconds = Double(end.at - start.at) / 1e9
        report.bench = ProcessUsageSample.usage(from: start, to: end, peakMB: end.rssMB)
        report.cluster = cluster
    }

    /// Kills the node at `victim` and waits for its clients to move and media to flow again.
    private func measureFailover(killing pid: Int32, at victim: String, rooms: [ClusterRoom], into cluster: inout BenchReport.Cluster) async throws {
        let affected = rooms.filter { $0.publisherSession.serverURL == victim }
        cluster.killedNode = victim
        cluster.clientsOnKilledNode = affected.count * 2
        say("killing the node at \(victim) (pid \(pid)); \(affected.count * 2) clients on it")
        let streamsBefore = affected.map(\.publisher.streamId)
        let killedAt = MonotonicClock.now()
        guard kill(pid, SIGKILL) == 0 else { throw BenchError.setupFailed("kill -9 \(pid): \(String(cString: strerror(errno)))") }
        let deadline = killedAt + 60_000_000_000
        var moves: [Double] = []
        var mediaAgain: [Double] = []
        for (room, oldStream) in zip(affected, streamsBefore) {
            for witness in [room.publisherWitness, room.subscriberWitness] {
                while witness.seen.withLock({ $0.movedAt }) == nil, MonotonicClock.now() < deadline { try await Task.sleep(for: .milliseconds(10)) }
                if let moved = witness.seen.withLock({ $0.movedAt }) { moves.append(Double(moved &- killedAt) / 1e6) }
            }
            while room.publisher.streamId == oldStream, MonotonicClock.now() < deadline { try await Task.sleep(for: .milliseconds(10)) }
            guard room.publisher.streamId != oldStream else { continue }
            do {
                try await receive(room.publisher, at: room.subscriberSession)
                mediaAgain.append(Double(MonotonicClock.now() &- killedAt) / 1e6)
            } catch {
                report.errors.append("\(room.sessionId) after the kill: \(error)")
            }
        }
        cluster.clientsMoved = moves.count
        let sortedMoves = moves.sorted()
        cluster.moveP50Ms = Measurement.percentile(sortedMoves, 0.5)
        cluster.moveMaxMs = sortedMoves.last
        let sortedMedia = mediaAgain.sorted()
        cluster.mediaAgainP50Ms = Measurement.percentile(sortedMedia, 0.5)
        cluster.mediaAgainMaxMs = sortedMedia.last
    }

    /// One publisher and `cascadeSubscribers` subscribers in one session through `entry`, joining in
    /// turn: past the nodes' `cluster.subscribersBeforeCascading`, their media comes from other nodes.
    /// Measures the latency of those on the session's node and of the cascaded ones, and each node's
    /// forwarding and CPU from its heartbeats.
    private func measureCascade(through entry: String, rest: String, into cluster: inout BenchReport.Cluster) async throws {
        let sessionId = "\(sessionPrefix)-cascade"
        let publisherSession = try await connect(session: sessionId, role: .publisher, through: entry)
        let publisher = try await publisherSession.publish(PublisherSettings(name: "bench", media: media))
        var sessions: [Session] = []
        var subscribers: [Subscriber] = []
        for index in 0..<options.cascadeSubscribers {
            say("cascade subscriber \(index + 1) of \(options.cascadeSubscribers)")
            sessions.append(try await connect(session: sessionId, role: .subscriber, through: entry))
            subscribers.append(try await receive(publisher, at: sessions[index]))
        }
        // Each node announces its own media address, so a subscriber's media server names its node.
        let originHost = URLComponents(string: publisherSession.serverURL)?.host ?? ""
        let cascaded = subscribers.map { !$0.mediaServer.hasPrefix(originHost + ":") }
        cluster.cascadeSubscribers = subscribers.count
        cluster.cascadedSubscribers = cascaded.filter { $0 }.count
        say("cascade: \(cluster.cascadedSubscribers) of \(subscribers.count) subscribers served by other nodes; measuring \(options.durationSeconds) s")
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        let baseline = await Subscriber.snapshot(subscribers, takingLatency: true)
        var samples: [String: [NodeLoad]] = [:]
        var overview: ClusterOverview?
        let end = MonotonicClock.now() + UInt64(options.durationSeconds * 1e9)
        while MonotonicClock.now() < end {
            try await Task.sleep(for: .seconds(1))
            guard let current = try? await Self.overview(of: publisherSession.serverURL, token: rest) else { continue }
            for node in current.nodes where node.live { samples[node.nodeId, default: []].append(node.load) }
            overview = current
        }
        let final = await Subscriber.snapshot(subscribers, takingLatency: true)
        var direct = LatencyHistogram()
        var relayed = LatencyHistogram()
        var (lost, expected): (Int64, Int64) = (0, 0)
        for index in subscribers.indices {
            guard let latency = final[index].latency else { continue }
            if cascaded[index] {
                relayed.merge(latency)
                let after = final[index].media
                let before = baseline[index].media
                let lostNow = (after.audio.packetsLost + after.video.packetsLost) - (before.audio.packetsLost + before.video.packetsLost)
                lost += lostNow
                expected += Int64(after.audio.packetsReceived + after.video.packetsReceived)
                    - Int64(before.audio.packetsReceived + before.video.packetsReceived) + max(0, lostNow)
            } else {
                direct.merge(latency)
            }
        }
        (cluster.cascadeDirectLatencyP50Ms, cluster.cascadeDirectLatencyP99Ms) = (direct.percentileMilliseconds(0.5), direct.percentileMilliseconds(0.99))
        (cluster.cascadedLatencyP50Ms, cluster.cascadedLatencyP99Ms) = (relayed.percentileMilliseconds(0.5), relayed.percentileMilliseconds(0.99))
        cluster.cascadedLossPercent = expected > 0 ? 100 * Double(lost) / Double(expected) : nil
        let holder = overview?.nodes.first { $0.sessionIds.contains(sessionId) }?.nodeId
        for node in overview?.nodes ?? [] {
            let loads = samples[node.nodeId] ?? []
            guard !loads.isEmpty else { continue }
            let packets = loads.map(\.forwardedPacketsPerSecond).reduce(0, +) / Double(loads.count)
            let cores = loads.map(\.cpuCores).reduce(0, +) / Double(loads.count)
            let host = URLComponents(string: node.signalingURL)?.host ?? node.nodeId
            cluster.cascadeNodes.append(
                BenchReport.CascadeNode(
                    nodeId: node.nodeId, role: node.nodeId == holder ? "origin" : "edge",
                    subscribers: subscribers.filter { $0.mediaServer.hasPrefix(host + ":") }.count, forwardedPacketsPerSecond: packets,
                    cpuCores: cores, cpuMsPerThousandPackets: packets > 0 ? cores * 1e6 / packets : nil))
        }
        for session in sessions + [publisherSession] { await session.disconnect() }
    }

    private static func overview(of node: String, token: String) async throws -> ClusterOverview {
        var request = URLRequest(url: URL(string: "\(ClusterNodeAddress.httpBase(ofWebSocket: node) ?? node)/v1/cluster")!, timeoutInterval: 5)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (body, _) = try await URLSession.shared.data(for: request)
        return try JSONDecoder().decode(ClusterOverview.self, from: body)
    }

    /// Subscribes `session` to `publisher`'s stream once it knows it, and waits for its first packets.
    @discardableResult
    private func receive(_ publisher: Publisher, at session: Session) async throws -> Subscriber {
        let deadline = MonotonicClock.now() + 10_000_000_000
        while !session.streams.contains(where: { $0.streamId == publisher.streamId }), MonotonicClock.now() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let subscriber = try await session.subscribe(to: publisher.streamId)
        while await subscriber.statistics().video.packetsReceived + subscriber.statistics().audio.packetsReceived == 0 {
            guard MonotonicClock.now() < deadline else { throw BenchError.setupFailed("no media from \(publisher.streamId) within 10 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
        return subscriber
    }

    private static func arrival(of data: String, at witness: ClusterWitness) async -> UInt64? {
        let deadline = MonotonicClock.now() + 5_000_000_000
        while MonotonicClock.now() < deadline {
            if let arrived = witness.seen.withLock({ $0.signals[data] }) { return arrived }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    private static func post(_ url: String, token: String, body: String) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    private static func milliseconds(since start: UInt64) -> Double { Double(MonotonicClock.now() &- start) / 1e6 }

    private static func p50p99(_ samples: [Double]) -> (Double?, Double?) {
        let sorted = samples.sorted()
        return (Measurement.percentile(sorted, 0.5), Measurement.percentile(sorted, 0.99))
    }
}
