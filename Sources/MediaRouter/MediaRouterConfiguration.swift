import MediaControl
import Quality

/// How the media plane runs: its workers, its ports, and the timers of its recovery logic.
public struct MediaRouterConfiguration: Equatable, Sendable {
    /// Worker threads; each owns the routers pinned to it.
    public var workerCount: Int
    /// The IPv4 address media sockets bind to.
    public var listenAddress: String
    /// The address announced to clients, when it differs from `listenAddress` (behind NAT).
    public var announcedAddress: String?
    /// Local ports for transports, inclusive.
    public var portRange: ClosedRange<UInt16>
    /// Packets of the SRTP replay window of inbound sessions.
    public var replayWindowSize: Int
    /// Packets kept per video producer for retransmission; a power of two.
    public var retransmissionBufferPackets: Int
    /// How long a kept packet still answers a NACK: older resends reach a receiver whose jitter
    /// buffer has given up on the packet, so they would only take bandwidth.
    public var retransmissionMaxAge: Duration
    /// Least time between two key-frame requests sent to one publisher.
    public var keyFrameRequestInterval: Duration
    /// Time between sender reports to subscribers and receiver reports to publishers.
    public var reportInterval: Duration
    /// Time without packets after which a producer counts as idle.
    public var producerIdleTimeout: Duration
    /// Quality scoring and the audio-fallback policy.
    public var audioFallback: AudioFallbackConfiguration
    /// When set, every WebRTC transport of worker `i` shares UDP port `webRTCSharedPort + i` (they are
    /// told apart by ICE username and remote address); when nil, each gets a port from `portRange`.
    public var webRTCSharedPort: UInt16?
    /// When set, worker `i` accepts ICE-TCP connections (RFC 6544 passive candidates, offered beside
    /// the UDP one in every WebRTC answer) on TCP port `webRTCTCPPort + i`; 0 lets the kernel pick each
    /// worker's port. For clients whose network blocks UDP.
    public var webRTCTCPPort: UInt16?
    /// An ICE-TCP connection whose first STUN check has not been verified this long after it was
    /// accepted is closed: what a half-open or silent connection can hold.
    public var iceTCPVerificationTimeout: Duration
    /// A WebRTC transport whose ICE and DTLS have not connected this long after its creation fails.
    public var webRTCConnectTimeout: Duration
    /// RFC 7675: media stops toward a WebRTC client from which no ICE check came for this long.
    public var iceConsentTimeout: Duration
    /// Allows `setFaultInjection` (a test aid); off in production.
    public var faultInjection: Bool
    /// Sends runs of equal-sized packets to one client as one segmented send (UDP GSO, Linux 4.18+):
    /// the kernel walks its stack once per run instead of once per packet. Turned off by itself on
    /// the first refusal.
    public var udpSegmentation: Bool
    /// How each worker waits for its sockets (`WorkerLoop`).
    public var workerLoop: WorkerLoop
    /// Subscribers of one producer beyond which a new subscriber's transport goes to the worker with
    /// the fewest consumers instead of the router's home, and the producer's packets reach it through
    /// a relay ring (one copy per worker). 0 keeps every router on one worker.
    public var spreadThreshold: Int
    /// Messages each relay ring between two workers holds; a full ring drops and counts.
    public var relayRingCapacity: Int
    /// When the router adds RED itself toward lossy subscribers that take it.
    public var addedAudioRedundancy: AddedAudioRedundancy
    /// How a worker keeps media on time, and admits subscribers, when offered more than it can forward.
    /// Off for a plane made in code unless asked for; the daemon's configuration turns it on
    /// (`media.overload`).
    public var overloadShedding: OverloadShedding

    /// Whether `host` is a dotted-quad IPv4 address the media plane can bind to or send to, checked
    /// by the same parser the sockets use.
    public static func isIPv4Address(_ host: String) -> Bool {
        IPv4Address(host) != nil
    }

    public init(
        workerCount: Int = 2,
        listenAddress: String = "127.0.0.1",
        announcedAddress: String? = nil,
        portRange: ClosedRange<UInt16> = 40_000...40_999,
        replayWindowSize: Int = 1024,
        retransmissionBufferPackets: Int = 1024,
        retransmissionMaxAge: Duration = .seconds(1),
        keyFrameRequestInterval: Duration = .milliseconds(1000),
        reportInterval: Duration = .milliseconds(1000),
        producerIdleTimeout: Duration = .seconds(5),
        audioFallback: AudioFallbackConfiguration = AudioFallbackConfiguration(),
        webRTCSharedPort: UInt16? = nil,
        webRTCTCPPort: UInt16? = nil,
        iceTCPVerificationTimeout: Duration = .seconds(5),
        webRTCConnectTimeout: Duration = .seconds(30),
        iceConsentTimeout: Duration = .seconds(30),
        faultInjection: Bool = false,
        udpSegmentation: Bool = true,
        workerLoop: WorkerLoop = .dispatchWait,
        spreadThreshold: Int = 64,
        relayRingCapacity: Int = 1024,
        addedAudioRedundancy: AddedAudioRedundancy = AddedAudioRedundancy(),
        overloadShedding: OverloadShedding = OverloadShedding(enabled: false)
    ) {
        self.addedAudioRedundancy = addedAudioRedundancy
        self.overloadShedding = overloadShedding
        self.workerCount = workerCount
        self.listenAddress = listenAddress
        self.announcedAddress = announcedAddress
        self.portRange = portRange
        self.replayWindowSize = replayWindowSize
        self.retransmissionBufferPackets = retransmissionBufferPackets
        self.retransmissionMaxAge = retransmissionMaxAge
        self.keyFrameRequestInterval = keyFrameRequestInterval
        self.reportInterval = reportInterval
        self.producerIdleTimeout = producerIdleTimeout
        self.audioFallback = audioFallback
        self.webRTCSharedPort = webRTCSharedPort
        self.webRTCTCPPort = webRTCTCPPort
        self.iceTCPVerificationTimeout = iceTCPVerificationTimeout
        self.webRTCConnectTimeout = webRTCConnectTimeout
        self.iceConsentTimeout = iceConsentTimeout
        self.faultInjection = faultInjection
        self.udpSegmentation = udpSegmentation
        self.workerLoop = workerLoop
        self.spreadThreshold = spreadThreshold
        self.relayRingCapacity = relayRingCapacity
    }
}
