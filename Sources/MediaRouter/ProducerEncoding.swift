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
    /// The SSRCs the encoding arrives with; for a layer named only by its rid, unknown (`isBound`
    /// false, `ssrc` 0) until the first packet that carries the rid (`learn`).
    private(set) var ssrc: UInt32
    private(set) var rtxSSRC: UInt32?
    private(set) var isBound: Bool
    /// What the publisher declared, for a simulcast layer.
    let layer: VideoLayer?
    /// The picture size of the last key frame, nil before the first.
    private(set) var pictureSize: VP8KeyFrameHeader?
    /// Frames per second measured over the last rate window, nil before the first window closed.
    private(set) var measuredFrameRate: Double?
    private var framesReceived: UInt64 = 0
    private var lastFrameTimestamp: UInt32?
    private var framesAtRateWindowStart: UInt64 = 0

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
    /// Smoothed packets per second likewise: what one more consumer of the encoding costs a worker.
    private(set) var measuredPacketRate: Double?
    private var rateWindowStart: UInt64?
    private var bytesAtRateWindowStart: UInt64 = 0
    private var packetsAtRateWindowStart: UInt64 = 0

    /// How long a rate window lasts.
    static let rateWindow: UInt64 = 500_000_000
    /// An encoding counts as stopped once this many of its frame intervals pass without a packet,
    /// within the bounds below: a layer the publisher stops is noticed in a quarter second at 30 fps
    /// (its subscribers' pictures freeze meanwhile), while a frame or two held up by jitter or loss
    /// is not taken for a stop, and a layer of a few frames a second is given the time it needs.
    static let stoppedAfterFrameIntervals = 5.0
    static let stoppedAfterBounds: ClosedRange<UInt64> = 250_000_000...1_500_000_000

    init(index: Int, ssrc: UInt32?, rtxSSRC: UInt32?, layer: VideoLayer?, options: ProducerOptions, configuration: MediaRouterConfiguration) {
        self.index = index
        self.ssrc = ssrc ?? 0
        self.rtxSSRC = rtxSSRC
        isBound = ssrc != nil
        self.layer = layer
        statistics = ReceiverStatistics(clockRate: options.codec.clockRate)
        keyFrameRequests = KeyFrameRequestThrottle(interval: UInt64(configuration.keyFrameRequestInterval.nanoseconds))
        if options.kind == .video {
            nackGenerator = NackGenerator()
            retransmissions = RetransmissionBuffer(
                capacity: configuration.retransmissionBufferPackets, maxAge: UInt64(configuration.retransmissionMaxAge.nanoseconds))
        } else {
            nackGenerator = nil
            retransmissions = nil
        }
    }

    /// Whether a packet with `ssrc` (media or RTX) belongs to this encoding.
    @inline(__always)
    func carries(_ ssrc: UInt32) -> Bool {
        isBound && (ssrc == self.ssrc || ssrc == rtxSSRC)
    }

    /// Takes `ssrc` as the encoding's media SSRC (`repair` false) or its RTX SSRC, when that one is
    /// still unknown. Only once: a packet naming the rid with yet another SSRC is not the encoding's.
    func learn(ssrc: UInt32, repair: Bool) -> Bool {
        if repair {
            guard rtxSSRC == nil, ssrc != self.ssrc || !isBound else { return false }
            rtxSSRC = ssrc
        } else {
            guard !isBound, ssrc != rtxSSRC else { return false }
            self.ssrc = ssrc
            isBound = true
        }
        return true
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
        if packet.timestamp != lastFrameTimestamp {
            lastFrameTimestamp = packet.timestamp
            framesReceived &+= 1
        }
        if let temporalLayer, highestTemporalLayer.map({ temporalLayer > $0 }) ?? true {
            highestTemporalLayer = temporalLayer
        }
        retransmissions?.store(UnsafeRawBufferPointer(packet.bytes), sequenceNumber: sequenceNumber, now: now)
    }

    /// Reads the picture size from a packet that starts a key frame.
    func recordKeyFrame(_ packet: RTPPacket, descriptor: VP8PayloadDescriptor) {
        let payload = UnsafeRawBufferPointer(packet.payload)
        guard let header = VP8KeyFrameHeader(payload: UnsafeRawBufferPointer(rebasing: payload[descriptor.length...])) else { return }
        pictureSize = header
    }

    /// The picture size the layer selection matches preferences against: what the last key frame
    /// said, else what the publisher declared; nil when neither is known.
    var pictureWidthAndHeight: (width: Int, height: Int)? {
        if let pictureSize { return (pictureSize.width, pictureSize.height) }
        guard let layer, layer.width > 0, layer.height > 0 else { return nil }
        return (layer.width, layer.height)
    }

    /// Frames per second at the full temporal rate: what the publisher declared, else what arrives.
    var frameRate: Double {
        if let layer, layer.frameRate > 0 { return layer.frameRate }
        return measuredFrameRate ?? 0
    }

    /// Whether the publisher sends this encoding now: a packet arrived within `stoppedAfter`.
    func isActive(now: UInt64) -> Bool {
        guard let lastPacketAt else { return false }
        return now &- lastPacketAt < stoppedAfter
    }

    /// Whether the publisher has sent this encoding at all.
    var hasArrived: Bool { lastPacketAt != nil }

    /// How long after its last packet the encoding counts as stopped, from its own frame rate
    /// (the longest bound while that is unknown).
    var stoppedAfter: UInt64 {
        let rate = frameRate
        guard rate > 0 else { return Self.stoppedAfterBounds.upperBound }
        let nanoseconds = UInt64(min(Self.stoppedAfterFrameIntervals / rate * 1e9, Double(Self.stoppedAfterBounds.upperBound)))
        return max(nanoseconds, Self.stoppedAfterBounds.lowerBound)
    }

    /// The bits per second the layer selection counts this encoding at: what it measured, else what
    /// the publisher declared, else a guess from the picture size (0.1 bit per pixel and frame).
    var budgetedBitrate: Double {
        if let measuredBitrate, measuredBitrate > 0 { return measuredBitrate }
        if let layer, layer.bitrate > 0 { return Double(layer.bitrate) }
        guard let size = pictureWidthAndHeight else { return 0 }
        return Double(size.width * size.height) * max(frameRate, 1) * 0.1
    }

    /// Temporal layers the encoding carries (1 when its packets name none).
    var temporalLayerCount: Int { Int(highestTemporalLayer ?? 0) + 1 }

    /// Closes a rate window when one is due.
    func updateRate(now: UInt64) {
        guard let start = rateWindowStart else {
            rateWindowStart = now
            bytesAtRateWindowStart = bytesReceived
            framesAtRateWindowStart = framesReceived
            packetsAtRateWindowStart = packetsReceived
            return
        }
        guard now &- start >= Self.rateWindow else { return }
        let seconds = Double(now &- start) / 1e9
        let bitrate = Double(bytesReceived &- bytesAtRateWindowStart) * 8 / seconds
        measuredBitrate = measuredBitrate.map { 0.6 * $0 + 0.4 * bitrate } ?? bitrate
        let frameRate = Double(framesReceived &- framesAtRateWindowStart) / seconds
        measuredFrameRate = measuredFrameRate.map { 0.6 * $0 + 0.4 * frameRate } ?? frameRate
        let packetRate = Double(packetsReceived &- packetsAtRateWindowStart) / seconds
        measuredPacketRate = measuredPacketRate.map { 0.6 * $0 + 0.4 * packetRate } ?? packetRate
        rateWindowStart = now
        bytesAtRateWindowStart = bytesReceived
        framesAtRateWindowStart = framesReceived
        packetsAtRateWindowStart = packetsReceived
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
        guard isBound else { return nil }
        return statistics.makeReportBlock(ssrc: ssrc, nowNanoseconds: now)
    }
}
