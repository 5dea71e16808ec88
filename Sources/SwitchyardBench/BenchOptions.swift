import SignalingProtocol
import SwitchyardClient

/// Everything a run is parameterised by; copied into the report so a figure never loses its context.
public struct BenchOptions: Codable, Sendable {
    public var scenario: BenchScenario
    /// `ws://host:port/v1/ws` of a running daemon, or nil to start a local one.
    public var serverURL: String?
    /// A running local daemon's process id, so its CPU and memory can be read from /proc.
    public var serverPID: Int32?
    /// Cluster: every node's WebSocket URL (each `--server`); sessions come in through them in turn.
    public var clusterURLs: [String] = []
    /// Cluster: the process id of the node at the first URL, killed with SIGKILL once every session runs.
    public var killPID: Int32?
    /// Chaos: each node's process id, in the order of the `--server` URLs.
    public var nodePIDs: [Int32] = []
    /// Chaos: shell commands that stop PostgreSQL and start it again (nil: no database fault).
    public var postgresStopCommand: String?
    public var postgresStartCommand: String?
    /// Chaos: the nodes' `cluster.nodeTimeoutSeconds` (a killed node's allowance is this plus 6 s),
    /// seconds between a recovery and the next fault, and the client outages' lengths in turn.
    public var nodeTimeoutSeconds = 8.0
    public var faultSpacingSeconds = 4.0
    public var outageSeconds: [Double] = [3, 12, 1, 30, 6]
    /// Chaos: aiortc subscribers (one in each of the first sessions), run by `aiortcPeer`
    /// (Tests/Interop/aiortc_peer.py) with `python3`.
    public var webrtcClients = 0
    public var aiortcPeer: String?
    /// Chaos: a subscriber's downlink capped at this many kilobits per second for `capSeconds`, by
    /// the kernel on `capInterface` (the private namespace's `lo` bench-chaos.sh runs in); 0: no cap
    /// fault.
    public var capKbps = 0
    public var capSeconds = 12.0
    public var capInterface = "lo"
    /// Cluster: REST signals sent through each route (the session's node, another node) per session.
    public var signalsPerSession = 10
    /// Cluster: subscribers of the 1 → N room through the first node; 0 leaves it out.
    public var cascadeSubscribers = 9
    public var apiKey: String
    public var apiSecret: String
    /// Subscribers (fanout, audio-only, fallback, soak; webhooks: of each session) or participants (room).
    public var clients: Int
    /// Seconds of measurement, after everyone has joined and a warm-up; speakers: of each CPU window.
    public var durationSeconds: Double
    public var warmupSeconds: Double
    public var videoBitrate: Int
    public var audioBitrate: Int
    public var width: Int
    public var height: Int
    public var frameRate: Int
    /// Subscribers that decode every frame with libvpx and libopus.
    public var decoders: Int
    /// Fallback: how many subscribers get the schedule; the rest stay clean.
    public var impairedSubscribers: Int
    /// Fallback: what the impaired subscribers' downlinks go through, timed from the start of measurement.
    public var schedule: ImpairmentSchedule
    /// Fanout: the publisher's video starts only once every subscriber has joined, at an offer past
    /// what one worker forwards on time, and the report says what overload shedding made of it.
    public var overload = false
    /// Fanout --overload: the subscribers that read their media and are measured; the rest never read
    /// (the router sends them everything, the kernel drops it), so the bench's core does not limit
    /// what one worker of the daemon can be offered.
    public var sampledSubscribers = 200
    /// Fallback: the publisher sends three simulcast layers (`simulcastLowerLayers` below its
    /// picture), so the ladder can step down and come back on the lowest layer.
    public var simulcast = false
    /// Red: earlier frames each audio packet repeats (1-2).
    public var redundantAudioFrames = 1
    /// Red: the publisher sends plain Opus, and the router adds the redundancy toward the lossy
    /// subscribers that take RED (`media.redundantAudio` of the daemon; one frame by default).
    public var redundancyFromRouter = false
    /// Where the schedules are applied: in the clients (`client`) or by the kernel, daemon and
    /// clients in network namespaces (`kernel`; fallback, bandwidth and simulcast).
    public var network = BenchNetwork.client
    /// Fallback, publisher side: what the publisher's uplink goes through, timed like `schedule`.
    /// The stream is then published with `publisherAudioFallbackEnabled` (and subscriber-side
    /// fallback off, so every quality event the subscribers see is the publisher's).
    public var publisherSchedule: ImpairmentSchedule
    /// Join: how many joins, and the pause between two (the router asks a publisher for at most one
    /// key frame per `keyFrameRequestIntervalMs`, 1 s by default).
    public var joins: Int
    public var joinIntervalSeconds: Double
    /// Reconnect: how long each outage lasts, one after another, each on a fresh client.
    public var dropSeconds: [Double]
    /// Reconnect: signals sent each way while the client is away.
    public var signalsPerDrop: Int
    /// Local daemon: media workers (0 = one per core).
    public var workers: Int
    /// Local daemon: `media.spreadThreshold` and `media.workerLoop`; nil leaves the daemon's default.
    public var spreadThreshold: Int?
    public var workerLoop: String?
    public var srtpProfile: String
    /// Simultaneous connection attempts while clients join.
    public var connectConcurrency: Int
    /// Threads that run the clients' media (each an epoll loop); one is enough for about 1000
    /// subscribers of a 500 kbps stream.
    public var mediaThreads: Int
    /// What the subscribers send about their downlinks: REMB, or transport-wide feedback from which
    /// the router estimates on its side.
    public var feedback: String
    /// Simulcast: each subscriber's preferred resolution in turn (nil: the best the network allows).
    public var preferences: [VideoDimensions?]
    /// Soak: after the measurement, WebSockets left idle and clients churning for `floodSeconds`
    /// (0: no flood), then the daemon's memory read for 30 s (docs/benchmark.md, "soak").
    public var floodIdleSockets: Int
    public var floodClients: Int
    public var floodSeconds: Double
    /// Simulcast: when the publisher stops sending its top layer (seconds into the measurement; nil:
    /// never), and for how long.
    public var topLayerStopAtSeconds: Double?
    public var topLayerStopSeconds: Double
    /// Speakers: scripted talker starts per room, how long each talks, and the silence before the
    /// next starts.
    public var turns: Int
    public var turnSeconds: Double
    public var turnGapSeconds: Double
    /// Speakers: how long one participant talks while the others make background noise, watched for
    /// false switches; the room without levels runs meanwhile, for the CPU windows.
    public var steadySeconds: Double
    /// Speakers: the `audio.forwardLoudest` of the room whose downlink is compared with a room that
    /// forwards everything.
    public var forwardLoudest: Int
    /// Webhooks: 1 → N sessions churning at once, and subscriber joins per second in each: every
    /// subscriber comes back every `clients / churnRate` seconds and stays three quarters of that.
    public var sessions: Int
    public var churnRate: Double
    /// Archive: publishers in the session recorded individually to count the writer's drops.
    public var archiveStreams: Int
    /// Broadcast: viewers who, once the crowd is in, also subscribe to the publisher's media and
    /// decode it for `durationSeconds` (0: a signaling-only run).
    public var mediaViewers = 0
    /// Broadcast: publishers in the session, each sending audio and simulcast video (three layers)
    /// to the media viewers.
    public var broadcastPublishers = 1
    /// Webhooks: where the bench's receiver listens (port 0: a free one). A daemon given with
    /// `--server` must already send its webhooks to `http://<host>:<port>/webhooks`.
    public var receiverHost: String
    public var receiverPort: Int
    /// Webhooks: whether the receiver answers (`normal`) or holds every POST unanswered (`silent`).
    public var receiver: WebhookReceiverMode
    /// Webhooks: the daemon's `webhooks.maxQueuedEvents`: given to a local daemon (nil: the daemon's
    /// default, 10,000, or `silentReceiverQueueBound` with a silent receiver); with `--server`, the
    /// bound that daemon was configured with, which a silent receiver's run checks its queue against.
    public var maxQueuedEvents: Int?

    public init(scenario: BenchScenario) {
        self.scenario = scenario
        serverURL = nil
        serverPID = nil
        apiKey = "switchyard-development"
        apiSecret = "switchyard-development-secret-do-not-use-in-production"
        clients =
            scenario == .room || scenario == .fallback || scenario == .simulcast || scenario == .red
            ? 4 : scenario == .bandwidth ? 1 : scenario == .cluster ? 12 : scenario == .webhooks ? 50 : scenario == .chaos ? 2
            : scenario == .broadcast ? 1000 : scenario == .archive ? 200 : 20
        durationSeconds =
            scenario == .fallback ? 22 : scenario == .red ? 30 : scenario == .soak || scenario == .webhooks ? 60 : scenario == .bandwidth ? 30
            : scenario == .simulcast ? 32 : scenario == .archive ? 20 : 10
        warmupSeconds = 2
        videoBitrate = scenario == .audioOnly ? 0 : scenario == .bandwidth || scenario == .simulcast ? 1_000_000 : 500_000
        audioBitrate = 32_000
        width = scenario == .simulcast ? 1280 : scenario == .broadcast ? 1024 : 640
        height = scenario == .simulcast ? 720 : scenario == .broadcast ? 576 : 360
        frameRate = 30
        decoders = 1
        impairedSubscribers = scenario == .fallback ? 2 : scenario == .bandwidth || scenario == .simulcast ? 1 : scenario == .red ? 4 : 0
        preferences = scenario == .simulcast ? [nil, VideoDimensions(width: 320, height: 180), VideoDimensions(width: 640, height: 360), nil] : []
        topLayerStopAtSeconds = scenario == .simulcast ? 24 : nil
        topLayerStopSeconds = 3
        schedule =
            switch scenario {
            case .fallback: (try? ImpairmentSchedule(parsing: "3s:loss=0.3;11s:clean")) ?? .clean
            case .bandwidth: (try? ImpairmentSchedule(parsing: "0s:rate=2mbps;10s:rate=300kbps;20s:rate=2mbps")) ?? .clean
            // Room for every layer, then for the middle one only, then for every layer again.
            case .simulcast: (try? ImpairmentSchedule(parsing: "0s:rate=3mbps;8s:rate=700kbps;18s:rate=3mbps")) ?? .clean
            // Issue 38's case: 20 % random loss on every subscriber's downlink.
            case .red: (try? ImpairmentSchedule(parsing: "0s:loss=0.2")) ?? .clean
            default: .clean
            }
        feedback = scenario == .bandwidth || scenario == .simulcast ? BandwidthFeedback.transportWide.rawValue : BandwidthFeedback.receiverEstimate.rawValue
        publisherSchedule = .clean
        floodIdleSockets = 500
        floodClients = 300
        floodSeconds = scenario == .soak ? 60 : 0
        joins = 15
        joinIntervalSeconds = 1.1
        dropSeconds = [1, 5, 30]
        signalsPerDrop = 5
        // Speakers runs two rooms at once, each on its own worker, whose named thread's CPU it reads.
        workers = scenario == .speakers ? 2 : 0
        workerLoop = scenario == .speakers ? "epoll" : nil
        srtpProfile = "AEAD_AES_128_GCM"
        connectConcurrency = 32
        mediaThreads = 1
        turns = 8
        turnSeconds = 3
        turnGapSeconds = 0.3
        steadySeconds = 60
        forwardLoudest = 3
        sessions = scenario == .chaos ? 3 : 4
        churnRate = scenario == .broadcast ? 200 : 10
        archiveStreams = 50
        receiverHost = "127.0.0.1"
        receiverPort = 0
        receiver = .normal
        maxQueuedEvents = nil
    }

    /// `fallback --simulcast`: the simulcast scenario's publisher (1280x720 at 1 Mbps in three
    /// layers, transport-wide feedback) and a link that comes and goes: 30 s of 30 % loss, then 30 s
    /// clean, five times, in five minutes.
    public mutating func publishSimulcast() {
        simulcast = true
        videoBitrate = 1_000_000
        width = 1280
        height = 720
        feedback = BandwidthFeedback.transportWide.rawValue
        schedule = Self.comingAndGoing
        durationSeconds = 305
    }

    /// 30 % loss from 5 s for 30 s, then clean for 30 s, five times over.
    public static let comingAndGoing: ImpairmentSchedule =
        (try? ImpairmentSchedule(parsing: stride(from: 5, to: 305, by: 60).map { "\($0)s:loss=0.3;\($0 + 30)s:clean" }.joined(separator: ";"))) ?? .clean

    /// A small queue, so a receiver that never answers fills it within seconds and the daemon drops.
    public static let silentReceiverQueueBound = 200

    /// Webhooks: the queue bound the local daemon is given, nil for the daemon's default.
    var webhookQueueBound: Int? { maxQueuedEvents ?? (receiver == .silent ? Self.silentReceiverQueueBound : nil) }

    /// The problem with these options, naming the option, or nil.
    public var problem: String? {
        if clients < 1 { return "--clients must be at least 1" }
        if scenario == .red {
            if clients < 2 { return "--clients must be at least 2 for red: half take RED, half do not" }
            if !(1...2).contains(redundantAudioFrames) { return "--red-frames must be 1 or 2, not \(redundantAudioFrames)" }
        }
        if let spreadThreshold, spreadThreshold < 0 { return "--spread-threshold cannot be negative" }
        if let workerLoop, !["dispatch-wait", "dispatch", "epoll"].contains(workerLoop) {
            return "--worker-loop must be dispatch-wait, dispatch or epoll, not \(workerLoop)"
        }
        if scenario == .room, clients < 2 { return "--clients must be at least 2 for room" }
        if scenario == .speakers {
            if clients < 3 { return "--clients must be at least 3 for speakers (talkers and a listener)" }
            if !(1...1000).contains(turns) { return "--turns must be within 1...1000" }
            if !(turnSeconds >= 1 && turnSeconds <= 60) { return "--turn-seconds must be within 1...60" }
            if !(turnGapSeconds >= 0 && turnGapSeconds <= 10) { return "--turn-gap must be within 0...10 seconds" }
            if !(steadySeconds >= 1 && steadySeconds <= 3600) { return "--steady-seconds must be within 1...3600" }
            if steadySeconds < durationSeconds { return "--steady-seconds must hold at least one CPU window of --duration seconds" }
            if !SessionAudioSettings.forwardLoudestRange.contains(forwardLoudest) {
                return "--forward-loudest must be within \(SessionAudioSettings.forwardLoudestRange.lowerBound)...\(SessionAudioSettings.forwardLoudestRange.upperBound)"
            }
            if workers == 1 { return "speakers runs two rooms on two media workers at once: --workers must be 0 (one per core) or at least 2" }
            if let workerLoop, workerLoop != "epoll" {
                return "speakers reads each media worker's CPU from its named thread: --worker-loop must be epoll, not \(workerLoop)"
            }
        }
        if !(durationSeconds > 0) { return "--duration must be positive" }
        if scenario == .soak, durationSeconds > 3600 { return "--duration for soak is capped at 3600 s" }
        if !(0...3600).contains(floodSeconds) { return "--flood-seconds must be within 0...3600" }
        if scenario != .soak, floodSeconds > 0 { return "--flood-seconds is for the soak scenario" }
        if floodIdleSockets < 0 || floodClients < 0 { return "--flood-idle and --flood-clients cannot be negative" }
        if floodSeconds > 0, floodClients == 0 { return "--flood-clients must be at least 1 for a flood (or --flood-seconds 0)" }
        if warmupSeconds < 0 { return "--warmup cannot be negative" }
        if videoBitrate != 0, videoBitrate < 50_000 { return "--video-bitrate must be 0 or at least 50000" }
        if audioBitrate < 6_000 || audioBitrate > 510_000 { return "--audio-bitrate must be within 6000...510000" }
        if frameRate < 1 || frameRate > 60 { return "--fps must be within 1...60" }
        if decoders < 0 { return "--decoders cannot be negative" }
        if impairedSubscribers < 0 || impairedSubscribers > clients { return "--impaired must be within 0...--clients" }
        if scenario == .fallback || scenario == .bandwidth, videoBitrate == 0 { return "\(scenario.rawValue) needs video" }
        if simulcast, scenario != .fallback { return "--simulcast is for the fallback scenario (the simulcast scenario always publishes layers)" }
        if simulcast, width < 1024 || height < 64 {
            return "--simulcast needs video of at least 1024x64: its lowest layer, a quarter of the picture, must be at least 256x16 for the encoder"
        }
        if simulcast, measuresPublisherSide { return "--simulcast measures subscribers stepping down layers; it takes no --publisher-schedule" }
        if BandwidthFeedback(rawValue: feedback) == nil {
            return "--feedback must be one of \(BandwidthFeedback.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        if scenario == .bandwidth, !schedule.steps.contains(where: { $0.impairment.bandwidth > 0 }) {
            return "bandwidth needs a --schedule with a rate cap, e.g. 0s:rate=2mbps;10s:rate=300kbps;20s:rate=2mbps"
        }
        if scenario == .fallback, measuresPublisherSide, impairedSubscribers > 0 {
            return "--publisher-schedule measures the publisher side; impair no subscriber (--impaired 0)"
        }
        if scenario == .fallback, !measuresPublisherSide, schedule.firstDegradation == nil {
            return "fallback needs a --schedule (or --publisher-schedule) with an impairment"
        }
        if let problem = kernelNetworkProblem { return problem }
        if joins < 1 { return "--joins must be at least 1" }
        if dropSeconds.isEmpty || dropSeconds.contains(where: { !($0 > 0 && $0 <= 600) }) { return "--drops must be seconds within (0, 600], e.g. 1,5,30" }
        if signalsPerDrop < 0 || signalsPerDrop > 1000 { return "--signals-per-drop must be within 0...1000" }
        if scenario == .reconnect, videoBitrate == 0 { return "reconnect needs video" }
        if scenario == .simulcast, videoBitrate == 0 || width < 128 || height < 72 {
            return "simulcast needs video of at least 128x72 (its lowest layer is a quarter of the picture)"
        }
        if let stop = topLayerStopAtSeconds, stop + topLayerStopSeconds > durationSeconds {
            return "--top-layer-stop ends at \(stop + topLayerStopSeconds) s, after the run's \(durationSeconds) s"
        }
        if scenario == .cluster, clusterURLs.count < 2 { return "cluster needs a --server for each node of a running cluster (at least 2)" }
        if scenario != .cluster, scenario != .webhooks, scenario != .chaos, clusterURLs.count > 1 {
            return "several --server URLs are for the cluster, webhooks and chaos scenarios"
        }
        if scenario == .chaos {
            if clusterURLs.count < 2 { return "chaos needs a --server for each node of a running cluster (at least 2)" }
            if nodePIDs.count != clusterURLs.count { return "chaos needs a --node-pid for each --server, in the same order" }
            if (postgresStopCommand == nil) != (postgresStartCommand == nil) { return "--postgres-stop and --postgres-start go together" }
            if !(1...20).contains(sessions) { return "--sessions must be within 1...20" }
            if !(1...10).contains(clients) { return "--clients (subscribers per session) must be within 1...10 for chaos" }
            if !(nodeTimeoutSeconds >= 1 && nodeTimeoutSeconds <= 120) { return "--node-timeout must be the nodes' cluster.nodeTimeoutSeconds, within 1...120" }
            if !(faultSpacingSeconds >= 2 && faultSpacingSeconds <= 600) { return "--fault-spacing must be within 2...600 seconds" }
            if outageSeconds.isEmpty || outageSeconds.contains(where: { !($0 >= 1 && $0 <= 30) }) { return "--outages must be seconds within 1...30, e.g. 3,12,1,30,6" }
            if !(0...sessions).contains(webrtcClients) { return "--webrtc-clients must be within 0...\(sessions) (one in each of the first sessions; --sessions is \(sessions))" }
            if webrtcClients > 0, aiortcPeer == nil { return "--webrtc-clients needs --aiortc-peer (Tests/Interop/aiortc_peer.py)" }
            if capKbps != 0, !(32...10_000).contains(capKbps) { return "--cap-kbps must be 0 (no cap fault) or within 32...10000" }
            if !(capSeconds >= 2 && capSeconds <= 60) { return "--cap-seconds must be within 2...60" }
            if capInterface.isEmpty || capInterface.contains(where: { $0 == " " || $0 == "/" }) { return "--cap-interface must name a network interface, e.g. lo" }
        }
        if scenario == .archive, !(1...200).contains(archiveStreams) { return "--archive-streams must be within 1...200" }
        if scenario == .broadcast {
            if !(1...15_000).contains(clients) { return "--clients (viewers) must be within 1...15000 for broadcast" }
            if !(churnRate > 0 && churnRate <= 1000) { return "--churn-rate (joins a second) must be within (0, 1000] for broadcast" }
            if !(0...100).contains(mediaViewers) { return "--media-viewers must be within 0...100" }
            if !(1...10).contains(broadcastPublishers) { return "--publishers must be within 1...10 for broadcast" }
            if mediaViewers > 0, videoBitrate == 0 || width < 1024 || height < 64 {
                return "broadcast publishes simulcast video of at least 1024x64: its lowest layer, a quarter of the picture, must be at least 256x16 for the encoder"
            }
        }
        if scenario == .webhooks {
            if !(1...100).contains(sessions) { return "--sessions must be within 1...100" }
            if !(churnRate > 0 && churnRate <= 1000) { return "--churn-rate must be within (0, 1000] joins per second per session" }
            if !(0...65535).contains(receiverPort) { return "--receiver-port must be within 0...65535" }
            if serverURL != nil, receiverPort == 0 {
                return "--receiver-port must name the port of the webhook endpoint the daemon at --server already sends to (http://HOST:PORT/webhooks)"
            }
            if let maxQueuedEvents, !(10...1_000_000).contains(maxQueuedEvents) {
                return "--max-queued-events must be within 10...1000000 (the daemon's webhooks.maxQueuedEvents)"
            }
            if receiver == .silent, serverURL != nil, maxQueuedEvents == nil {
                return "--max-queued-events must be the webhooks.maxQueuedEvents of the daemon at --server, to check its queue against with --receiver silent"
            }
        }
        if scenario != .cluster, killPID != nil { return "--kill-pid is for the cluster scenario" }
        if !(0...200).contains(cascadeSubscribers) { return "--cascade-subscribers must be 0-200" }
        if connectConcurrency < 1 { return "--connect-concurrency must be at least 1" }
        if mediaThreads < 1 || mediaThreads > 64 { return "--media-threads must be within 1...64" }
        return nil
    }

    /// What `--network kernel` cannot do with these options, or nil.
    var kernelNetworkProblem: String? {
        guard network == .kernel else { return nil }
        if !BenchNetwork.kernelScenarios.contains(scenario) {
            return "--network kernel is for the \(BenchNetwork.kernelScenarios.map(\.rawValue).joined(separator: ", ")) scenarios"
        }
        if serverURL != nil {
            return "--network kernel starts its own daemon inside a network namespace and shapes its veth: it cannot shape a daemon given with --server"
        }
        for step in schedule.steps + publisherSchedule.steps {
            if let refusal = KernelLinkShaper.refusal(of: step.impairment) { return "--network kernel: \(refusal)" }
        }
        return nil
    }

    /// The subscribers' feedback, checked by `problem`.
    var subscriberFeedback: BandwidthFeedback { BandwidthFeedback(rawValue: feedback) ?? .receiverEstimate }

    /// Whether the run follows impaired subscribers' downlinks through a schedule.
    var impairsSubscribers: Bool { scenario == .fallback || scenario == .bandwidth || scenario == .simulcast || scenario == .red }

    /// Whether a fallback run impairs the publisher instead of subscribers.
    var measuresPublisherSide: Bool { publisherSchedule.firstDegradation != nil }

    var mediaSettings: MediaSettings {
        MediaSettings(
            videoBitrate: sendsVideo ? videoBitrate : 0, audioBitrate: audioBitrate, width: width, height: height,
            frameRate: frameRate, lowerLayers: scenario == .simulcast || scenario == .broadcast || simulcast ? simulcastLowerLayers : [])
    }

    /// Whether publishers send video: not in the audio-only scenarios, nor in webhooks (whose
    /// clients send no media), nor with a video bitrate of 0.
    var sendsVideo: Bool { scenario != .audioOnly && scenario != .speakers && scenario != .webhooks && scenario != .red && videoBitrate > 0 }

    /// The simulcast scenario's lower layers: a quarter and half of the picture, at 15 % and 40 % of
    /// the top layer's bitrate (even sizes, as libvpx wants).
    var simulcastLowerLayers: [VideoLayerSettings] {
        [(4, 0.15), (2, 0.4)].map { divisor, share in
            VideoLayerSettings(width: width / divisor & ~1, height: height / divisor & ~1, bitrate: Int(Double(videoBitrate) * share))
        }
    }

    /// The preferred resolution of subscriber `index` (the list repeats; nil is no preference).
    func preference(ofSubscriber index: Int) -> VideoDimensions? {
        preferences.isEmpty ? nil : preferences[index % preferences.count]
    }
}
