import Foundation
import SignalingProtocol
import SwitchyardClient

extension BenchRun {
    /// What recording costs (docs/archiving.md): the daemon's CPU per forwarded packet in a 1 → N
    /// session without and with an individual archive (two windows of each, alternating, so the
    /// machine's noise falls on both), then `archiveStreams` publishers recorded individually (the
    /// writer's drops), then composed archives of 4 and 9 publishers (the composer's CPU per frame).
    func runArchive() async throws {
        var archive = BenchReport.Archive()
        let benchBefore = ProcessUsageSample.current(at: MonotonicClock.now())
        let daemonBefore = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }
        defer {
            let now = MonotonicClock.now()
            let benchAfter = ProcessUsageSample.current(at: now)
            report.measuredSeconds = Double(now - benchBefore.at) / 1e9
            report.bench = ProcessUsageSample.usage(from: benchBefore, to: benchAfter, peakMB: benchAfter.rssMB)
            if let daemonBefore, let daemonAfter = serverPID.flatMap({ ProcessUsageSample.read(pid: $0, at: now) }) {
                report.server = ProcessUsageSample.usage(from: daemonBefore, to: daemonAfter, peakMB: daemonAfter.rssMB)
            }
        }
        try await measureForwardingCost(into: &archive)
        try await measureManyStreams(into: &archive)
        for tiles in [4, 9] { try await measureComposer(tiles: tiles, into: &archive) }
        if let metrics {
            archive.recordingFullDrops = await metrics.scrape()[
                "switchyard_media_drops_total{reason=\"recordingFull\"}"]
        }
        report.archive = archive
    }

    private func measureForwardingCost(into archive: inout BenchReport.Archive) async throws {
        let sessionId = "\(sessionPrefix)-archive-fanout"
        let publisherSession = try await connect(session: sessionId, role: .publisher)
        let publisher = try await publisherSession.publish(PublisherSettings(name: "bench", media: media))
        report.clients.publishers = 1
        say("connecting \(options.clients) subscribers")
        let options = self.options
        let subscribers = await concurrently(options.clients) { [self] _ in
            let session = try await connect(session: sessionId, role: .subscriber)
            _ = try await session.subscribe(to: publisher.streamId, settings: SubscriberSettings())
            return session
        }
        archive.subscribers = subscribers.count
        report.clients.subscribers = subscribers.count
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        let window = Double(options.durationSeconds) / 2
        archive.windowSeconds = window
        var without: [(cpu: Double, packets: Double)] = []
        var with: [(cpu: Double, packets: Double)] = []
        for round in 0..<2 {
            say("forwarding without an archive, window \(round + 1) of 2 (\(window) s)")
            without.append(try await forwardingWindow(seconds: window))
            let started = try await startArchive(sessionId, body: #"{"name": "bench"}"#)
            try await Task.sleep(for: .seconds(1))
            say("forwarding with an individual archive, window \(round + 1) of 2 (\(window) s)")
            with.append(try await forwardingWindow(seconds: window))
            _ = try await stopArchive(sessionId, started.id)
        }
        func perPacket(_ windows: [(cpu: Double, packets: Double)]) -> Double? {
            let packets = windows.reduce(0) { $0 + $1.packets }
            return packets > 0 ? windows.reduce(0) { $0 + $1.cpu } / packets * 1e6 : nil
        }
        archive.cpuPerForwardedPacketWithoutMicroseconds = perPacket(without)
        archive.cpuPerForwardedPacketWithMicroseconds = perPacket(with)
        archive.forwardedPerSecondWithout = without.reduce(0) { $0 + $1.packets } / (2 * window)
        archive.forwardedPerSecondWith = with.reduce(0) { $0 + $1.packets } / (2 * window)
        if let base = archive.cpuPerForwardedPacketWithoutMicroseconds,
            let recorded = archive.cpuPerForwardedPacketWithMicroseconds
        {
            archive.cpuRatio = recorded / base
        }
        await leave([publisherSession] + subscribers)
    }

    /// The daemon's CPU seconds and the packets it sent over `seconds`.
    private func forwardingWindow(seconds: Double) async throws -> (cpu: Double, packets: Double) {
        guard let pid = serverPID, let metrics else {
            throw BenchError.invalidOptions(
                "the archive scenario reads the daemon's CPU: run it locally or give --server-pid")
        }
        let sentKey = "switchyard_media_packets_sent_total"
        let packetsBefore = await metrics.scrape()[sentKey] ?? 0
        guard let before = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) else {
            throw BenchError.setupFailed("daemon \(pid) is gone")
        }
        try await Task.sleep(for: .seconds(seconds))
        guard let after = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) else {
            throw BenchError.setupFailed("daemon \(pid) is gone")
        }
        let packetsAfter = await metrics.scrape()[sentKey] ?? 0
        return (after.cpuSeconds - before.cpuSeconds, packetsAfter - packetsBefore)
    }

    private func measureManyStreams(into archive: inout BenchReport.Archive) async throws {
        let sessionId = "\(sessionPrefix)-archive-many"
        say("\(options.archiveStreams) publishers recorded individually for \(options.durationSeconds) s")
        let publishers = try await publish(options.archiveStreams, in: sessionId)
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        let started = try await startArchive(sessionId, body: #"{"name": "bench-many"}"#)
        try await Task.sleep(for: .seconds(Double(options.durationSeconds)))
        let stopped = try await stopArchive(sessionId, started.id)
        archive.recordedStreams = publishers.count
        archive.recordedSeconds = stopped.duration
        archive.recordedFiles = stopped.files.count
        archive.recordedMegabytes = Double(stopped.size) / 1e6
        archive.writerDrops = stopped.droppedPackets
        archive.writerCPUPercent = stopped.writerCPUSeconds.map { 100 * $0 / max(stopped.duration, 0.001) }
        if stopped.status != .available {
            report.errors.append(
                "archive of \(publishers.count) streams ended \(stopped.status.rawValue): \(stopped.failureDetail ?? "")"
            )
        }
        try? await deleteArchive(stopped.id)
        await leave(publishers)
    }

    private func measureComposer(tiles: Int, into archive: inout BenchReport.Archive) async throws {
        let sessionId = "\(sessionPrefix)-archive-composed-\(tiles)"
        let (resolution, frameRate) = ("640x480", 15)
        say(
            "a composed archive of \(tiles) publishers (\(resolution) at \(frameRate) fps) for \(options.durationSeconds) s"
        )
        let publishers = try await publish(tiles, in: sessionId)
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        let started = try await startArchive(
            sessionId,
            body:
                #"{"name": "bench-composed", "outputMode": "composed", "resolution": "\#(resolution)", "frameRate": \#(frameRate)}"#
        )
        try await Task.sleep(for: .seconds(Double(options.durationSeconds)))
        let stopped = try await stopArchive(sessionId, started.id)
        let frames = Int(stopped.duration * Double(frameRate))
        var composed = BenchReport.Archive.Composed(
            tiles: tiles, resolution: resolution, frameRate: frameRate, seconds: stopped.duration, outputFrames: frames,
            writerDrops: stopped.droppedPackets)
        if let cpu = stopped.writerCPUSeconds, frames > 0 {
            composed.cpuMillisecondsPerFrame = 1000 * cpu / Double(frames)
            composed.cpuPercent = 100 * cpu / max(stopped.duration, 0.001)
        }
        if stopped.status != .available {
            report.errors.append(
                "composed archive of \(tiles) ended \(stopped.status.rawValue): \(stopped.failureDetail ?? "")")
        }
        archive.composed.append(composed)
        try? await deleteArchive(stopped.id)
        await leave(publishers)
    }

    /// `count` publishers of the bench's media in `sessionId`.
    private func publish(_ count: Int, in sessionId: String) async throws -> [Session] {
        let media = self.media
        let sessions = await concurrently(count) { [self] index in
            let session = try await connect(session: sessionId, role: .publisher)
            _ = try await session.publish(PublisherSettings(name: "bench-\(index)", media: media))
            return session
        }
        guard sessions.count == count else {
            throw BenchError.setupFailed("\(count - sessions.count) of \(count) publishers in \(sessionId) failed")
        }
        return sessions
    }

    private func leave(_ sessions: [Session]) async {
        forget(sessions)
        await withTaskGroup(of: Void.self) { group in
            for session in sessions { group.addTask { await session.disconnect() } }
        }
    }

    private func startArchive(_ sessionId: String, body: String) async throws -> ArchiveInfo {
        let (status, answer) = try await rest("POST", "/v1/sessions/\(sessionId)/archives", body: body)
        guard status == 201 else {
            throw BenchError.setupFailed(
                "starting an archive of \(sessionId) answered \(status): \(String(decoding: answer, as: UTF8.self))")
        }
        return try JSONDecoder().decode(ArchiveInfo.self, from: answer)
    }

    private func stopArchive(_ sessionId: String, _ archiveId: String) async throws -> ArchiveInfo {
        let (status, answer) = try await rest("POST", "/v1/sessions/\(sessionId)/archives/\(archiveId)/stop")
        guard status == 200 else {
            throw BenchError.setupFailed(
                "stopping archive \(archiveId) answered \(status): \(String(decoding: answer, as: UTF8.self))")
        }
        return try JSONDecoder().decode(ArchiveInfo.self, from: answer)
    }

    private func deleteArchive(_ archiveId: String) async throws {
        _ = try await rest("DELETE", "/v1/archives/\(archiveId)")
    }
}
