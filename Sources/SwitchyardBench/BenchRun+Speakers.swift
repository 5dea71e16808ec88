import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Signaling
import SignalingProtocol
import SwitchyardClient

extension BenchRun {
    /// Three rooms of `clients` participants, each publishing audio and subscribing to all the others,
    /// all hearing speaker events: `levels` (levels on every packet, every stream forwarded),
    /// `plain` (the same without levels) and `loudest` (levels, in a session created with
    /// `audio.forwardLoudest`). The rooms not in use are muted:
    /// 1. `loudest`: talkers take turns; then it leaves;
    /// 2. `levels`: the same turns;
    /// 3. `levels`: one talks on for `steadySeconds` while the others make noise, and `plain` runs
    ///    the same at once on another media worker, for the workers' CPU per packet.
    func runSpeakers() async throws {
        let count = options.clients
        say("synthesizing and encoding \(count) voices")
        let voices = try SpeakerVoice.voices(count: count, bitrate: options.audioBitrate)
        // In this order, a daemon that places routers in turn puts levels and plain on two workers.
        let levels = try await makeSpeakerRoom("levels", voices: voices, sendsLevels: true)
        let plain = try await makeSpeakerRoom("plain", voices: voices, sendsLevels: false)
        let loudest = try await makeSpeakerRoom("loudest", voices: voices, sendsLevels: true, forwardLoudest: options.forwardLoudest)
        let rooms = [levels, loudest, plain]
        report.clients.publishers = rooms.reduce(0) { $0 + $1.participants.count }
        report.clients.subscribers = rooms.reduce(0) { $0 + $1.subscribers.count }

        let start = MonotonicClock.now()
        let benchStart = ProcessUsageSample.current(at: start)
        let serverStart = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: start) }
        let loopStart = await loops.asyncMap { await $0.loopStatistics() }
        var speakers = BenchReport.Speakers(
            participants: count, turnSeconds: options.turnSeconds, turnGapSeconds: options.turnGapSeconds, steadySeconds: options.steadySeconds)

        say("\(loudest.name) (forwardLoudest \(options.forwardLoudest)): \(options.turns) turns of \(options.turnSeconds) s")
        let loudestForwarded = try await speakInTurns(in: loudest)
        // Muted, its endpoints would still cost the worker it shares with levels a tick's work each.
        await leave(loudest)
        say("\(levels.name): the same turns")
        let metricsBeforeTurns = await metrics?.scrape() ?? [:]
        let allForwarded = try await speakInTurns(in: levels)
        let levelsWorker = Self.busiestWorker(from: metricsBeforeTurns, to: await metrics?.scrape() ?? [:])

        say("\(levels.name): one talker for \(options.steadySeconds) s; \(plain.name) the same at once")
        for room in [levels, plain] { try await room.setLive(true) }
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        let steadyTalker = levels.participants[options.turns % count]
        let steadyStart = MonotonicClock.now()
        for talker in [steadyTalker, plain.participants[options.turns % count]] { talker.publisher.play(talker.voice.speech) }
        let cpu = try await measureLevelTrackingCost(
            withLevels: levels, on: levelsWorker, withoutLevels: plain, from: steadyStart, until: steadyStart + UInt64(options.steadySeconds * 1e9))
        let steadyEnd = MonotonicClock.now()
        for room in [levels, plain] { try await room.setLive(false) }
        speakers.cpu = cpu

        for (spoken, room) in [(allForwarded, levels), (loudestForwarded, loudest)] {
            let since = spoken.script[0].start
            speakers.turns += SpeakerAnalysis(changes: room.speakerChanges(since: since), reports: room.speakingReports(since: since), labels: room.labels)
                .turns(spoken.script, room: room.name, end: spoken.end)
        }
        let steady = SpeakerAnalysis(changes: levels.speakerChanges(since: steadyStart), reports: [], labels: levels.labels).steady(
            SpeakerAnalysis.ScriptedTurn(talker: steadyTalker.label, streamId: steadyTalker.publisher.streamId, start: steadyStart), end: steadyEnd)
        speakers.steadyTalkerNamedAfterMs = steady.namedAfterMs
        speakers.falseSwitchEvents = steady.falseSwitches
        speakers.falseSwitches = steady.falseSwitches.count
        let delays = speakers.turns.compactMap(\.namedAfterMs).sorted()
        speakers.detectionP50Ms = Measurement.percentile(delays, 0.5)
        speakers.detectionP95Ms = Measurement.percentile(delays, 0.95)
        speakers.detectionMaxMs = delays.last
        speakers.turnsMissed = speakers.turns.filter { $0.namedAfterMs == nil }.count
        speakers.wrongSwitchesDuringTurns = speakers.turns.reduce(0) { $0 + $1.wrongSwitches }
        speakers.downlink = Self.downlink(all: allForwarded, loudest: loudestForwarded, forwardLoudest: options.forwardLoudest)

        let end = MonotonicClock.now()
        report.measuredSeconds = Double(end - start) / 1e9
        report.forwarding.receivedPacketsPerSecond = allForwarded.packetsPerSecond * Double(count)
        report.forwarding.receivedMbitPerSecond = allForwarded.kbps * Double(count) / 1000
        let benchEnd = ProcessUsageSample.current(at: end)
        report.bench = ProcessUsageSample.usage(from: benchStart, to: benchEnd, peakMB: benchEnd.rssMB)
        if let serverStart, let pid = serverPID, let serverEnd = ProcessUsageSample.read(pid: pid, at: end) {
            report.server = ProcessUsageSample.usage(from: serverStart, to: serverEnd, peakMB: serverEnd.rssMB)
        }
        let loopEnd = await loops.asyncMap { await $0.loopStatistics() }
        let window = Double(end - start)
        report.benchMediaThread = zip(loopStart, loopEnd).map { before, after in
            let receiving = 100 * Double(after.receiveNanoseconds - before.receiveNanoseconds) / window
            let ticking = 100 * Double(after.tickNanoseconds - before.tickNanoseconds) / window
            return BenchReport.MediaThread(
                busyPercent: receiving + ticking, receivePercent: receiving, tickPercent: ticking,
                socketsReadPerSecond: Double(after.socketsRead - before.socketsRead) * 1e9 / window,
                wakeupsPerSecond: Double(after.wakeups - before.wakeups) * 1e9 / window)
        }.max { $0.busyPercent < $1.busyPercent }
        report.speakers = speakers
    }

    /// Connects, publishes (muted) and subscribes everyone of a room; a room with `forwardLoudest` is
    /// created first through the REST API with that setting.
    private func makeSpeakerRoom(_ name: String, voices: [SpeakerVoice], sendsLevels: Bool, forwardLoudest: Int? = nil) async throws -> SpeakerRoom {
        let sessionId = "\(sessionPrefix)-speakers-\(name)"
        if let forwardLoudest { try await createSession(sessionId, forwardLoudest: forwardLoudest) }
        say("\(name): \(voices.count) participants publishing\(sendsLevels ? " with audio levels" : " without audio levels")")
        let audioOnly = MediaSettings(videoBitrate: 0, audioBitrate: options.audioBitrate)
        let participants: [SpeakerRoom.Participant] = await concurrently(voices.count) { [self] index in
            let session = try await connect(session: sessionId, role: .publisher, speakerEvents: true)
            let label = "p\(index + 1)"
            let publisher = try await session.publish(
                PublisherSettings(
                    name: label, media: try EncodedMedia(settings: audioOnly, audio: voices[index].room), publishAudio: false,
                    sendsAudioLevels: sendsLevels))
            return SpeakerRoom.Participant(label: label, session: session, publisher: publisher, voice: voices[index])
        }
        guard participants.count == voices.count else {
            throw BenchError.setupFailed("\(name): \(voices.count - participants.count) of \(voices.count) participants could not publish")
        }
        say("\(name): each subscribing to the \(participants.count - 1) others")
        let pairs = participants.indices.flatMap { viewer in participants.indices.filter { $0 != viewer }.map { (viewer, $0) } }
        let subscribers: [Subscriber] = await concurrently(pairs.count) { index in
            let (viewer, source) = pairs[index]
            return try await participants[viewer].session.subscribe(
                to: participants[source].publisher.streamId, settings: SubscriberSettings(subscribeToVideo: false))
        }
        return SpeakerRoom(name: name, participants: participants, subscribers: subscribers)
    }

    /// Disconnects everyone of `room`.
    private func leave(_ room: SpeakerRoom) async {
        await withTaskGroup(of: Void.self) { group in
            for participant in room.participants {
                group.addTask { await participant.session.disconnect() }
            }
        }
        forget(room.participants.map(\.session))
    }

    /// `POST /v1/sessions` with `audio.forwardLoudest`.
    private func createSession(_ sessionId: String, forwardLoudest: Int) async throws {
        try await createSession(#"{"sessionId":"\#(sessionId)","audio":{"forwardLoudest":\#(forwardLoudest)}}"#)
    }

    /// What one room's turns were: the script, when they ended, and the audio its participants received.
    struct SpokenTurns {
        var script: [SpeakerAnalysis.ScriptedTurn]
        var end: UInt64
        /// Per participant: audio packets and payload kbit received per second.
        var packetsPerSecond: Double
        var kbps: Double
    }

    /// Unmutes `room`, lets every noise floor settle for the warm-up, then starts participant
    /// k mod N talking for `turnSeconds` at turn k, with `turnGapSeconds` of only noise between two
    /// turns; mutes it again.
    private func speakInTurns(in room: SpeakerRoom) async throws -> SpokenTurns {
        try await room.setLive(true)
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        let before = await room.audioReceived()
        let began = MonotonicClock.now()
        var script: [SpeakerAnalysis.ScriptedTurn] = []
        for turn in 0..<options.turns {
            let talker = room.participants[turn % room.participants.count]
            script.append(SpeakerAnalysis.ScriptedTurn(talker: talker.label, streamId: talker.publisher.streamId, start: MonotonicClock.now()))
            talker.publisher.play(talker.voice.speech)
            try await Task.sleep(for: .seconds(options.turnSeconds))
            talker.publisher.play(talker.voice.room)
            try await Task.sleep(for: .seconds(options.turnGapSeconds))
        }
        let end = MonotonicClock.now()
        let after = await room.audioReceived()
        try await room.setLive(false)
        let perParticipantSecond = Double(room.participants.count) * Double(end - began) / 1e9
        return SpokenTurns(
            script: script, end: end, packetsPerSecond: Double(after.packets - before.packets) / perParticipantSecond,
            kbps: Double((after.bytes - before.bytes) * 8) / perParticipantSecond / 1000)
    }

    private static func downlink(all: SpokenTurns, loudest: SpokenTurns, forwardLoudest: Int) -> BenchReport.SpeakersDownlink {
        BenchReport.SpeakersDownlink(
            forwardLoudest: forwardLoudest, packetsPerSecondAll: all.packetsPerSecond, kbpsAll: all.kbps,
            packetsPerSecondLoudest: loudest.packetsPerSecond, kbpsLoudest: loudest.kbps,
            packetRatio: all.packetsPerSecond > 0 ? loudest.packetsPerSecond / all.packetsPerSecond : nil,
            byteRatio: all.kbps > 0 ? loudest.kbps / all.kbps : nil)
    }

    /// The media worker whose `packets_sent_total` grew most between two scrapes of the daemon's metrics.
    private static func busiestWorker(from start: [String: Double], to end: [String: Double], excluding excluded: Int? = nil) -> Int? {
        let prefix = "switchyard_media_worker_packets_sent_total{worker=\""
        return end.compactMap { key, value -> (worker: Int, sent: Double)? in
            guard key.hasPrefix(prefix), let worker = Int(key.dropFirst(prefix.count).prefix { $0 != "\"" }), worker != excluded else { return nil }
            return (worker, value - (start[key] ?? 0))
        }.max { $0.sent < $1.sent }.flatMap { $0.sent > 0 ? $0.worker : nil }
    }

    /// The media workers' CPU and the rooms' audio packets at one instant.
    private struct CPUSample {
        var threads: [Int: (name: String, nanoseconds: UInt64)]
        var withLevelsPackets: UInt64
        var withoutLevelsPackets: UInt64
        var at: UInt64

        /// CPU nanoseconds since `earlier` of the thread named `name`, and of every other thread.
        func cpu(since earlier: CPUSample, of name: String) -> UInt64 {
            threads.reduce(0) { total, entry in
                guard entry.value.name == name, let before = earlier.threads[entry.key] else { return total }
                return total + entry.value.nanoseconds - before.nanoseconds
            }
        }

        func allCPU(since earlier: CPUSample) -> UInt64 {
            threads.reduce(0) { total, entry in total + entry.value.nanoseconds - (earlier.threads[entry.key]?.nanoseconds ?? entry.value.nanoseconds) }
        }
    }

    /// While both rooms run, windows of `durationSeconds` from `start` until `deadline`: each room's worker
    /// thread's CPU time over the audio packets its subscribers received. A worker's thread is
    /// `switchyard-w<index>` (the epoll worker loop names it). Nil, with the reason among the
    /// report's errors, when the workers cannot be read or told apart; the windows run anyway.
    private func measureLevelTrackingCost(
        withLevels: SpeakerRoom, on levelsWorker: Int?, withoutLevels: SpeakerRoom, from start: UInt64, until deadline: UInt64
    ) async throws -> BenchReport.SpeakersCPU? {
        let pid = serverPID
        let metricsStart = await metrics?.scrape() ?? [:]
        func sample() async -> CPUSample {
            async let withPackets = withLevels.audioReceived().packets
            async let withoutPackets = withoutLevels.audioReceived().packets
            let threads = pid.map { ProcessUsageSample.threadCPU(pid: $0) } ?? [:]
            return CPUSample(threads: threads, withLevelsPackets: await withPackets, withoutLevelsPackets: await withoutPackets, at: MonotonicClock.now())
        }
        func sleep(until instant: UInt64) async throws {
            let now = MonotonicClock.now()
            if instant > now { try await Task.sleep(for: .nanoseconds(Int64(instant - now))) }
        }
        let window = UInt64(options.durationSeconds * 1e9)
        var samples = [await sample()]
        for index in 0..<(deadline > start ? (deadline - start) / window : 0) {
            try await sleep(until: start + (index + 1) * window)
            samples.append(await sample())
        }
        try await sleep(until: deadline)
        let metricsEnd = await metrics?.scrape() ?? [:]
        guard pid != nil, let levelsWorker, samples.count > 1 else {
            report.errors.append(
                "speakers: no CPU windows (a remote --server needs --server-pid and its metrics; --steady-seconds must hold one --duration)")
            return nil
        }
        guard let plainWorker = Self.busiestWorker(from: metricsStart, to: metricsEnd, excluding: levelsWorker) else {
            report.errors.append("speakers: \(withoutLevels.name) runs on the same media worker as \(withLevels.name), so their CPU cannot be told apart")
            return nil
        }
        let withName = "switchyard-w\(levelsWorker)"
        let withoutName = "switchyard-w\(plainWorker)"
        guard samples[0].threads.values.contains(where: { $0.name == withName }), samples[0].threads.values.contains(where: { $0.name == withoutName }) else {
            report.errors.append("speakers: no threads named \(withName) and \(withoutName) in the daemon (its media.workerLoop must be epoll)")
            return nil
        }
        func perPacket(_ nanoseconds: UInt64, _ packets: UInt64) -> Double { packets > 0 ? Double(nanoseconds) / 1000 / Double(packets) : 0 }
        var cpu = BenchReport.SpeakersCPU(withLevelsWorker: levelsWorker, withoutLevelsWorker: plainWorker, windowSeconds: options.durationSeconds)
        for (earlier, later) in zip(samples, samples.dropFirst()) {
            let with = perPacket(later.cpu(since: earlier, of: withName), later.withLevelsPackets - earlier.withLevelsPackets)
            let without = perPacket(later.cpu(since: earlier, of: withoutName), later.withoutLevelsPackets - earlier.withoutLevelsPackets)
            cpu.windows.append(BenchReport.SpeakersCPU.Window(withLevelsMicroseconds: with, withoutLevelsMicroseconds: without, ratio: without > 0 ? with / without : 0))
        }
        let first = samples[0]
        let last = samples[samples.count - 1]
        let seconds = Double(last.at - first.at) / 1e9
        let withCPU = last.cpu(since: first, of: withName)
        let withoutCPU = last.cpu(since: first, of: withoutName)
        cpu.packetsPerSecondWithLevels = Double(last.withLevelsPackets - first.withLevelsPackets) / seconds
        cpu.packetsPerSecondWithoutLevels = Double(last.withoutLevelsPackets - first.withoutLevelsPackets) / seconds
        cpu.withLevelsMicroseconds = perPacket(withCPU, last.withLevelsPackets - first.withLevelsPackets)
        cpu.withoutLevelsMicroseconds = perPacket(withoutCPU, last.withoutLevelsPackets - first.withoutLevelsPackets)
        cpu.ratio = cpu.withoutLevelsMicroseconds > 0 ? cpu.withLevelsMicroseconds / cpu.withoutLevelsMicroseconds : 0
        cpu.ratioLowest = cpu.windows.map(\.ratio).min() ?? 0
        cpu.ratioHighest = cpu.windows.map(\.ratio).max() ?? 0
        cpu.restOfDaemonMillisecondsPerSecond = Double(last.allCPU(since: first) - withCPU - withoutCPU) / 1e6 / seconds
        return cpu
    }
}
