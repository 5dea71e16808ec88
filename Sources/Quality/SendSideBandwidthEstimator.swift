/// Estimates the bandwidth toward one receiver from the transport-wide feedback about what the router
/// sent it, in the manner of Google congestion control: a delay-based rate (packet groups → trendline
/// → overuse detector → AIMD) under a loss-based ceiling, raised by probes when the router wants more
/// than the estimate.
///
/// A pure state machine: feed it each packet a feedback message reports (`record`, in send order),
/// then `finishFeedback`; ask `nextProbe` on each tick. Every method takes `now` (monotonic
/// nanoseconds). Allocates nothing after `init`.
public struct SendSideBandwidthEstimator: Equatable, Sendable {
    /// Without a probe succeeding, the next waits this long.
    static let probeIntervalNanoseconds: UInt64 = 3_000_000_000
    /// A probe whose feedback has not come back by then has failed.
    static let probeTimeoutNanoseconds: UInt64 = 1_000_000_000
    /// A probe that proved this share of its target is followed by a higher one at once.
    static let probeContinuationShare = 0.7
    /// The least spread of arrivals in one feedback message that measures a bottleneck's rate
    /// (shorter spans are dominated by the receiver's timestamp granularity and batching).
    static let minimumQueueSpanNanoseconds: Int64 = 20_000_000

    public let configuration: BandwidthEstimatorConfiguration
    private var grouping = PacketGrouping()
    private var trendline = TrendlineFilter()
    private var detector = OveruseDetector()
    private var rateController: AIMDRateController
    private var lossBound = LossBasedBound()
    private var acknowledged = AcknowledgedRateMeter()
    private var usageInFeedback: BandwidthUsage?
    /// The arrivals of the feedback message being taken: on overuse, a queue is building, and they
    /// arrive at the bottleneck's rate.
    private var arrivalsInFeedback = ArrivalSpread()
    /// The highest of those rates since overuse began: the feedback that follows a burst reports the
    /// packets after it, which no longer queue, while the detector still says overusing.
    private var queueRateInOveruse: Double?
    private var probe: ProbeMeasurement?
    private var nextProbeID = 1
    private var lastProbeEnded: UInt64?
    private var chainProbes = true
    /// Round-trip time, seconds, as the caller last measured it.
    public var roundTripSeconds = 0.1
    /// What the router would send if the path allowed it; probes go up to it.
    public var desiredBitrate: Double?
    /// The current estimate, bits per second.
    public private(set) var estimate: Double
    /// The delay-based part's latest verdict.
    public private(set) var usage = BandwidthUsage.normal
    /// Feedback messages taken.
    public private(set) var feedbackCount = 0

    public init(configuration: BandwidthEstimatorConfiguration = BandwidthEstimatorConfiguration()) {
        self.configuration = configuration
        rateController = AIMDRateController(configuration: configuration)
        estimate = configuration.startBitrate
    }

    /// The rate the receiver acknowledged, when known.
    public var acknowledgedBitrate: Double? { acknowledged.bitrate }
    /// The share lost in the last interval the loss-based part judged.
    public var lossFraction: Double { lossBound.lastLossFraction }

    /// Takes one packet of a feedback message, in send order.
    public mutating func record(_ packet: PacketFeedback) {
        lossBound.count(received: packet.arrivalTime != nil)
        guard let arrival = packet.arrivalTime else { return }
        acknowledged.add(size: packet.size, arrivalTime: arrival)
        arrivalsInFeedback.add(size: packet.size, arrivalTime: arrival)
        if let cluster = packet.probeCluster, cluster == probe?.cluster.id {
            probe?.add(size: packet.size, arrivalTime: arrival)
        }
        guard let delta = grouping.add(sendTime: packet.sendTime, arrivalTime: arrival) else { return }
        let trend = trendline.update(delta)
        let verdict = detector.detect(
            trend: trend, deltaCount: trendline.deltaCount, sendDeltaMilliseconds: delta.sendDeltaMilliseconds,
            nowMilliseconds: delta.arrivalTimeMilliseconds)
        if usageInFeedback != .overusing { usageInFeedback = verdict }
    }

    /// Ends a feedback message: updates and returns the estimate.
    @discardableResult
    public mutating func finishFeedback(now: UInt64) -> Double {
        feedbackCount += 1
        if let verdict = usageInFeedback { usage = verdict }
        usageInFeedback = nil
        // A cut goes to 85 % of what the path carries. While the router forwards a low simulcast layer
        // the acknowledged rate is only what it sent; the packets that queued since overuse began (a
        // key frame's burst) show the bottleneck's own rate.
        if usage == .overusing {
            if arrivalsInFeedback.spanNanoseconds >= Self.minimumQueueSpanNanoseconds, let queued = arrivalsInFeedback.bitrate {
                queueRateInOveruse = max(queueRateInOveruse ?? 0, queued)
            }
        } else {
            queueRateInOveruse = nil
        }
        arrivalsInFeedback = ArrivalSpread()
        let throughput = queueRateInOveruse.map { max($0, acknowledged.bitrate ?? 0) } ?? acknowledged.bitrate
        var delayBased = rateController.update(
            usage: usage, acknowledgedBitrate: throughput, roundTripSeconds: roundTripSeconds, now: now)
        if let measurement = probe, measurement.isComplete {
            probe = nil
            lastProbeEnded = now
            let proven = measurement.provenBitrate ?? 0
            chainProbes = proven >= measurement.cluster.targetBitrate * Self.probeContinuationShare
            // Either part may be what holds the estimate down: the proven rate lifts both.
            if usage != .overusing, proven > estimate {
                rateController.raise(to: proven)
                lossBound.raise(to: proven)
                delayBased = rateController.bitrate
            }
        }
        let ceiling = lossBound.update(estimate: estimate, delayBased: delayBased, acknowledged: acknowledged.bitrate, now: now)
        estimate = min(delayBased, ceiling ?? delayBased)
        estimate = min(max(estimate, configuration.minimumBitrate), configuration.maximumBitrate)
        return estimate
    }

    /// The probe to send now, if one is due: when the router wants more than the estimate, delay is
    /// normal, and either the last probe proved most of its target or a while has passed since it.
    /// Each probe tests twice the estimate (at most 1.25 × what the router wants) with packets of
    /// `packetBytes`.
    public mutating func nextProbe(now: UInt64, packetBytes: Int = 1200) -> ProbeCluster? {
        if let running = probe {
            guard now &- running.startedAt >= Self.probeTimeoutNanoseconds else { return nil }
            probe = nil
            lastProbeEnded = now
            chainProbes = false
        }
        guard let desired = desiredBitrate, desired > estimate, usage == .normal, estimate < configuration.maximumBitrate
        else { return nil }
        if !chainProbes, let ended = lastProbeEnded, now &- ended < Self.probeIntervalNanoseconds { return nil }
        let target = min(2 * estimate, 1.25 * desired, configuration.maximumBitrate)
        let cluster = ProbeCluster(id: nextProbeID, targetBitrate: target, packetBytes: packetBytes)
        nextProbeID = nextProbeID == Int.max ? 1 : nextProbeID + 1
        probe = ProbeMeasurement(cluster: cluster, startedAt: now)
        chainProbes = false
        return cluster
    }
}
