import MediaControl
import Quality
import RTPWire

/// One published track arriving on a transport. It keeps what recovery needs (receiver statistics, a
/// retransmission ring, NACK and key-frame request state) and hands each packet to its consumers.
///
/// Confined to its worker's thread.
final class Producer {
    let id: ProducerID
    let options: ProducerOptions
    unowned let transport: Transport
    /// The SSRC the router uses as the sender of RTCP feedback to the publisher.
    let feedbackSSRC: UInt32

    /// The consumers to forward to: an immutable snapshot, replaced whenever the set changes, so the
    /// packet path iterates without copying or locking.
    private(set) var consumers: [Consumer] = []

    private(set) var statistics: ReceiverStatistics
    private var nackGenerator: NackGenerator?
    /// Sequence numbers collected for one NACK packet; preallocated so the timer path does not allocate.
    private let nackScratch: UnsafeMutablePointer<UInt16>
    static let nacksPerTick = 64
    private var keyFrameRequests: KeyFrameRequestThrottle
    let retransmissions: RetransmissionBuffer?
    private(set) var packetsReceived: UInt64 = 0
    private(set) var bytesReceived: UInt64 = 0
    private(set) var nacksSent: UInt64 = 0
    private(set) var keyFrameRequestsSent: UInt64 = 0
    private var lastPacketAt: UInt64?
    /// The publisher's audio-fallback policy has the video off: nothing reaches the consumers.
    var isSuspendedForUplinkQuality = false
    /// Expected and lost counts at the last uplink sample.
    private var expectedAtLastSample: Int64 = 0
    private var lostAtLastSample: Int64 = 0
    /// Packets that filled a gap the router had NACKed, since the last uplink sample.
    private var repairedSinceSample = 0
    private var isIdle = false
    var lastReportAt: UInt64 = 0

    init(id: ProducerID, options: ProducerOptions, transport: Transport, configuration: MediaRouterConfiguration) {
        self.id = id
        self.options = options
        self.transport = transport
        feedbackSSRC = UInt32.random(in: 1...UInt32.max)
        statistics = ReceiverStatistics(clockRate: options.codec.clockRate)
        nackScratch = .allocate(capacity: Self.nacksPerTick)
        keyFrameRequests = KeyFrameRequestThrottle(interval: UInt64(configuration.keyFrameRequestInterval.nanoseconds))
        if options.kind == .video {
            nackGenerator = NackGenerator()
            retransmissions = RetransmissionBuffer(capacity: configuration.retransmissionBufferPackets)
        } else {
            retransmissions = nil
        }
    }

    deinit {
        nackScratch.deallocate()
    }

    var ssrc: UInt32 { options.ssrc }
    var rtxSSRC: UInt32? { options.rtxSSRC }
    var kind: MediaKind { options.kind }

    func add(_ consumer: Consumer) {
        consumers = consumers + [consumer]
    }

    func remove(_ consumer: Consumer) {
        consumers = consumers.filter { $0 !== consumer }
    }

    /// Handles one packet from the publisher: bookkeeping, then every consumer.
    func receive(_ incoming: RTPPacket, now: UInt64) {
        var packet = incoming
        if packet.ssrc != options.ssrc {
            guard unwrapRetransmission(&packet) else { return }
        }
        let sequenceNumber = packet.sequenceNumber
        if nackGenerator?.isMissing(sequenceNumber) == true { repairedSinceSample += 1 }
        _ = statistics.record(sequenceNumber: sequenceNumber, rtpTimestamp: packet.timestamp, arrivalNanoseconds: now)
        nackGenerator?.received(sequenceNumber: sequenceNumber, now: now)
        packetsReceived &+= 1
        bytesReceived &+= UInt64(packet.length)
        lastPacketAt = now
        if isIdle {
            isIdle = false
            transport.worker.events.yield(.producerActive(id))
        }
        let isKeyFrame = kind == .video && Self.isVP8KeyFrame(packet)
        if isKeyFrame { keyFrameRequests.keyFrameReceived(now: now) }
        retransmissions?.store(UnsafeRawBufferPointer(packet.bytes), sequenceNumber: sequenceNumber, now: now)
        guard !isSuspendedForUplinkQuality else { return }
        for consumer in consumers {
            consumer.forward(packet, isKeyFrame: isKeyFrame, now: now)
        }
    }

    /// Asks the publisher for a key frame, folded with other requests into one per throttle window
    /// (a shorter one when the request is a new receiver's first: `KeyFrameRequestThrottle`).
    func requestKeyFrame(now: UInt64, forNewReceiver: Bool = false) {
        // Until the publisher's address is known nothing can reach it, and its first frame will be a
        // key frame anyway; counting the request as sent would hold back the next real one.
        guard transport.isConnected else { return }
        if keyFrameRequests.request(now: now, forNewReceiver: forNewReceiver) { sendPictureLossIndication() }
    }

    /// Timer work: NACKs for gaps, deferred key-frame requests, idleness, receiver reports.
    func tick(now: UInt64, reportInterval: UInt64, idleTimeout: UInt64) {
        if nackGenerator != nil { sendNacks(now: now) }
        if keyFrameRequests.due(now: now) { sendPictureLossIndication() }
        if !isIdle, let lastPacketAt, now - lastPacketAt >= idleTimeout {
            isIdle = true
            transport.worker.events.yield(.producerIdle(id))
        }
        if now - lastReportAt >= reportInterval {
            lastReportAt = now
            sendReceiverReport(now: now)
        }
    }

    /// Packets expected and lost since the previous call, for the publisher's uplink quality. A
    /// packet that arrived only after the router NACKed it counts as lost here: the path lost it, and
    /// a publisher that repairs every loss by retransmission would otherwise look clean however bad
    /// its uplink (a WebRTC receiver sees the same, since retransmissions come on the RTX stream).
    /// The receiver reports to the publisher keep RFC 3550's count.
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

    var jitterSeconds: Double { statistics.jitter / Double(options.codec.clockRate) }

    /// Records the publisher's sender report, for LSR / DLSR in our receiver reports.
    func receivedSenderReport(ntpTimestamp: UInt64, now: UInt64) {
        statistics.recordSenderReport(ntpTimestamp: ntpTimestamp, arrivalNanoseconds: now)
    }

    private func sendNacks(now: UInt64) {
        var count = 0
        let capacity = Self.nacksPerTick
        let lost = nackScratch
        nackGenerator?.collect(now: now, roundTripTime: nil) { sequenceNumber in
            guard count < capacity else { return }
            lost[count] = sequenceNumber
            count += 1
        }
        guard count > 0 else { return }
        nacksSent &+= 1
        let senderSSRC = feedbackSSRC
        let mediaSSRC = options.ssrc
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPGenericNACK.write(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                lostSequenceNumbers: UnsafeBufferPointer(start: lost, count: count), into: &writer)
        }
    }

    private func sendPictureLossIndication() {
        keyFrameRequestsSent &+= 1
        transport.worker.events.yield(.keyFrameNeeded(id))
        let senderSSRC = feedbackSSRC
        let mediaSSRC = options.ssrc
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &writer)
        }
    }

    private func sendReceiverReport(now: UInt64) {
        guard let block = statistics.makeReportBlock(ssrc: options.ssrc, nowNanoseconds: now) else { return }
        let senderSSRC = feedbackSSRC
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: CollectionOfOne(block), into: &writer)
            try RTCPSourceDescription.write(ssrc: senderSSRC, cname: Router.canonicalName, into: &writer)
        }
    }

    /// Turns an RFC 4588 retransmission (original sequence number in the first two payload bytes) back
    /// into the packet it repairs, in place.
    private func unwrapRetransmission(_ packet: inout RTPPacket) -> Bool {
        guard packet.ssrc == options.rtxSSRC, packet.payloadLength >= 2 else { return false }
        let payload = packet.payload
        let originalSequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
        do throws(RTPPacketError) {
            try packet.removeLeadingPayloadBytes(2)
        } catch {
            return false
        }
        packet.ssrc = options.ssrc
        packet.sequenceNumber = originalSequenceNumber
        packet.payloadType = options.codec.payloadType
        return true
    }

    private static func isVP8KeyFrame(_ packet: RTPPacket) -> Bool {
        do throws(VP8DescriptorError) {
            return try VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload)).isKeyFrame
        } catch {
            return false
        }
    }

    func snapshot() -> ProducerStatistics {
        var result = ProducerStatistics(producerID: id, kind: kind)
        result.packetsReceived = packetsReceived
        result.bytesReceived = bytesReceived
        result.packetsLost = statistics.cumulativeLost
        result.jitterSeconds = jitterSeconds
        result.nacksSent = nacksSent
        result.keyFrameRequestsSent = keyFrameRequestsSent
        return result
    }
}

extension Duration {
    /// The duration in whole nanoseconds, for the media plane's UInt64 clock.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
