import SignalingProtocol

/// The results of one run: what `--json` writes and what the table shows. docs/benchmark.md
/// describes every field.
public struct BenchReport: Codable, Sendable {
    public struct Daemon: Codable, Sendable {
        /// Whether the bench started the daemon itself.
        public var local: Bool
        public var url: String
        public var pid: Int32?
        public var srtpBuild: String?
    }

    public struct Clients: Codable, Sendable {
        public var publishers = 0
        public var subscribers = 0
        public var connectFailures = 0
    }

    public struct Forwarding: Codable, Sendable {
        /// Datagrams the daemon's media plane sent during the measurement (from /metrics).
        public var packetsForwarded: UInt64?
        public var packetsPerSecond: Double?
        /// Forwarded packets per CPU-second of the daemon (local daemon or --server-pid).
        public var packetsPerServerCPUSecond: Double?
        /// Media packets the subscribers received, per second.
        public var receivedPacketsPerSecond: Double = 0
        /// Megabits per second of datagrams the subscribers received.
        public var receivedMbitPerSecond: Double = 0
    }

    /// One media worker of the daemon over the measurement, from its per-worker metrics.
    public struct WorkerShare: Codable, Sendable {
        public var index: Int
        /// Time the worker was busy, as a percentage of one core.
        public var busyPercent: Double
        public var consumers: Int
        public var packetsSentPerSecond: Double
        /// Relay messages the worker wrote to other workers per second, and those a full ring refused.
        public var relayMessagesPerSecond: Double
        public var relayDrops: UInt64
    }

    public struct Latency: Codable, Sendable {
        /// Packets measured (clean subscribers only), from the publisher's send to the subscriber's receive.
        public var samples: UInt64 = 0
        public var p50Ms: Double?
        public var p95Ms: Double?
        public var p99Ms: Double?
        public var maxMs: Double?
        public var meanMs: Double?
    }

    public struct Loss: Codable, Sendable {
        /// Over clean subscribers: media packets expected and lost (after NACK repair), RFC 3550.
        public var packetsExpected: Int64 = 0
        public var packetsLost: Int64 = 0
        public var lossPercent: Double = 0
        /// Packets the impairment layer dropped on purpose (impaired subscribers).
        public var impairmentDrops: UInt64 = 0
    }

    public struct Jitter: Codable, Sendable {
        /// RFC 3550 interarrival jitter of video, mean and maximum over clean subscribers.
        public var meanMs: Double = 0
        public var maxMs: Double = 0
    }

    public struct Video: Codable, Sendable {
        public var framesSent: UInt64 = 0
        /// Complete, decodable frames over all subscribers.
        public var framesReceived: UInt64 = 0
        /// Frames decoded by libvpx on the decoding subscribers.
        public var framesDecoded: UInt64 = 0
        public var audioFramesDecoded: UInt64 = 0
        public var decodeErrors: UInt64 = 0
        /// Decoded pictures whose painted counter did not follow the previous one.
        public var counterMismatches: UInt64 = 0
        public var freezes: UInt64 = 0
        public var freezeSeconds: Double = 0
        public var keyFrameWaits: UInt64 = 0
        public var pictureLossIndications: UInt64 = 0
        public var nackedPackets: UInt64 = 0
    }

    public struct Join: Codable, Sendable {
        public var count = 0
        public var failures = 0
        public var p50Ms: Double?
        public var p95Ms: Double?
        public var maxMs: Double?
        public var samplesMs: [Double] = []
    }

    /// One outage of the reconnect scenario. Times are from the network's return.
    public struct Drop: Codable, Sendable {
        public var seconds: Double
        /// Whether the outage was shorter than the server's grace period.
        public var belowGrace: Bool
        /// `reconnected`, or `ended` when the session could not come back.
        public var outcome: String
        public var reconnectedMs: Double?
        public var firstPacketMs: Double?
        public var firstFrameMs: Double?
        /// Signals the dropped client sent while away (with retryAfterReconnect), as the others got them.
        public var signalsSent = 0
        public var signalsDelivered = 0
        public var signalsDuplicated = 0
        /// Signals the others sent it while away, and how many of them it received on return.
        public var eventsMissed = 0
        public var eventsReplayed = 0
        public var eventsDuplicated = 0
        /// `connectionDestroyed`, `streamDestroyed` and `subscriberDestroyed` about it that the others saw.
        public var destroyEventsSeenByOthers = 0
    }

    /// The cluster scenario. Times in milliseconds.
    public struct Cluster: Codable, Sendable {
        public var nodes = 0
        public var sessions = 0
        /// Sessions by the node that holds them (its WebSocket URL).
        public var sessionsPerNode: [String: Int] = [:]
        /// First connect to a new session, through the node in turn: placement, and the redirect
        /// when placement chose another node.
        public var placementP50Ms: Double?
        public var placementP99Ms: Double?
        public var placementsRedirected = 0
        /// A second client joining the existing session through the next node.
        public var joinP50Ms: Double?
        public var joinP99Ms: Double?
        public var joinsRedirected = 0
        /// REST signal, POST to the recipient's `signalReceived`, through the session's node and
        /// through another (forwarded).
        public var signalDirectP50Ms: Double?
        public var signalDirectP99Ms: Double?
        public var signalForwardedP50Ms: Double?
        public var signalForwardedP99Ms: Double?
        public var signalsLost = 0
        /// With --kill-pid: the killed node's clients, and from the kill to `sessionDidMove` and to
        /// the subscriber receiving the publisher's stream again on the new node.
        public var killedNode: String?
        public var clientsOnKilledNode = 0
        public var clientsMoved = 0
        public var moveP50Ms: Double?
        public var moveMaxMs: Double?
        public var mediaAgainP50Ms: Double?
        public var mediaAgainMaxMs: Double?
        /// The 1 → N room through the first node: its subscribers, those served by other nodes over
        /// relay legs, the publisher-to-subscriber latency of each group, and each node's work.
        public var cascadeSubscribers = 0
        public var cascadedSubscribers = 0
        public var cascadeDirectLatencyP50Ms: Double?
        public var cascadeDirectLatencyP99Ms: Double?
        public var cascadedLatencyP50Ms: Double?
        public var cascadedLatencyP99Ms: Double?
        public var cascadedLossPercent: Double?
        public var cascadeNodes: [CascadeNode] = []
    }

    /// One node during the cascade measurement, from its heartbeats (`GET /v1/cluster`), averaged.
    public struct CascadeNode: Codable, Sendable {
        public var nodeId: String
        /// `origin` (holds the session) or `edge`.
        public var role: String
        /// Of the room's subscribers, those whose media this node sends.
        public var subscribers: Int
        public var forwardedPacketsPerSecond: Double
        public var cpuCores: Double
        /// CPU milliseconds per 1000 forwarded packets.
        public var cpuMsPerThousandPackets: Double?
    }

    public struct Reconnect: Codable, Sendable {
        public var graceSeconds: Double?
        public var drops: [Drop] = []
    }

    public struct ProcessUsage: Codable, Sendable {
        public var cpuSeconds: Double
        /// Percent of one core over the measurement (200 = both cores of this machine).
        public var cpuPercent: Double
        public var rssStartMB: Double
        public var rssEndMB: Double
        public var rssPeakMB: Double
    }

    public struct MediaThread: Codable, Sendable {
        public var busyPercent: Double
        public var receivePercent: Double
        public var tickPercent: Double
        public var socketsReadPerSecond: Double
        public var wakeupsPerSecond: Double
    }

    public struct SubscriberFallback: Codable, Sendable {
        public var subscriber: String
        public var impaired: Bool
        /// Seconds from the start of the impairment to the first warning / disable, and from the end
        /// of the impairment to the enable; absent when it did not happen.
        public var warningAfterSeconds: Double?
        public var disabledAfterSeconds: Double?
        public var enabledAfterRecoverySeconds: Double?
        /// Quality events of any kind (warning, lifted, disabled, enabled).
        public var transitions = 0
        /// Every quality event with its time from the start of measurement.
        public var events: [TimedEvent] = []
        /// The router's view of this subscriber's downlink at the end (`getStats` quality).
        public var serverQualityAtEnd: LinkQualityReport?
        /// For each clean spell of the schedule, seconds from its start to video back on, when video
        /// was off for quality as it began; nil when it was on, or never came back within the spell.
        public var videoBackAfterSeconds: [Double?] = []
        /// Simulcast publisher: how many times this subscriber got the top layer back after losing it.
        public var fullQualityCycles: Int?
        /// Simulcast publisher: whether its layer went down before its first warning.
        public var steppedDownBeforeWarning: Bool?
    }

    /// One clean spell after an impaired one, as the impaired subscribers went through it.
    public struct CleanSpell: Codable, Sendable {
        public var startSeconds: Double
        public var endSeconds: Double?
        /// Impaired subscribers whose video was off for quality as the spell began.
        public var subscribersWithVideoOff = 0
        /// Of those, how many had video back before the spell ended.
        public var subscribersBack = 0
        /// The longest time from the spell's start to video back on, over those that came back.
        public var videoBackAfterSeconds: Double?
        /// Simulcast publisher: the pictures the returning subscribers first received, e.g. "320x180".
        public var layersOnReturn: [String] = []
    }

    public struct TimedEvent: Codable, Sendable {
        public var seconds: Double
        public var event: String
    }

    public struct PublisherFallback: Codable, Sendable {
        public var warningAfterSeconds: Double?
        public var disabledAfterSeconds: Double?
        public var enabledAfterRecoverySeconds: Double?
        public var transitions = 0
        public var events: [TimedEvent] = []
    }

    public struct Fallback: Codable, Sendable {
        /// `subscriber` (some subscribers' downlinks impaired) or `publisher` (the publisher's uplink).
        public var side = "subscriber"
        public var schedule: String
        public var impairmentStartSeconds: Double
        public var impairmentEndSeconds: Double?
        public var subscribers: [SubscriberFallback] = []
        /// Worst (largest) timing over the impaired subscribers.
        public var warningAfterSeconds: Double?
        public var disabledAfterSeconds: Double?
        public var enabledAfterRecoverySeconds: Double?
        public var transitions = 0
        /// Quality events seen by subscribers whose network was clean. Must be 0 (subscriber side).
        public var cleanSubscriberEvents = 0
        /// Publisher side: the publisher's own events and timings.
        public var publisher: PublisherFallback?
        /// Publisher side: subscribers that saw their video disabled and enabled for quality with it.
        public var subscribersFollowingPublisher: Int?
        /// Whether the publisher sent simulcast layers (`--simulcast`).
        public var simulcast = false
        /// Every clean spell that follows an impaired one (more than one for a link that comes and goes).
        public var cleanSpells: [CleanSpell] = []
        /// Simulcast publisher: the most times an impaired subscriber got full quality back after
        /// losing it, and that scaled to five minutes of the run.
        public var fullQualityCycles: Int?
        public var fullQualityCyclesPerFiveMinutes: Double?
    }

    public struct Soak: Codable, Sendable {
        /// The daemon's resident memory every few seconds.
        public var rssSamplesMB: [Double] = []
        public var rssGrowthMB: Double = 0
        /// Requests refused or timed out, SRTP/RTP packets the clients refused, decode errors.
        public var errors: UInt64 = 0
        /// The flood after the measurement, when there was one.
        public var flood: Flood?
    }

    public struct TimelinePoint: Codable, Sendable {
        public var seconds: Double
        public var kbps: Double
        public var lossPercent: Double
        /// on, warned, off (quality), or paused (another reason).
        public var state: String
        /// The router's estimate of this subscriber's downlink (`availableBitrate`), impaired
        /// subscribers of the fallback and bandwidth scenarios only.
        public var estimateKbps: Double?
        /// The rate cap the impairment imposed then, when it imposed one.
        public var capacityKbps: Double?
        /// Simulcast: the width of the last picture the subscriber decoded (which layer it gets), and
        /// the freezes that ended since the last point.
        public var decodedWidth: Int?
        public var freezes: UInt64?
    }

    /// One subscriber of the simulcast scenario.
    public struct SimulcastSubscriber: Codable, Sendable {
        public struct LayerChange: Codable, Sendable {
            public var seconds: Double
            /// `WxH@fps` received, or none; the target, and why.
            public var layer: String
            public var target: String
            public var reason: String
        }

        public var subscriber: String
        public var impaired: Bool
        /// `best` or `WxH`.
        public var preference: String
        /// The width its preference picks among the layers, and the width it decoded last.
        public var expectedWidth: Int
        public var finalWidth: Int
        /// Frames decoded during the measurement, by picture width.
        public var framesByWidth: [String: UInt64]
        public var layerChanges: [LayerChange]
        /// Impaired: from the cap's drop to the first lower picture decoded, and from its rise to the
        /// first picture as wide as before the drop.
        public var downSwitchSeconds: Double?
        public var upSwitchSeconds: Double?
        public var freezes: UInt64
        public var decodeErrors: UInt64
        public var counterMismatches: UInt64
        public var pictureIDGaps: UInt64
    }

    public struct Simulcast: Codable, Sendable {
        /// `WxH bps` per layer, lowest first.
        public var layers: [String]
        public var schedule: String
        public var capDropSeconds: Double?
        public var capRiseSeconds: Double?
        public var subscribers: [SimulcastSubscriber]
        /// Clean subscribers that ended on the layer their preference picks, of all clean ones.
        public var rightLayer: Int
        public var cleanSubscribers: Int
        /// The top layer stopped mid-run, and what that did to the subscribers decoding it.
        public var layerStop: LayerStop?
    }

    /// The publisher stopped its top layer for `forSeconds` from `atSeconds`: the subscribers that were
    /// decoding it, how long each one's picture froze in the `windowSeconds` after, the layer it then
    /// decoded and the reason it was told; and every freeze in that window (left out of the run's
    /// freeze target).
    public struct LayerStop: Codable, Sendable {
        public struct Affected: Codable, Sendable {
            public var subscriber: String
            public var freezeSeconds: Double
            public var decodedWidthAfter: Int
            public var reason: String?
        }

        public var atSeconds: Double
        public var forSeconds: Double
        public var windowSeconds: Double
        public var subscribers: [Affected] = []
        public var freezes: UInt64 = 0
    }

    /// How the router's estimate of an impaired subscriber's downlink followed each step of its
    /// capacity (bandwidth scenario).
    public struct BandwidthStep: Codable, Sendable {
        public var startSeconds: Double
        public var endSeconds: Double
        public var capacityKbps: Double
        /// What the estimate should come to: the cap, or what the router sends when that is less.
        public var targetKbps: Double
        /// From the step's start until the estimate first came down to 1.15 × a cap that binds, or up
        /// to 85 % of the target when the cap does not bind; nil when it never did.
        public var convergedAfterSeconds: Double?
        /// After convergence, until the step's end: the estimate's mean, lowest and highest as
        /// shares of the target (overshoot is `highest − 1`).
        public var meanShare: Double?
        public var lowestShare: Double?
        public var highestShare: Double?
    }

    public struct Bandwidth: Codable, Sendable {
        public var subscriber: String
        public var feedback: String
        public var steps: [BandwidthStep] = []
    }

    public struct TimelineSeries: Codable, Sendable {
        public var subscriber: String
        public var impaired: Bool
        public var points: [TimelinePoint] = []
    }

    public struct TargetCheck: Codable, Sendable {
        public var name: String
        public var limit: String
        public var measured: String
        public var met: Bool
    }

    public var scenario: BenchScenario
    public var startedAt: String
    public var options: BenchOptions
    public var daemon: Daemon
    public var clients = Clients()
    public var measuredSeconds: Double = 0
    public var forwarding = Forwarding()
    /// Each media worker's share (empty when the daemon's metrics were not read).
    public var workers: [WorkerShare] = []
    public var latency = Latency()
    public var loss = Loss()
    public var jitter = Jitter()
    public var video = Video()
    public var join: Join?
    public var reconnect: Reconnect?
    public var cluster: Cluster?
    /// The daemon's CPU and memory; absent when it is remote and no --server-pid was given.
    public var server: ProcessUsage?
    /// The bench's own CPU and memory, to show whether the bench was the bottleneck.
    public var bench: ProcessUsage?
    /// The bench's (busiest) media thread: the share of the measurement it spent receiving and
    /// handling packets, and ticking every endpoint (pacing, RTCP, NACK); near 100 % in all means the
    /// bench could not keep up.
    public var benchMediaThread: MediaThread?
    public var fallback: Fallback?
    public var bandwidth: Bandwidth?
    public var simulcast: Simulcast?
    public var soak: Soak?
    public var speakers: Speakers?
    public var webhooks: Webhooks?
    public var broadcast: Broadcast?
    public var archive: Archive?
    public var chaos: Chaos?
    public var red: Red?
    public var overload: Overload?
    public var timeline: [TimelineSeries] = []
    public var targets: [TargetCheck] = []
    public var errors: [String] = []
}
