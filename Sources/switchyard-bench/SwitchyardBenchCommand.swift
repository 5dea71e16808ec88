import ArgumentParser
import CSystemShims
import Foundation
import SignalingProtocol
import SwitchyardBench
import SwitchyardClient

/// `switchyard-bench`: load and fallback scenarios against a Switchyard daemon (docs/benchmark.md).
@main
struct SwitchyardBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchyard-bench",
        abstract: "Load-test a Switchyard daemon with simulated clients sending real Opus and VP8.",
        discussion: "Without --server it starts a local daemon (the switchyard binary beside this one, or --daemon) and stops it afterwards.")

    @Argument(help: "fanout, room, audio-only, join, fallback, soak, reconnect, bandwidth, simulcast, speakers, cluster, webhooks or chaos.")
    var scenario: String

    @Option(help: "The daemon's WebSocket URL (ws://host:port/v1/ws); omit to start a local daemon. Cluster (and webhooks against a cluster): once per node.")
    var server: [String] = []
    @Option(help: "Cluster: the process id of the node at the first --server, killed with SIGKILL once every session runs.")
    var killPid: Int32?
    @Option(help: "Chaos: the process id of each node, once per --server and in the same order.")
    var nodePid: [Int32] = []
    @Option(help: "Chaos: a shell command that stops PostgreSQL (with --postgres-start; omit both for no database fault).")
    var postgresStop: String?
    @Option(help: "Chaos: a shell command that starts PostgreSQL again.")
    var postgresStart: String?
    @Option(help: "Chaos: the nodes' cluster.nodeTimeoutSeconds (default 8).")
    var nodeTimeout: Double?
    @Option(help: "Chaos: seconds between one fault's recovery and the next fault (default 4).")
    var faultSpacing: Double?
    @Option(help: "Chaos: the clients' network outages in turn, in seconds, e.g. \"3,12,1,30,6\".")
    var outages: String?
    @Option(help: "Chaos: aiortc subscribers, one in each of the first sessions (default 0; needs --aiortc-peer).")
    var webrtcClients: Int?
    @Option(help: "Chaos: the aiortc peer script the WebRTC clients run (Tests/Interop/aiortc_peer.py).")
    var aiortcPeer: String?
    @Option(help: "Chaos: a cap fault's downlink cap in kbit/s, applied by the kernel on --cap-interface (default 0: no cap fault; needs root).")
    var capKbps: Int?
    @Option(help: "Chaos: how long a cap fault lasts, in seconds (default 12).")
    var capSeconds: Double?
    @Option(help: "Chaos: the interface the clients' media arrives by, where caps are applied (default lo: bench-chaos.sh runs in a namespace of its own with CHAOS_CAP_KBPS).")
    var capInterface: String?
    @Option(help: "Cluster: REST signals per session through each route (the session's node, another node).")
    var signalsPerSession: Int?
    @Option(help: "Cluster: subscribers of the 1 → N room through the first node (0: none); cascaded past the nodes' cluster.subscribersBeforeCascading.")
    var cascadeSubscribers: Int?
    @Option(help: "The process id of a running local daemon, to read its CPU and memory from /proc.")
    var serverPid: Int32?
    @Option(help: "The switchyard executable to start when --server is omitted.")
    var daemon: String?
    @Option(help: "API key the daemon's tokens are signed for.")
    var apiKey: String?
    @Option(help: "API secret (at least 32 bytes).")
    var apiSecret: String?
    @Option(help: "Subscribers (fanout, audio-only, fallback, soak; webhooks: per session) or participants (room).")
    var clients: Int?
    @Option(help: "Seconds of measurement (speakers: of each CPU window).")
    var duration: Double?
    @Option(help: "Seconds between everyone joining and the measurement.")
    var warmup: Double?
    @Option(help: "VP8 bits per second (0: no video).")
    var videoBitrate: Int?
    @Option(help: "Opus bits per second.")
    var audioBitrate: Int?
    @Option(help: "Video width.")
    var width: Int?
    @Option(help: "Video height.")
    var height: Int?
    @Option(help: "Video frames per second.")
    var fps: Int?
    @Option(help: "Subscribers that decode every frame with libvpx and libopus.")
    var decoders: Int?
    @Option(help: "Fallback: subscribers whose downlink follows --schedule; the rest stay clean.")
    var impaired: Int?
    @Option(help: "Fallback: impairment schedule, e.g. \"3s:loss=0.3;11s:clean\" (docs/benchmark.md).")
    var schedule: String?
    @Flag(help: "Fallback: the publisher sends three simulcast layers, and the default schedule is 30 s of 30 % loss then 30 s clean, five times (5 minutes).")
    var simulcast = false
    @Option(help: "Red: earlier Opus frames each audio packet repeats, 1 or 2 (default 1).")
    var redFrames: Int?
    @Flag(help: "Red: the publisher sends plain Opus and the router adds the redundancy (its media.redundantAudio; --red-frames does not apply).")
    var redFromRouter = false
    @Flag(help: "Fanout: the publisher's video starts once every subscriber has joined, offering one worker about twice what it forwards (defaults: 1,500 subscribers, 720p at 4 Mbps, --workers 1); the report shows overload shedding's work and checks p99 added latency ≤ 200 ms.")
    var overload = false
    @Option(help: "Fanout --overload: subscribers that read their media and are measured (default 200); the rest never read.")
    var sampled: Int?
    @Option(help: "Fallback, publisher side: the publisher's uplink schedule, e.g. \"3s:loss=0.3;11s:clean\".")
    var publisherSchedule: String?
    @Option(help: "Fallback, bandwidth, simulcast: where the schedules apply, client (each client's socket) or kernel (as root: daemon and clients in network namespaces, a real queue per impaired client).")
    var network: String?
    @Option(help: "Join: number of joins.")
    var joins: Int?
    @Option(help: "Join: seconds between joins.")
    var joinInterval: Double?
    @Option(help: "Reconnect: outage durations in seconds, one client each, e.g. \"1,5,30\".")
    var drops: String?
    @Option(help: "Reconnect: signals sent each way during each outage.")
    var signalsPerDrop: Int?
    @Option(help: "Local daemon: media workers (0: one per core; speakers: 2).")
    var workers: Int?
    @Option(help: "Local daemon: subscribers of one track past which new subscribers go to the least-loaded worker (media.spreadThreshold; 0: never).")
    var spreadThreshold: Int?
    @Option(help: "Local daemon: how media workers wait, dispatch-wait, dispatch or epoll (media.workerLoop; speakers: epoll).")
    var workerLoop: String?
    @Option(help: "SRTP profile the clients offer.")
    var srtpProfile: String?
    @Option(help: "Simultaneous connection attempts while clients join.")
    var connectConcurrency: Int?
    @Option(help: "Threads running the clients' media (epoll loops); one serves about 1000 subscribers.")
    var mediaThreads: Int?
    @Option(help: "What subscribers send about their downlinks: remb or transport-cc.")
    var feedback: String?
    @Option(help: "Simulcast: each subscriber's preferred resolution in turn, e.g. \"best,320x180,640x360\" (best: none).")
    var preferences: String?
    @Option(help: "Simulcast: stop the publisher's top layer at A s for B s, as \"A+B\" (default 24+3), or \"none\".")
    var topLayerStop: String?
    @Option(help: "Soak: WebSockets opened and left idle (never sending connect) at the start of the flood.")
    var floodIdle: Int?
    @Option(help: "Soak: clients churning through the flood (connect, three signals, leave or drop).")
    var floodClients: Int?
    @Option(help: "Soak: seconds of churn after the measurement, then 30 s of reading the daemon's memory (0: no flood).")
    var floodSeconds: Double?
    @Option(help: "Speakers: scripted talker starts in each room.")
    var turns: Int?
    @Option(help: "Speakers: seconds each talker talks.")
    var turnSeconds: Double?
    @Option(help: "Speakers: seconds of only background noise between two talkers.")
    var turnGap: Double?
    @Option(help: "Speakers: seconds one participant talks on while the others make background noise (false switches).")
    var steadySeconds: Double?
    @Option(help: "Speakers: audio.forwardLoudest of the room whose downlink is compared with one that forwards everything.")
    var forwardLoudest: Int?
    @Option(help: "Archive: publishers in the session recorded individually, whose writer must drop nothing.")
    var archiveStreams: Int?
    @Option(help: "Broadcast: viewers who, once the crowd is in, also receive and decode the publisher's media for --duration (0).")
    var mediaViewers: Int?
    @Option(help: "Broadcast: publishers (1-10, default 1), each sending audio and three simulcast layers once the crowd is in.")
    var publishers: Int?
    @Option(help: "Webhooks: 1 → N sessions churning at once.")
    var sessions: Int?
    @Option(help: "Webhooks: subscriber joins per second in each session (each subscriber is back every --clients / this seconds).")
    var churnRate: Double?
    @Option(help: "Webhooks: the address the bench's webhook receiver listens on (0.0.0.0 for a daemon on another machine).")
    var receiverHost: String?
    @Option(help: "Webhooks: the receiver's port (0: a free one); with --server, the port of the daemon's endpoint http://HOST:PORT/webhooks.")
    var receiverPort: Int?
    @Option(help: "Webhooks: the secret the daemon's endpoint for the receiver signs with (needed with --server; random for a local daemon).")
    var webhookSecret: String?
    @Option(help: "Webhooks: normal (the receiver answers every POST at once) or silent (it holds every POST unanswered until the run ends).")
    var receiver: String?
    @Option(help: "Webhooks: the local daemon's webhooks.maxQueuedEvents (default: the daemon's, 200 with --receiver silent); with --server, the daemon's own.")
    var maxQueuedEvents: Int?
    @Option(help: "Write the report as JSON to this file.")
    var json: String?
    @Option(help: "Draw the timeline as SVG to this file.")
    var svg: String?

    func run() async throws {
        guard let scenario = BenchScenario(rawValue: scenario) else {
            throw ValidationError("unknown scenario \"\(scenario)\"; use one of \(BenchScenario.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var options = BenchOptions(scenario: scenario)
        if simulcast { options.publishSimulcast() }
        options.serverURL = server.first
        options.clusterURLs = server
        options.killPID = killPid
        options.nodePIDs = nodePid
        options.postgresStopCommand = postgresStop
        options.postgresStartCommand = postgresStart
        if let nodeTimeout { options.nodeTimeoutSeconds = nodeTimeout }
        if let faultSpacing { options.faultSpacingSeconds = faultSpacing }
        if let outages {
            let seconds = outages.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !seconds.isEmpty, seconds.allSatisfy({ $0 != nil }) else {
                throw ValidationError("--outages: \"\(outages)\" is not a comma-separated list of seconds, e.g. 3,12,1,30,6")
            }
            options.outageSeconds = seconds.compactMap { $0 }
        }
        if let webrtcClients { options.webrtcClients = webrtcClients }
        options.aiortcPeer = aiortcPeer
        if let capKbps { options.capKbps = capKbps }
        if let capSeconds { options.capSeconds = capSeconds }
        if let capInterface { options.capInterface = capInterface }
        if let signalsPerSession { options.signalsPerSession = signalsPerSession }
        if let cascadeSubscribers { options.cascadeSubscribers = cascadeSubscribers }
        options.serverPID = serverPid
        if let apiKey { options.apiKey = apiKey }
        if let apiSecret { options.apiSecret = apiSecret }
        if let clients { options.clients = clients }
        if let duration { options.durationSeconds = duration }
        if let warmup { options.warmupSeconds = warmup }
        if let videoBitrate { options.videoBitrate = videoBitrate }
        if let audioBitrate { options.audioBitrate = audioBitrate }
        if let width { options.width = width }
        if let height { options.height = height }
        if let fps { options.frameRate = fps }
        if let decoders { options.decoders = decoders }
        if let impaired { options.impairedSubscribers = impaired } else if options.scenario == .red { options.impairedSubscribers = options.clients }
        if let redFrames { options.redundantAudioFrames = redFrames }
        options.redundancyFromRouter = redFromRouter
        if overload {
            guard options.scenario == .fanout else { throw ValidationError("--overload is for the fanout scenario") }
            options.overload = true
            // 1,500 subscribers of 720p at 4 Mbps offer one worker of this kind of machine about twice
            // what it forwards (docs/capacity.md#overload).
            if videoBitrate == nil { options.videoBitrate = 4_000_000 }
            if width == nil, height == nil {
                options.width = 1280
                options.height = 720
            }
            if workers == nil { options.workers = 1 }
            if clients == nil { options.clients = 1500 }
            if let sampled { options.sampledSubscribers = sampled }
        }
        if let schedule {
            do {
                options.schedule = try ImpairmentSchedule(parsing: schedule)
            } catch {
                throw ValidationError("--schedule: \(error)")
            }
        }
        if let publisherSchedule {
            do {
                options.publisherSchedule = try ImpairmentSchedule(parsing: publisherSchedule)
            } catch {
                throw ValidationError("--publisher-schedule: \(error)")
            }
            if impaired == nil { options.impairedSubscribers = 0 }
        }
        if let joins { options.joins = joins }
        if let joinInterval { options.joinIntervalSeconds = joinInterval }
        if let drops {
            let seconds = drops.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard !seconds.isEmpty, seconds.allSatisfy({ $0 != nil }) else {
                throw ValidationError("--drops: \"\(drops)\" is not a comma-separated list of seconds, e.g. 1,5,30")
            }
            options.dropSeconds = seconds.compactMap { $0 }
        }
        if let signalsPerDrop { options.signalsPerDrop = signalsPerDrop }
        if let workers { options.workers = workers }
        if let spreadThreshold { options.spreadThreshold = spreadThreshold }
        if let workerLoop { options.workerLoop = workerLoop }
        if let srtpProfile { options.srtpProfile = srtpProfile }
        if let connectConcurrency { options.connectConcurrency = connectConcurrency }
        if let mediaThreads { options.mediaThreads = mediaThreads }
        if let feedback { options.feedback = feedback }
        if let floodIdle { options.floodIdleSockets = floodIdle }
        if let floodClients { options.floodClients = floodClients }
        if let floodSeconds { options.floodSeconds = floodSeconds }
        if let turns { options.turns = turns }
        if let turnSeconds { options.turnSeconds = turnSeconds }
        if let turnGap { options.turnGapSeconds = turnGap }
        if let steadySeconds { options.steadySeconds = steadySeconds }
        if let forwardLoudest { options.forwardLoudest = forwardLoudest }
        if let sessions { options.sessions = sessions }
        if let churnRate { options.churnRate = churnRate }
        if let archiveStreams { options.archiveStreams = archiveStreams }
        if let mediaViewers { options.mediaViewers = mediaViewers }
        if let publishers { options.broadcastPublishers = publishers }
        if let receiverHost { options.receiverHost = receiverHost }
        if let receiverPort { options.receiverPort = receiverPort }
        if let receiver {
            guard let mode = WebhookReceiverMode(rawValue: receiver) else {
                throw ValidationError("--receiver must be one of \(WebhookReceiverMode.allCases.map(\.rawValue).joined(separator: ", ")), not \(receiver)")
            }
            options.receiver = mode
        }
        if let maxQueuedEvents { options.maxQueuedEvents = maxQueuedEvents }
        if let preferences {
            options.preferences = try preferences.split(separator: ",").map { item throws(ValidationError) -> VideoDimensions? in
                let text = item.trimmingCharacters(in: .whitespaces)
                if text == "best" { return nil }
                let sides = text.split(separator: "x").compactMap { Int($0) }
                guard sides.count == 2, sides.allSatisfy({ (1...16384).contains($0) }) else {
                    throw ValidationError("--preferences: \"\(text)\" is neither best nor WIDTHxHEIGHT (e.g. 640x360)")
                }
                return VideoDimensions(width: sides[0], height: sides[1])
            }
        }
        if topLayerStop == nil, let at = options.topLayerStopAtSeconds, at + options.topLayerStopSeconds > options.durationSeconds {
            // The default stop is for the default run: a shorter run leaves it out rather than fail.
            options.topLayerStopAtSeconds = nil
        } else if let topLayerStop {
            if topLayerStop == "none" {
                options.topLayerStopAtSeconds = nil
            } else {
                let parts = topLayerStop.split(separator: "+").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 2, let at = parts[0], let length = parts[1], at >= 0, length > 0 else {
                    throw ValidationError("--top-layer-stop: \"\(topLayerStop)\" is neither none nor START+SECONDS (e.g. 24+3)")
                }
                options.topLayerStopAtSeconds = at
                options.topLayerStopSeconds = length
            }
        }
        if let network {
            guard let kind = BenchNetwork(rawValue: network) else {
                throw ValidationError("--network must be one of \(BenchNetwork.allCases.map(\.rawValue).joined(separator: ", ")), not \(network)")
            }
            options.network = kind
        }
        if options.network == .kernel, apiKey == nil, apiSecret == nil {
            // The daemon listens on the namespace's veth address, where the development credentials
            // would have it warn that anyone can mint tokens; this run's own are as good.
            options.apiKey = "switchyard-bench"
            options.apiSecret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }
        if let problem = options.problem { throw ValidationError(problem) }
        let kernelNetwork = try KernelNetwork.fromEnvironment()
        if options.network == .kernel, kernelNetwork == nil {
            // This process makes the namespaces, runs the bench again inside them and removes them.
            let status = try KernelNetwork.runBench(arguments: Array(CommandLine.arguments.dropFirst())) { message in
                FileHandle.standardError.write(Data("switchyard-bench: \(message)\n".utf8))
            }
            if status != 0 { throw ExitCode(status) }
            return
        }

        // A socket per simulated client, UDP and TCP: a thousand clients need more than the usual 1024.
        _ = switchyard_raise_open_file_limit()
        let executable = daemon.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("switchyard")
        let run = try await BenchRun(options: options, daemonExecutable: executable, webhookSecret: webhookSecret, kernelNetwork: kernelNetwork) { message in
            FileHandle.standardError.write(Data("switchyard-bench: \(message)\n".utf8))
        }
        let interruption = stopDaemonsOnInterrupt(of: run)
        let report = await run.run()
        interruption.forEach { $0.cancel() }
        print(ReportTable.render(report))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
        if let svg {
            try TimelineSVG.render(report).write(toFile: svg, atomically: true, encoding: .utf8)
        }
        if report.clients.subscribers == 0 && report.join == nil { throw ExitCode(1) }
    }

    /// Ctrl-C or SIGTERM while a local daemon runs: stop the daemons the run has started by then
    /// too, then exit 130, rather than leave them listening.
    private func stopDaemonsOnInterrupt(of run: BenchRun) -> [any DispatchSourceSignal] {
        guard !run.localDaemonPIDs.isEmpty else { return [] }
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                FileHandle.standardError.write(Data("switchyard-bench: interrupted; stopping the local daemons\n".utf8))
                for pid in run.localDaemonPIDs { kill(pid, SIGTERM) }
                Foundation.exit(130)
            }
            source.resume()
            return source
        }
    }
}
