import SwitchyardClient

/// The measurement window of a run with long-lived subscribers: baseline after the warm-up, samples
/// while it runs (timeline, memory), and the figures at the end.
struct Measurement {
    static let timelineInterval: UInt64 = 250_000_000
    static let maximumTimelineSeries = 16

    let run: BenchRun
    let publishers: [Publisher]
    let subscribers: [TrackedSubscriber]
    /// The publisher whose events a publisher-side fallback run times.
    var watchedPublisher: TrackedPublisher?

    /// Returns each subscriber's snapshot at the end of the window (its latency: the window's), for
    /// a scenario that splits the figures further.
    @discardableResult
    func measure() async throws -> [SubscriberSnapshot] {
        let options = run.options
        run.say("warming up for \(options.warmupSeconds) s")
        try await Task.sleep(for: .seconds(options.warmupSeconds))

        let kernelLinks = try await run.prepareKernelLinks(subscribers: subscribers, publisher: publishers.first)
        let baseline = await Subscriber.snapshot(subscribers.map(\.subscriber), takingLatency: true)
        let metricsStart = await run.metrics?.scrape() ?? [:]
        let start = MonotonicClock.now()
        let benchStart = ProcessUsageSample.current(at: start)
        let serverStart = run.serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: start) }
        let framesSentStart = await framesSent()
        let publisherPacketsStart = await publishers.first?.endpointCounters().datagramsSent ?? 0
        let loopStart = await run.loops.asyncMap { await $0.loopStatistics() }
        kernelLinks?.start(at: start)
        for subscriber in subscribers where subscriber.isImpaired && kernelLinks == nil {
            subscriber.subscriber.impair(downlink: options.schedule)
        }
        if kernelLinks == nil, options.scenario == .fallback, options.measuresPublisherSide {
            publishers.first?.impair(uplink: options.publisherSchedule)
        }
        run.say("measuring \(subscribers.count) subscribers for \(options.durationSeconds) s")

        let tracked = Array((subscribers.filter(\.isImpaired) + subscribers.filter { !$0.isImpaired }).prefix(Self.maximumTimelineSeries))
        var series = tracked.map { BenchReport.TimelineSeries(subscriber: $0.label, impaired: $0.isImpaired) }
        var previous = await Sample.take(tracked)
        var serverPeak = serverStart?.rssMB ?? 0
        var benchPeak = benchStart.rssMB
        var soakSamples: [Double] = []
        let end = start + UInt64(options.durationSeconds * 1e9)
        var nextSoakSample = start
        var layerStop = options.scenario == .simulcast ? options.topLayerStopAtSeconds.map { TopLayerStop(atSeconds: $0, forSeconds: options.topLayerStopSeconds) } : nil
        while MonotonicClock.now() < end {
            try await Task.sleep(for: .nanoseconds(Int64(Self.timelineInterval)))
            let now = MonotonicClock.now()
            let current = await Sample.take(tracked)
            let elapsed = Double(now - start) / 1e9
            if let publisher = publishers.first {
                await layerStop?.step(
                    elapsed: elapsed, now: now, publisher: publisher, topLayer: options.simulcastLowerLayers.count, topWidth: options.width,
                    subscribers: subscribers)
            }
            let capacity = options.schedule.impairment(atSeconds: elapsed).bandwidth
            for index in tracked.indices {
                var point = current[index].point(since: previous[index], start: start, state: tracked[index].state(at: now))
                if options.scenario == .simulcast {
                    point.decodedWidth = current[index].decodedWidth
                    point.freezes = current[index].freezes - previous[index].freezes
                }
                if options.impairsSubscribers, tracked[index].isImpaired {
                    point.estimateKbps = try? await tracked[index].subscriber.serverStatistics().quality?.availableBitrate.map { $0 / 1000 }
                    point.capacityKbps = capacity > 0 ? Double(capacity) / 1000 : nil
                }
                series[index].points.append(point)
            }
            previous = current
            if let pid = run.serverPID, let sample = ProcessUsageSample.read(pid: pid, at: now) {
                serverPeak = max(serverPeak, sample.rssMB)
                if now >= nextSoakSample {
                    soakSamples.append(sample.rssMB)
                    nextSoakSample = now + 5_000_000_000
                }
            }
            benchPeak = max(benchPeak, ProcessUsageSample.current(at: now).rssMB)
        }

        // Everything that counts is read at once, before the slower work of summing it up; the
        // daemon's counters first, and over the time from scrape to scrape, so a snapshot of a
        // thousand subscribers taking seconds does not count as the daemon's.
        let finish = MonotonicClock.now()
        let metricsEnd = await run.metrics?.scrape() ?? [:]
        let metricsSeconds = Double(MonotonicClock.now() - start) / 1e9
        let final = await Subscriber.snapshot(subscribers.map(\.subscriber), takingLatency: true)
        let benchEnd = ProcessUsageSample.current(at: MonotonicClock.now())
        let serverEnd = run.serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }
        let framesSentDuringRun = await framesSent() - framesSentStart
        let publisherPacketsSent = (await publishers.first?.endpointCounters().datagramsSent ?? 0) - publisherPacketsStart
        let loopEnd = await run.loops.asyncMap { await $0.loopStatistics() }
        if let kernelLinks { run.report.errors += await kernelLinks.stop() }
        let seconds = Double(finish - start) / 1e9
        var report = run.report
        report.measuredSeconds = seconds
        report.timeline = series
        report.bench = ProcessUsageSample.usage(from: benchStart, to: benchEnd, peakMB: benchPeak)
        // The busiest media thread is the one that decides whether the bench kept up.
        let window = Double(finish - start)
        report.benchMediaThread = zip(loopStart, loopEnd).map { before, after in
            let receiving = 100 * Double(after.receiveNanoseconds - before.receiveNanoseconds) / window
            let ticking = 100 * Double(after.tickNanoseconds - before.tickNanoseconds) / window
            return BenchReport.MediaThread(
                busyPercent: receiving + ticking, receivePercent: receiving, tickPercent: ticking,
                socketsReadPerSecond: Double(after.socketsRead - before.socketsRead) / seconds,
                wakeupsPerSecond: Double(after.wakeups - before.wakeups) / seconds)
        }.max { $0.busyPercent < $1.busyPercent }
        if let serverStart, let serverEnd {
            report.server = ProcessUsageSample.usage(from: serverStart, to: serverEnd, peakMB: serverPeak)
        }

        if run.metrics != nil, metricsStart.isEmpty || metricsEnd.isEmpty {
            // Counted from zero, a share would be the daemon's whole life over this window.
            report.errors.append("the daemon's /metrics did not answer at the \(metricsStart.isEmpty ? "start" : "end") of the measurement: no worker shares")
        } else {
            report.workers = Self.workerShares(from: metricsStart, to: metricsEnd, seconds: metricsSeconds)
        }

        let sentKey = "switchyard_media_packets_sent_total"
        if let sentBefore = metricsStart[sentKey], let sentAfter = metricsEnd[sentKey] {
            let forwarded = UInt64(max(0, sentAfter - sentBefore))
            report.forwarding.packetsForwarded = forwarded
            report.forwarding.packetsPerSecond = Double(forwarded) / metricsSeconds
            if let server = report.server, server.cpuSeconds > 0 {
                report.forwarding.packetsPerServerCPUSecond = Double(forwarded) / server.cpuSeconds
            }
        }

        var latency = LatencyHistogram()
        var receivedPackets: UInt64 = 0
        var receivedBytes: UInt64 = 0
        var jitters: [Double] = []
        for (index, subscriber) in subscribers.enumerated() {
            let before = baseline[index]
            let after = final[index]
            receivedPackets += after.media.audio.packetsReceived + after.media.video.packetsReceived
            receivedPackets -= before.media.audio.packetsReceived + before.media.video.packetsReceived
            receivedBytes += after.endpoint.bytesReceived - before.endpoint.bytesReceived
            run.add(video: after.media.subtracting(before.media))
            if subscriber.isImpaired {
                report.loss.impairmentDrops += after.endpoint.datagramsLostToImpairment - before.endpoint.datagramsLostToImpairment
                continue
            }
            if let measured = after.latency { latency.merge(measured) }
            let lost = (after.media.audio.packetsLost + after.media.video.packetsLost) - (before.media.audio.packetsLost + before.media.video.packetsLost)
            let received = Int64(after.media.audio.packetsReceived + after.media.video.packetsReceived + after.media.video.paddingPackets)
                - Int64(before.media.audio.packetsReceived + before.media.video.packetsReceived + before.media.video.paddingPackets)
            report.loss.packetsLost += lost
            report.loss.packetsExpected += received + max(0, lost)
            if options.videoBitrate > 0, after.media.video.packetsReceived > 0 { jitters.append(after.media.video.jitterSeconds * 1000) }
        }
        report.video = run.report.video
        report.video.framesSent = framesSentDuringRun
        report.loss.lossPercent = report.loss.packetsExpected > 0 ? 100 * Double(report.loss.packetsLost) / Double(report.loss.packetsExpected) : 0
        report.forwarding.receivedPacketsPerSecond = Double(receivedPackets) / seconds
        report.forwarding.receivedMbitPerSecond = Double(receivedBytes * 8) / seconds / 1e6
        report.latency = BenchReport.Latency(
            samples: latency.count, p50Ms: latency.percentileMilliseconds(0.5), p95Ms: latency.percentileMilliseconds(0.95),
            p99Ms: latency.percentileMilliseconds(0.99), maxMs: latency.count > 0 ? Double(latency.maximumNanoseconds) / 1e6 : nil,
            meanMs: latency.meanMilliseconds)
        report.jitter = BenchReport.Jitter(meanMs: jitters.isEmpty ? 0 : jitters.reduce(0, +) / Double(jitters.count), maxMs: jitters.max() ?? 0)
        if options.scenario == .fallback {
            var fallback =
                options.measuresPublisherSide
                ? FallbackAnalysis(schedule: options.publisherSchedule, start: start).analysePublisherSide(watchedPublisher, subscribers)
                : FallbackAnalysis(schedule: options.schedule, start: start, topWidth: options.simulcast ? options.width : nil, measuredSeconds: seconds)
                    .analyse(subscribers)
            for (index, subscriber) in subscribers.enumerated() {
                fallback.subscribers[index].serverQualityAtEnd = try? await subscriber.subscriber.serverStatistics().quality
            }
            report.fallback = fallback
        }
        if options.scenario == .bandwidth, let watched = series.first(where: \.impaired) {
            let sending = Double(options.videoBitrate + options.audioBitrate) / 1000
            report.bandwidth = BandwidthAnalysis(schedule: options.schedule, sendingKbps: sending, measuredSeconds: seconds)
                .analyse(watched, feedback: options.feedback)
        }
        if options.scenario == .simulcast {
            report.simulcast = SimulcastAnalysis(options: options, start: start)
                .analyse(subscribers, series: series, before: baseline.map(\.media), after: final.map(\.media))
            report.simulcast?.layerStop = layerStop?.result
        }
        if options.scenario == .red {
            report.red = RedundantAudioAnalysis(options: options).analyse(subscribers, before: baseline.map(\.media), after: final.map(\.media))
        }
        if options.overload {
            report.overload = OverloadAnalysis.analyse(
                metricsStart: metricsStart, metricsEnd: metricsEnd, seconds: metricsSeconds, publisherPacketsSent: publisherPacketsSent,
                subscribers: subscribers, allSubscribers: report.clients.subscribers, workers: report.workers,
                refusedAtJoin: report.clients.connectFailures)
        }
        if options.scenario == .soak {
            let errors = final.reduce(UInt64(0)) { $0 + $1.media.decodeErrors + $1.endpoint.datagramsRefused }
            report.soak = BenchReport.Soak(rssSamplesMB: soakSamples, rssGrowthMB: (soakSamples.last ?? 0) - (soakSamples.first ?? 0), errors: errors + UInt64(report.clients.connectFailures))
        }
        run.report = report
        return final
    }

    private func framesSent() async -> UInt64 {
        await publishers.asyncMap { await $0.statistics().framesSent }.reduce(0, +)
    }

    /// Each worker's busy share, consumers, sends and relaying between two scrapes of the daemon's
    /// per-worker metrics (`switchyard_media_worker_*{worker="i"}`).
    static func workerShares(from start: [String: Double], to end: [String: Double], seconds: Double) -> [BenchReport.WorkerShare] {
        func value(_ metrics: [String: Double], _ name: String, _ worker: Int, _ extra: String = "") -> Double {
            metrics["switchyard_media_worker_\(name){worker=\"\(worker)\"\(extra)}"] ?? 0
        }
        let indices = end.keys.compactMap { key -> Int? in
            guard key.hasPrefix("switchyard_media_worker_consumers{worker=\""), let digits = key.split(separator: "\"").dropFirst().first else { return nil }
            return Int(digits)
        }.sorted()
        return indices.map { worker in
            func delta(_ name: String, _ extra: String = "") -> Double { max(0, value(end, name, worker, extra) - value(start, name, worker, extra)) }
            return BenchReport.WorkerShare(
                index: worker, busyPercent: 100 * delta("busy_seconds_total") / seconds, consumers: Int(value(end, "consumers", worker)),
                packetsSentPerSecond: delta("packets_sent_total") / seconds,
                relayMessagesPerSecond: delta("relay_messages_total", ",direction=\"out\"") / seconds,
                relayDrops: UInt64(delta("relay_drops_total")))
        }
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// One timeline reading of one subscriber.
private struct Sample {
    var bytes: UInt64
    var received: UInt64
    var dropped: UInt64
    var decodedWidth: Int
    var freezes: UInt64
    var at: UInt64

    static func take(_ subscribers: [TrackedSubscriber]) async -> [Sample] {
        let snapshots = await Subscriber.snapshot(subscribers.map(\.subscriber), takingLatency: false)
        let now = MonotonicClock.now()
        return snapshots.map {
            Sample(
                bytes: $0.endpoint.bytesReceived, received: $0.endpoint.datagramsReceived, dropped: $0.endpoint.datagramsLostToImpairment,
                decodedWidth: $0.media.decodedWidth, freezes: $0.media.freezeCount, at: now)
        }
    }

    func point(since previous: Sample, start: UInt64, state: String) -> BenchReport.TimelinePoint {
        let seconds = Double(at - previous.at) / 1e9
        let arrived = received - previous.received
        return BenchReport.TimelinePoint(
            seconds: Double(at - start) / 1e9,
            kbps: seconds > 0 ? Double((bytes - previous.bytes) * 8) / seconds / 1000 : 0,
            lossPercent: arrived > 0 ? 100 * Double(dropped - previous.dropped) / Double(arrived) : 0, state: state)
    }
}

extension SubscriberMediaStatistics {
    /// The counters accumulated since `earlier`.
    func subtracting(_ earlier: SubscriberMediaStatistics) -> SubscriberMediaStatistics {
        var result = self
        result.framesReceived -= earlier.framesReceived
        result.framesDecoded -= earlier.framesDecoded
        result.audioFramesDecoded -= earlier.audioFramesDecoded
        result.decodeErrors -= earlier.decodeErrors
        result.counterMismatches -= earlier.counterMismatches
        result.freezeCount -= earlier.freezeCount
        result.totalFreezeSeconds -= earlier.totalFreezeSeconds
        result.keyFrameWaits -= earlier.keyFrameWaits
        result.pictureLossIndicationsSent -= earlier.pictureLossIndicationsSent
        result.nackedSequenceNumbers -= earlier.nackedSequenceNumbers
        result.audioFramesRecovered -= earlier.audioFramesRecovered
        result.audioFramesConcealed -= earlier.audioFramesConcealed
        return result
    }
}

extension Array where Element: Sendable {
    func asyncMap<Result>(_ transform: (Element) async -> Result) async -> [Result] {
        var results: [Result] = []
        results.reserveCapacity(count)
        for element in self { results.append(await transform(element)) }
        return results
    }
}
