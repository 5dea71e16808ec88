/// What the router knows about one consumer: what it sent, and what the subscriber reported.
public struct ConsumerStatistics: Equatable, Sendable, Codable {
    public var consumerID: ConsumerID
    public var kind: MediaKind
    public var packetsSent: UInt64 = 0
    public var bytesSent: UInt64 = 0
    public var retransmittedPackets: UInt64 = 0
    /// NACKed packets not resent because the transport's resend budget (its downlink estimate) was spent.
    public var retransmissionsOverBudget: UInt64 = 0
    /// RFC 2198 packets sent whole (the subscriber takes RED, or a relay leg); a subscriber without
    /// RED gets their primary frames and none of these.
    public var redundantPacketsSent: UInt64 = 0
    /// Of those, plain Opus packets the router made RED itself, repeating earlier frames toward a
    /// lossy subscriber that takes RED (`AddedAudioRedundancy`).
    public var redundancyAddedPackets: UInt64 = 0
    /// Cumulative loss from the subscriber's latest receiver report.
    public var packetsLost: Int64 = 0
    /// Fraction lost (0–255, of 256) from the latest receiver report.
    public var fractionLost: UInt8 = 0
    /// Interarrival jitter from the latest receiver report, in seconds.
    public var jitterSeconds: Double = 0
    /// Round-trip time from the latest receiver report that had an LSR, in seconds.
    public var roundTripTimeSeconds: Double?
    public var nacksReceived: UInt64 = 0
    /// Padding-only packets sent to probe the path while the audio-fallback policy has video off.
    public var probePacketsSent: UInt64 = 0
    public var keyFrameRequestsReceived: UInt64 = 0
    public var pauseReasons: Set<ConsumerPauseReason> = []
    /// For a simulcast stream: the layer forwarded, the target and why.
    public var layer: VideoLayerState?

    public init(consumerID: ConsumerID, kind: MediaKind) {
        self.consumerID = consumerID
        self.kind = kind
    }
}

/// What the router knows about one producer: what it received from the publisher.
public struct ProducerStatistics: Equatable, Sendable, Codable {
    public var producerID: ProducerID
    public var kind: MediaKind
    public var packetsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    public var packetsLost: Int64 = 0
    public var fractionLost: UInt8 = 0
    public var jitterSeconds: Double = 0
    public var nacksSent: UInt64 = 0
    public var keyFrameRequestsSent: UInt64 = 0
    /// For a simulcast track, each encoding's measured bits per second, lowest first.
    public var layerBitrates: [Double] = []
    /// For an audio track that carries RFC 6464 levels: the smoothed level (linear amplitude 0...1)
    /// and whether it counts as speaking.
    public var audioLevel: Double?
    public var speaking: Bool?
    /// Whether nothing it sends reaches its consumers because it is muted (`setProducerMuted`), or
    /// because it is not among the loudest (`setForwardLoudest`).
    public var muted = false
    public var heldBackAsQuieter = false
    /// Packets kept from every consumer while muted or held back as quieter than the loudest.
    public var packetsHeldBack: UInt64 = 0
    /// Packets of the publisher's RED payload type: well formed around its Opus, and those that were
    /// malformed or whose primary frame was not its Opus (forwarded to nobody).
    public var redundantPacketsReceived: UInt64 = 0
    public var unforwardableRedundantPackets: UInt64 = 0

    public init(producerID: ProducerID, kind: MediaKind) {
        self.producerID = producerID
        self.kind = kind
    }
}

/// The measured quality of one direction of a transport.
public struct LinkStatistics: Equatable, Sendable, Codable {
    /// 0 (unusable) to 100 (clean); the formula is in `docs/audio-fallback.md`.
    public var score: Double
    /// Smoothed fraction of packets lost.
    public var lossFraction: Double
    public var jitterSeconds: Double
    public var roundTripTimeSeconds: Double?
    /// Smoothed rate that reached the receiver, bits per second.
    public var deliveredBitrate: Double?
    /// The bandwidth available toward the receiver (docs/bandwidth.md).
    public var availableBitrate: Double?
    /// Where `availableBitrate` comes from: `transportFeedback` (the router's send-side estimate),
    /// `receiverEstimate` (the receiver's REMB), or `delivered` (what demonstrably arrived).
    public var availableBitrateSource: String?
    /// `videoOn`, `warned`, `videoOff` or `suspended`; nil when audio fallback is off for this side.
    public var audioFallbackState: String?
    /// Measurements taken so far; 0 means the values are defaults, not measurements.
    public var samples: Int

    public init(
        score: Double, lossFraction: Double, jitterSeconds: Double, roundTripTimeSeconds: Double?, deliveredBitrate: Double?,
        availableBitrate: Double?, availableBitrateSource: String? = nil, audioFallbackState: String?, samples: Int
    ) {
        self.score = score
        self.lossFraction = lossFraction
        self.jitterSeconds = jitterSeconds
        self.roundTripTimeSeconds = roundTripTimeSeconds
        self.deliveredBitrate = deliveredBitrate
        self.availableBitrate = availableBitrate
        self.availableBitrateSource = availableBitrateSource
        self.audioFallbackState = audioFallbackState
        self.samples = samples
    }
}

/// What the router knows about one transport: traffic and the quality of each direction.
public struct TransportStatistics: Equatable, Sendable, Codable {
    public var transportID: TransportID
    /// `plain` or `webrtc`.
    public var kind: String = "plain"
    /// The SRTP profile the router protects with (for WebRTC, what DTLS negotiated); nil before keys.
    public var srtpProfile: String?
    /// Where media goes: the client's address (for WebRTC, the pair ICE selected).
    public var remoteAddress: TransportAddress?
    public var bytesSent: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    /// Toward the client (meaningful when it subscribes).
    public var downlink: LinkStatistics
    /// From the client (meaningful when it publishes).
    public var uplink: LinkStatistics

    public init(transportID: TransportID, downlink: LinkStatistics, uplink: LinkStatistics) {
        self.transportID = transportID
        self.downlink = downlink
        self.uplink = uplink
    }
}

/// A point-in-time copy of a router's statistics.
public struct RouterStatistics: Equatable, Sendable, Codable {
    public var routerID: RouterID
    public var producers: [ProducerStatistics]
    public var consumers: [ConsumerStatistics]
    public var transports: [TransportStatistics] = []
    /// The producer the router counts as the dominant speaker (`MediaEvent.dominantSpeakerChanged`).
    public var dominantSpeaker: ProducerID?
    /// Packets dropped, by reason (`authentication`, `malformed`, `unknownSSRC`, `wrongSource`, `oversize`, ...).
    public var drops: [String: UInt64]

    public init(
        routerID: RouterID, producers: [ProducerStatistics], consumers: [ConsumerStatistics], drops: [String: UInt64],
        transports: [TransportStatistics] = [], dominantSpeaker: ProducerID? = nil
    ) {
        self.routerID = routerID
        self.dominantSpeaker = dominantSpeaker
        self.producers = producers
        self.consumers = consumers
        self.drops = drops
        self.transports = transports
    }

    /// These statistics and those of the same router's part on another worker, as one router's.
    public func merged(with other: RouterStatistics) -> RouterStatistics {
        RouterStatistics(
            routerID: routerID, producers: (producers + other.producers).sorted { $0.producerID.rawValue < $1.producerID.rawValue },
            consumers: (consumers + other.consumers).sorted { $0.consumerID.rawValue < $1.consumerID.rawValue },
            drops: drops.merging(other.drops, uniquingKeysWith: +),
            transports: (transports + other.transports).sorted { $0.transportID.rawValue < $1.transportID.rawValue },
            dominantSpeaker: dominantSpeaker ?? other.dominantSpeaker)
    }
}

/// Totals of the whole media plane since it started, for metrics: counters only grow, and include
/// routers that have closed.
public struct MediaPlaneStatistics: Equatable, Sendable, Codable {
    /// Worker threads, and how many of them still send segmented (UDP GSO): a worker stops at the
    /// first refusal from the kernel or device, or never starts when the configuration says so.
    public var workers = 0
    public var workersSegmentingSends = 0
    public var routers = 0
    public var transports = 0
    public var producers = 0
    public var consumers = 0
    public var packetsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    public var packetsSent: UInt64 = 0
    public var bytesSent: UInt64 = 0
    /// Packets dropped, by reason, as in `RouterStatistics.drops`.
    public var drops: [String: UInt64] = [:]
    /// Each worker's share, in worker order.
    public var workerDetails: [WorkerStatistics] = []

    public init() {}
}

/// One media worker's load and its relaying to the others, so an operator sees how routers spread.
public struct WorkerStatistics: Equatable, Sendable, Codable {
    public var index: Int
    public var routers = 0
    public var transports = 0
    public var consumers = 0
    /// Copies of producers whose home is another worker.
    public var producerCopies = 0
    public var packetsReceived: UInt64 = 0
    public var packetsSent: UInt64 = 0
    /// Time the worker spent handling sockets, relay rings and its tick since it started; its rate is
    /// the worker's busy share of one core.
    public var busyNanoseconds: UInt64 = 0
    /// Relay messages (packets to copies, requests home) written to other workers' rings and read from
    /// rings into this one; those read about a producer no longer here; those refused by a full ring.
    public var relayMessagesOut: UInt64 = 0
    public var relayMessagesIn: UInt64 = 0
    public var relayMessagesUnclaimed: UInt64 = 0
    public var relayDrops: UInt64 = 0
    /// Messages waiting in the rings into this worker when it was asked.
    public var relayRingDepth = 0
    /// ICE-TCP: connections open now; accepted since the start; refused at accept by the limits on
    /// unverified connections; closed before ICE verified them (garbage, an unknown username, a failed
    /// check); closed for silence (no valid check in time, or nothing received for the consent timeout).
    public var tcpConnections = 0
    public var tcpConnectionsAccepted: UInt64 = 0
    public var tcpConnectionsRefused: UInt64 = 0
    public var tcpConnectionsClosedUnverified: UInt64 = 0
    public var tcpConnectionsTimedOut: UInt64 = 0
    /// Overload shedding: the least and the longest a packet waited in the worker's sockets in the
    /// last evaluation (100 ms; the least grows only when the worker falls behind); subscribers whose
    /// video it has off now; packets per second forwarded (smoothed over about a second); steps it
    /// took off and back on since the start.
    public var queueDelayNanoseconds: UInt64 = 0
    public var worstQueueDelayNanoseconds: UInt64 = 0
    public var videoShedSubscribers = 0
    public var forwardedPacketsPerSecond = 0.0
    public var sheddingSteps: UInt64 = 0
    public var restoringSteps: UInt64 = 0

    public init(index: Int) {
        self.index = index
    }
}
