import MediaControl
import Quality
import RTPWire

/// One RTP encoding of a producer: the only one, or one simulcast layer. It keeps what recovery
/// needs per SSRC (receiver statistics, a retransmission ring, NACK and key-frame request state) and
/// measures the rate the encoding arrives at, which the layer selection budgets with.
///
/// Confined to its worker's thread.
final class ProducerEncoding {
    /// The encoding's place among its producer's layers, lowest first (0 for one encoding).
    let index: Int
    let ssrc: UInt32
    let rtxSSRC: UInt32?
    /// What the publisher declared, for a simulcast layer.
    let layer: VideoLayer?

    private(set) var statistics: ReceiverStatistics
    var nackGenerator: NackGenerator?
    let retransmissions: RetransmissionBuffer?
    var keyFrameRequests: KeyFrameRequestThrottle
    private(set) var packetsReceived: UInt64 = 0
    private(set) var bytesReceived: UInt64 = 0
    private(set) var lastPacketAt: UInt64?
    /// The highest VP8 temporal layer id seen, nil while packets carry none.
    private(set) var highestTemporalLayer: UInt8?
    /// Expected and lost counts at the last uplink sample.
    private var expectedAtLastSample: Int64 = 0
    private var lostAtLastSample: Int64 = 0
    /// Packets that filled a gap the router had NACKed, since the last uplink sample.
    private var repairedSinceSample = 0
    /// Smoothed bits per second over the last rate windows, nil before the first window closed.
    private(set) var measuredBitrate: Double?
    private var rateWindowStart: UInt64?
    private var bytesAtRateWindowStart: UInt64 = 0

    /// How long a rate window lasts, and how long after its last packet an encoding counts as stopped.
    static let rateWindow: UInt64 = 500_000_000
    static let inactiveAfter: UInt64 = 1_500_000_000

    init(index: Int, ssrc: UInt32, rtxSSRC: UInt32?, layer: VideoLayer?, options: ProducerOptions, configuration: MediaRouterConfiguration) {
        self.index = index
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.layer = layer
        statistics = ReceiverStatistics(clockRate: options.codec.clockRate)
        keyFrameRequests = KeyFrameRequestThrottle(interval: UInt64(configuration.keyFrameRequestInterval.nanoseconds))
        if options.kind == .video {
            nackGenerator = NackGenerator()
            retransmissions = RetransmissionBuffer(capacity: configuration.retransmissionBufferPackets)
        } else {
            nackGenerator = nil
            retransmissions = nil
        }
    }

    /// Bookkeeping of one packet already turned back into the encoding's own (not RTX).
    @inline(__always)
    func record(_ packet: RTPPacket, temporalLayer: UInt8?, now: UInt64) {
        let sequenceNumber = packet.sequenceNumber
        if nackGenerator?.isMissing(sequenceNumber) == true { repairedSinceSample += 1 }
        _ = statistics.record(sequenceNumber: sequenceNumber, rtpTimestamp: packet.timestamp, arrivalNanoseconds: now)
        nackGenerator?.received(sequenceNumber: sequenceNumber, now: now)
        packetsReceived &+= 1
        bytesReceived &+= UInt64(packet.length)
        lastPacketAt = now
        if let temporalLayer, highestTemporalLayer.map({ temporalLayer > $0 }) ?? true {
            highestTemporalLayer = temporalLayer
        }
        retransmissions?.store(UnsafeRawBufferPointer(packet.bytes), sequenceNumber: sequenceNumber, now: now)
    }

    /// Whether the publisher sends this encoding now.
    func isActive(now: UInt64) -> Bool {
        guard let lastPacketAt else { return false }
        return now &- lastPacketAt < Self.inactiveAfter
    }

    /// The bits per second the layer selection counts this encoding at: what it measured, else what
    /// the publisher declared, else a guess from the picture size (0.1 bit per pixel and frame).
    var budgetedBitrate: Double {
        if let measuredBitrate, measuredBitrate > 0 { return measuredBitrate }
        if let layer, layer.bitrate > 0 { return Double(layer.bitrate) }
        guard let layer else { return 0 }
        return Double(layer.width * layer.height) * max(layer.frameRate, 1) * 0.1
    }

    /// Temporal layers the encoding carries (1 when its packets name none).
    var temporalLayerCount: Int { Int(highestTemporalLayer ?? 0) + 1 }

    /// Closes a rate window when one is due.
    func updateRate(now: UInt64) {
        guard let start = rateWindowStart else {
            rateWindowStart = now
            bytesAtRateWindowStart = bytesReceived
            return
        }
        guard now &- start >= Self.rateWindow else { return }
        let bitrate = Double(bytesReceived &- bytesAtRateWindowStart) * 8 / (Double(now &- start) / 1e9)
        measuredBitrate = measuredBitrate.map { 0.6 * $0 + 0.4 * bitrate } ?? bitrate
        rateWindowStart = now
        bytesAtRateWindowStart = bytesReceived
    }

    /// Packets expected and lost since the previous call; see `Producer.takeUplinkInterval()`.
    func takeUplinkInterval() -> ReportInterval {
        let expected = statistics.packetsExpected
        let lost = statistics.cumulativeLost
        let repaired = repairedSinceSample
        defer {
            expectedAtLastSample = expected
            lostAtLastSample = lost
            repairedSinceSample = 0
        }
        return ReportInterval(expectedDelta: Int(expected - expectedAtLastSample), lostDelta: Int(lost - lostAtLastSample) + repaired)
    }

    func receivedSenderReport(ntpTimestamp: UInt64, now: UInt64) {
        statistics.recordSenderReport(ntpTimestamp: ntpTimestamp, arrivalNanoseconds: now)
    }

    func makeReportBlock(now: UInt64) -> RTCPReportBlock? {
        statistics.makeReportBlock(ssrc: ssrc, nowNanoseconds: now)
    }
}
