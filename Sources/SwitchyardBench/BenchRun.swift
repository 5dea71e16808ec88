import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Logging
import SRTP
import Signaling
import SignalingProtocol
import SwitchyardClient
import Synchronization

/// One run of one scenario: starts (or finds) the daemon, brings the simulated clients in, measures,
/// and tears everything down.
public final class BenchRun: @unchecked Sendable {
    let options: BenchOptions
    let url: String
    let metrics: MetricsScraper?
    let serverPID: Int32?
    /// The media threads; clients are spread over them in turn.
    let loops: [MediaLoop]
    let tokens: TokenAuthority
    let media: EncodedMedia
    let sessionPrefix = "bench-\(UInt32.random(in: 0...UInt32.max))"
    let daemonExecutable: URL
    /// Webhooks: the receiver the daemon delivers to, and the secret its endpoint signs with.
    let webhookReceiver: WebhookReceiver?
    let webhookSecret: String
    /// `--network kernel`: the namespaces this (child) bench runs in, whose veth it shapes.
    let kernelNetwork: KernelNetwork?
    private let daemon: LocalDaemon?
    /// Daemons a scenario started beside the first (webhooks: one without webhooks), stopped at the
    /// end as the first is.
    private let otherDaemons = Mutex<[LocalDaemon]>([])
    private let clientOptions: [SessionOptions]
    private let nextLoop = Mutex(0)
    var report: BenchReport
    private let sessionList = Mutex<[Session]>([])
    private let progress: @Sendable (String) -> Void

    /// - Parameters:
    ///   - daemonExecutable: the `switchyard` binary to start when `options.serverURL` is nil.
    ///   - webhookSecret: webhooks: the secret the daemon's endpoint signs with; needed with
    ///     `--server`, a random one for a local daemon otherwise. Kept out of the options, which the
    ///     report copies.
    ///   - kernelNetwork: with `--network kernel`, the network the parent bench made and runs this
    ///     one inside (`KernelNetwork.fromEnvironment()`).
    ///   - progress: where to say what the run is doing (stderr for the command).
    public init(
        options: BenchOptions, daemonExecutable: URL, webhookSecret: String? = nil, kernelNetwork: KernelNetwork? = nil,
        progress: @escaping @Sendable (String) -> Void
    ) async throws(BenchError) {
        if let problem = options.problem { throw .invalidOptions(problem) }
        if (options.network == .kernel) != (kernelNetwork != nil) {
            throw .invalidOptions("--network kernel runs inside the namespaces switchyard-bench makes for it (and only then)")
        }
        self.kernelNetwork = kernelNetwork
        guard let profile = SRTPProfile(rawValue: options.srtpProfile) else {
            throw .invalidOptions("--srtp-profile \(options.srtpProfile) is not one of \(SRTPProfile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if options.scenario == .webhooks, options.serverURL != nil, webhookSecret == nil {
            throw .invalidOptions("--webhook-secret must be the secret of the daemon's endpoint for this bench's receiver (with --server)")
        }
        if let webhookSecret, webhookSecret.utf8.count < 32 {
            throw .invalidOptions("--webhook-secret is \(webhookSecret.utf8.count) bytes; the daemon takes at least 32")
        }
        self.options = options
        self.progress = progress
        self.daemonExecutable = daemonExecutable
        self.webhookSecret = webhookSecret ?? (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        if options.scenario == .webhooks {
            let receiver = try await WebhookReceiver.start(
                host: options.receiverHost, port: options.receiverPort, secret: self.webhookSecret, mode: options.receiver)
            progress("webhook receiver listening at \(receiver.url)")
            webhookReceiver = receiver
        } else {
            webhookReceiver = nil
        }
        progress("encoding \(options.mediaSettings.loopSeconds) s of media once (\(options.width)x\(options.height)@\(options.frameRate), \(options.videoBitrate) bps VP8, \(options.audioBitrate) bps Opus)")
        do {
            media = try EncodedMedia(settings: options.mediaSettings)
        } catch {
            await webhookReceiver?.stop()
            throw .setupFailed("\(error)")
        }
        if let serverURL = options.serverURL {
            url = serverURL
            daemon = nil
            serverPID = options.serverPID
            metrics = URL(string: serverURL).flatMap { address in
                let secure = address.scheme == "wss"
                return address.host.map { MetricsScraper(url: "\(secure ? "https" : "http")://\($0):\(address.port ?? (secure ? 443 : 80))/metrics") }
            }
        } else {
            let transports =
                switch options.scenario {
                case .room: options.clients * options.clients
                // Three rooms of participants who each publish once and subscribe to all the others.
                case .speakers: 3 * options.clients * options.clients
                // Its viewers are signaling only.
                case .broadcast: 16
                // The 1 → N session, the many publishers, and the 4 and 9 of the composed sessions.
                case .archive: options.clients + options.archiveStreams + 32
                default: options.clients + 2
                }
            progress("starting \(daemonExecutable.path)")
            let daemon: LocalDaemon
            let secret = self.webhookSecret
            do {
                daemon = try await LocalDaemon(
                    executable: daemonExecutable, options: options, transports: transports,
                    webhookEndpoint: webhookReceiver.map {
                        LocalDaemon.WebhookEndpoint(url: $0.url, secret: secret, maxQueuedEvents: options.webhookQueueBound)
                    }, network: kernelNetwork)
            } catch {
                await webhookReceiver?.stop()
                throw error
            }
            self.daemon = daemon
            url = daemon.url
            serverPID = daemon.pid
            metrics = MetricsScraper(url: daemon.metricsURL)
        }
        do {
            loops = try (0..<options.mediaThreads).map { index throws(MediaClientError) in try MediaLoop(name: "bench-media-\(index)") }
        } catch {
            await daemon?.stop()
            await webhookReceiver?.stop()
            throw .setupFailed("\(error)")
        }
        tokens = await TokenAuthority(apiKey: options.apiKey, apiSecret: options.apiSecret)
        var logger = Logger(label: "switchyard-bench")
        logger.logLevel = .critical
        let mediaAddress = kernelNetwork?.clientAddress ?? "127.0.0.1"
        clientOptions = loops.map { SessionOptions(mediaLoop: $0, mediaAddress: mediaAddress, srtpProfile: profile, requestTimeout: .seconds(20), reconnects: false, logger: logger) }
        report = BenchReport(
            scenario: options.scenario, startedAt: ISO8601DateFormatter().string(from: Date()), options: options,
            daemon: BenchReport.Daemon(local: daemon != nil, url: url, pid: serverPID))
    }

    /// The process ids of the daemons this run started and has not stopped, so an interrupted
    /// bench can stop them.
    public var localDaemonPIDs: [Int32] {
        ([daemon].compactMap { $0 } + otherDaemons.withLock { $0 }).filter(\.process.isRunning).map(\.pid)
    }

    /// Starts another local daemon like the first, beside it, with `webhookEndpoint` or no webhooks.
    func startAnotherDaemon(webhookEndpoint: LocalDaemon.WebhookEndpoint?) async throws(BenchError) -> LocalDaemon {
        let daemon = try await LocalDaemon(
            executable: daemonExecutable, options: options, transports: options.clients + 2, webhookEndpoint: webhookEndpoint)
        otherDaemons.withLock { $0.append(daemon) }
        return daemon
    }

    /// Runs the scenario and returns its report; always tears down.
    public func run() async -> BenchReport {
        if let metrics { report.daemon.srtpBuild = await Self.srtpBuild(metrics) }
        do {
            switch options.scenario {
            case .fanout, .audioOnly, .soak, .fallback, .bandwidth, .simulcast, .red: try await runFanout()
            case .room: try await runRoom()
            case .join: try await runJoins()
            case .reconnect: try await runReconnects()
            case .cluster: try await runCluster()
            case .speakers: try await runSpeakers()
            case .webhooks: try await runWebhooks()
            case .broadcast: try await runBroadcast()
            case .archive: try await runArchive()
            case .chaos: try await runChaos()
            }
        } catch {
            report.errors.append("\(error)")
        }
        let sessions = sessionList.withLock { $0 }
        progress("disconnecting \(sessions.count) clients")
        await forEachConcurrently(sessions) { await $0.disconnect() }
        for loop in loops { await loop.stop() }
        await daemon?.stop()
        for other in otherDaemons.withLock({ $0 }) { await other.stop() }
        await webhookReceiver?.stop()
        report.targets = TargetEvaluator.targets(for: report)
        return report
    }

    private static func srtpBuild(_ metrics: MetricsScraper) async -> String? {
        await metrics.scrape().keys.first { $0.hasPrefix("switchyard_build_info") }.flatMap { line in
            line.range(of: "srtp_build=\"").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
        }
    }

    // MARK: Clients

    /// A client of `sessionId`, through `entry` (default: the daemon's URL); one that `reconnects`
    /// comes back by itself after a drop (trying for `reconnectTimeout`, the client's default when
    /// nil); one with `speakerEvents` hears who speaks.
    func connect(
        session sessionId: String, role: Role, reconnects: Bool = false, through entry: String? = nil, alternatives: [String] = [],
        speakerEvents: Bool = false, suppressConnectionEvents: Bool = false, reconnectTimeout: Duration? = nil
    ) async throws -> Session {
        let token = try await tokens.mintClientToken(sessionId: sessionId, role: role, lifetime: 3600, now: Date())
        var options = nextLoop.withLock { next in
            defer { next = (next + 1) % clientOptions.count }
            return clientOptions[next]
        }
        options.reconnects = reconnects
        options.alternativeURLs = alternatives
        if let reconnectTimeout { options.reconnectTimeout = reconnectTimeout }
        let session = try await Session.connect(
            url: entry ?? url, sessionId: sessionId, token: token, options: options, subscribeToSpeakerEvents: speakerEvents,
            suppressConnectionEvents: suppressConnectionEvents)
        sessionList.withLock { $0.append(session) }
        return session
    }

    /// Runs `body` for 0..<count, at most `connectConcurrency` at a time, keeping the successes in
    /// order and counting the failures in the report.
    func concurrently<Value: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> Value) async -> [Value] {
        var results: [Int: Value] = [:]
        var failures: [String] = []
        await withTaskGroup(of: (Int, Result<Value, any Error>).self) { group in
            var next = 0
            func launch() {
                let index = next
                next += 1
                group.addTask {
                    do { return (index, .success(try await body(index))) } catch { return (index, .failure(error)) }
                }
            }
            while next < min(count, options.connectConcurrency) { launch() }
            while let (index, result) = await group.next() {
                switch result {
                case .success(let value): results[index] = value
                case .failure(let error): failures.append("\(error)")
                }
                if next < count { launch() }
            }
        }
        report.clients.connectFailures += failures.count
        report.errors += Array(failures.prefix(5))
        return (0..<count).compactMap { results[$0] }
    }

    private func forEachConcurrently<Element: Sendable>(_ elements: [Element], _ body: @escaping @Sendable (Element) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            var iterator = elements.makeIterator()
            for _ in 0..<options.connectConcurrency {
                guard let element = iterator.next() else { break }
                group.addTask { await body(element) }
            }
            while await group.next() != nil {
                guard let element = iterator.next() else { continue }
                group.addTask { await body(element) }
            }
        }
    }

    // MARK: Scenarios

    private func runFanout() async throws {
        let sessionId = "\(sessionPrefix)-fanout"
        progress("publishing")
        let publisherSession = try await connect(session: sessionId, role: .publisher)
        let publisherSide = options.scenario == .fallback && options.measuresPublisherSide
        // The bandwidth scenario watches the estimate alone: video stays on whatever the score says.
        // An overload run's silent audience reports nothing received: its policy must not judge that.
        let subscriberFallback: Bool? = publisherSide || options.scenario == .bandwidth || options.overload ? false : nil
        if options.overload, serverPID != nil { keepOffTheDaemonsCore() }
        let publisher = try await publisherSession.publish(
            PublisherSettings(
                name: "bench", media: media, subscriberAudioFallbackEnabled: subscriberFallback,
                publisherAudioFallbackEnabled: publisherSide ? true : nil,
                redundantAudioFrames: options.scenario == .red && !options.redundancyFromRouter ? options.redundantAudioFrames : 0))
        report.clients.publishers = 1
        // The overload run's offer arrives all at once, after the joins, as when a publisher turns
        // its media on in a full session; the joins meet an idle worker.
        if options.overload {
            try await publisher.setPublishVideo(false)
            try await publisher.setPublishAudio(false)
        }
        progress("connecting \(options.clients) subscribers (\(options.connectConcurrency) at a time)")
        let options = self.options
        let connected: [(Subscriber, Int)] = await concurrently(options.clients) { [self] index in
            let session = try await connect(session: sessionId, role: .subscriber)
            // Simulcast subscribers all decode: the width decoded is the layer received. Red ones all
            // decode their audio, every other one taking RED.
            let subscriber = try await session.subscribe(
                to: publisher.streamId,
                settings: SubscriberSettings(
                    decodes: options.scenario == .simulcast || options.scenario == .red || index < options.decoders,
                    feedback: options.subscriberFeedback, preferredResolution: options.preference(ofSubscriber: index),
                    receivesRedundantAudio: options.scenario == .red && index % 2 == 0,
                    readsMedia: !options.overload || index < options.sampledSubscribers))
            return (subscriber, index)
        }
        let tracked = connected.map { subscriber, index in
            TrackedSubscriber(
                label: "s\(index + 1)", subscriber: subscriber, isImpaired: options.impairsSubscribers && index < options.impairedSubscribers,
                preference: options.preference(ofSubscriber: index))
        }
        report.clients.subscribers = tracked.count
        var measured = tracked
        if options.overload {
            progress("turning the publisher's media on")
            try await publisher.setPublishAudio(true)
            try await publisher.setPublishVideo(true)
            measured = zip(tracked, connected).filter { $0.1.1 < options.sampledSubscribers }.map(\.0)
        }
        try await Measurement(run: self, publishers: [publisher], subscribers: measured, watchedPublisher: TrackedPublisher(publisher: publisher))
            .measure()
        if options.scenario == .soak, options.floodSeconds > 0 { await runFlood() }
    }

    /// Moves every thread of the bench off the core a local overload run's daemon is pinned to
    /// (`LocalDaemon.pinning`); threads made later inherit it.
    private func keepOffTheDaemonsCore() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores >= 2 else { return }
        let taskset = Process()
        taskset.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        taskset.arguments = ["-a", "-p", "-c", "1-\(cores - 1)", "\(getpid())"]
        taskset.standardOutput = FileHandle.nullDevice
        do {
            try taskset.run()
            taskset.waitUntilExit()
        } catch {
            report.errors.append("taskset could not keep the bench off the daemon's core: \(error)")
        }
    }

    private func runRoom() async throws {
        let sessionId = "\(sessionPrefix)-room"
        progress("\(options.clients) participants publishing")
        let media = self.media
        let participants: [(Session, Publisher)] = await concurrently(options.clients) { [self] index in
            let session = try await connect(session: sessionId, role: .publisher)
            return (session, try await session.publish(PublisherSettings(name: "p\(index + 1)", media: media)))
        }
        report.clients.publishers = participants.count
        progress("each subscribing to the \(participants.count - 1) others")
        let pairs = participants.indices.flatMap { viewer in participants.indices.filter { $0 != viewer }.map { (viewer, $0) } }
        let decoders = options.decoders
        let feedback = options.subscriberFeedback
        let tracked: [TrackedSubscriber] = await concurrently(pairs.count) { index in
            let (viewer, source) = pairs[index]
            let subscriber = try await participants[viewer].0.subscribe(
                to: participants[source].1.streamId, settings: SubscriberSettings(decodes: index < decoders, feedback: feedback))
            return TrackedSubscriber(label: "p\(viewer + 1)←p\(source + 1)", subscriber: subscriber, isImpaired: false)
        }
        report.clients.subscribers = tracked.count
        try await Measurement(run: self, publishers: participants.map(\.1), subscribers: tracked).measure()
    }

    /// `POST /v1/sessions` with `body` to the daemon the bench runs against.
    func createSession(_ body: String) async throws {
        let (status, answer) = try await rest("POST", "/v1/sessions", body: body)
        guard status == 201 else {
            throw BenchError.setupFailed("POST /v1/sessions \(body) answered \(status): \(String(decoding: answer, as: UTF8.self))")
        }
    }

    /// One REST request to the daemon the bench runs against, with a fresh REST token: its status
    /// and body.
    func rest(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, body: Data) {
        guard let base = ClusterNodeAddress.httpBase(ofWebSocket: url), let address = URL(string: base + path) else {
            throw BenchError.setupFailed("no HTTP address for \(url)")
        }
        var request = URLRequest(url: address, timeoutInterval: 30)
        request.httpMethod = method
        request.setValue("Bearer \(try await tokens.mintRESTToken(lifetime: 300, now: Date()))", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let (answer, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, answer)
    }

    /// Forgets a client that left, so the teardown does not disconnect it again.
    func forget(_ session: Session) {
        forget([session])
    }

    /// Forgets clients that left, in one pass over the list: a crowd of 15,000 forgotten one by one
    /// took the broadcast bench seconds of its own CPU inside the leave it times.
    func forget(_ sessions: some Sequence<Session>) {
        let left = Set(sessions.map(ObjectIdentifier.init))
        sessionList.withLock { $0.removeAll { left.contains(ObjectIdentifier($0)) } }
    }

    private func runJoins() async throws {
        let sessionId = "\(sessionPrefix)-join"
        let publisherSession = try await connect(session: sessionId, role: .publisher)
        let publisher = try await publisherSession.publish(PublisherSettings(name: "bench", media: media))
        report.clients.publishers = 1
        try await Task.sleep(for: .seconds(options.warmupSeconds))
        var join = BenchReport.Join()
        let start = ProcessUsageSample.current(at: MonotonicClock.now())
        let serverStart = serverPID.flatMap { ProcessUsageSample.read(pid: $0, at: MonotonicClock.now()) }
        for index in 0..<options.joins {
            progress("join \(index + 1) of \(options.joins)")
            let began = MonotonicClock.now()
            do {
                let session = try await connect(session: sessionId, role: .subscriber)
                let subscriber = try await session.subscribe(to: publisher.streamId, settings: SubscriberSettings(decodes: true))
                var statistics = await subscriber.statistics()
                let deadline = began + 5_000_000_000
                while statistics.framesDecoded == 0, MonotonicClock.now() < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                    statistics = await subscriber.statistics()
                }
                if statistics.framesDecoded > 0, let first = statistics.firstFrameAt {
                    join.samplesMs.append(Double(first - began) / 1e6)
                } else {
                    join.failures += 1
                }
                add(video: statistics)
                await session.disconnect()
                forget(session)
            } catch {
                join.failures += 1
                report.errors.append("join \(index + 1): \(error)")
            }
            try await Task.sleep(for: .seconds(options.joinIntervalSeconds))
        }
        join.count = join.samplesMs.count
        let sorted = join.samplesMs.sorted()
        join.p50Ms = Measurement.percentile(sorted, 0.5)
        join.p95Ms = Measurement.percentile(sorted, 0.95)
        join.maxMs = sorted.last
        report.join = join
        let end = ProcessUsageSample.current(at: MonotonicClock.now())
        report.measuredSeconds = Double(end.at - start.at) / 1e9
        report.bench = ProcessUsageSample.usage(from: start, to: end, peakMB: end.rssMB)
        if let serverStart, let pid = serverPID, let serverEnd = ProcessUsageSample.read(pid: pid, at: MonotonicClock.now()) {
            report.server = ProcessUsageSample.usage(from: serverStart, to: serverEnd, peakMB: serverEnd.rssMB)
        }
    }

    func add(video statistics: SubscriberMediaStatistics) {
        report.video.framesReceived += statistics.framesReceived
        report.video.framesDecoded += statistics.framesDecoded
        report.video.audioFramesDecoded += statistics.audioFramesDecoded
        report.video.decodeErrors += statistics.decodeErrors
        report.video.counterMismatches += statistics.counterMismatches
        report.video.freezes += statistics.freezeCount
        report.video.freezeSeconds += statistics.totalFreezeSeconds
        report.video.keyFrameWaits += statistics.keyFrameWaits
        report.video.pictureLossIndications += statistics.pictureLossIndicationsSent
        report.video.nackedPackets += statistics.nackedSequenceNumbers
    }

    func say(_ message: String) {
        progress(message)
    }
}
