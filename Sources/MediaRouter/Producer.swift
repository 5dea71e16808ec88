import MediaControl
import Quality
import RTPWire

/// One published track arriving on a transport, in one encoding or several (simulcast layers, each
/// a `ProducerEncoding` with its own recovery state). It hands each packet to its consumers, which
/// pick the encoding they forward.
///
/// Confined to its worker's thread.
final class Producer {
    let id: ProducerID
    let options: ProducerOptions
    unowned let transport: Transport
    /// The SSRC the router uses as the sender of RTCP feedback to the publisher.
    let feedbackSSRC: UInt32
    /// The track's encodings, lowest layer first; one unless the track is simulcast.
    let encodings: [ProducerEncoding]

    /// The consumers to forward to: an immutable snapshot, replaced whenever the set changes, so the
    /// packet path iterates without copying or locking.
    private(set) var consumers: [Consumer] = []

    /// Sequence numbers collected for one NACK packet; preallocated so the timer path does not allocate.
    private let nackScratch: UnsafeMutablePointer<UInt16>
    static let nacksPerTick = 64
    private(set) var nacksSent: UInt64 = 0
    private(set) var keyFrameRequestsSent: UInt64 = 0
    private var lastPacketAt: UInt64?
    /// The publisher's audio-fallback policy has the video off: nothing reaches the consumers.
    var isSuspendedForUplinkQuality = false
    private var isIdle = false
    var lastReportAt: UInt64 = 0
    /// The layers as last told to signaling (`producerLayersChanged`).
    private var announcedLayers: [VideoLayer]

    init(id: ProducerID, options: ProducerOptions, transport: Transport, configuration: MediaRouterConfiguration) {
        self.id = id
        self.options = options
        self.transport = transport
        feedbackSSRC = UInt32.random(in: 1...UInt32.max)
        nackScratch = .allocate(capacity: Self.nacksPerTick)
        announcedLayers = options.layers
        if options.layers.isEmpty {
            encodings = [
                ProducerEncoding(index: 0, ssrc: options.ssrc, rtxSSRC: options.rtxSSRC, layer: nil, options: options, configuration: configuration)
            ]
        } else {
            encodings = options.layers.enumerated().map { index, layer in
                ProducerEncoding(index: index, ssrc: layer.ssrc, rtxSSRC: layer.rtxSSRC, layer: layer, options: options, configuration: configuration)
            }
        }
    }

    deinit {
        nackScratch.deallocate()
    }

    var ssrc: UInt32 { options.ssrc }
    /// The SSRCs the track arrives with now: those announced and those learned from rids.
    var ssrcs: [UInt32] { encodings.flatMap { $0.isBound ? [$0.ssrc] + ($0.rtxSSRC.map { [$0] } ?? []) : [] } }
    /// Bytes received over every encoding.
    var bytesReceived: UInt64 { encodings.reduce(0) { $0 &+ $1.bytesReceived } }
    var kind: MediaKind { options.kind }
    /// Whether the track is simulcast: its consumers choose a layer.
    var isLayered: Bool { !options.layers.isEmpty }

    func add(_ consumer: Consumer) {
        consumers = consumers + [consumer]
    }

    func remove(_ consumer: Consumer) {
        consumers = consumers.filter { $0 !== consumer }
    }

    /// The encoding a packet with `ssrc` (media or RTX) belongs to.
    @inline(__always)
    func encoding(forSSRC ssrc: UInt32) -> ProducerEncoding? {
        for encoding in encodings where encoding.carries(ssrc) { return encoding }
        return nil
    }

    /// A packet with an SSRC nobody announced may name one of this track's layers by its RTP stream
    /// id (or, for RTX, its repaired stream id): that layer takes the SSRC, if it has none yet.
    /// Returns whether it did. Runs once per new SSRC, never for a known one.
    func learnSSRC(of packet: RTPPacket) -> Bool {
        guard let streamIDExtension = options.rtpStreamIDExtensionID else { return false }
        if let rid = packet.rtpStreamID(id: streamIDExtension) {
            return encodings.first { $0.layer?.rid == rid }?.learn(ssrc: packet.ssrc, repair: false) ?? false
        }
        if let repairedExtension = options.repairedRTPStreamIDExtensionID, let rid = packet.repairedRTPStreamID(id: repairedExtension) {
            return encodings.first { $0.layer?.rid == rid }?.learn(ssrc: packet.ssrc, repair: true) ?? false
        }
        return false
    }

    /// Handles one packet from the publisher: bookkeeping, then every consumer.
    func receive(_ incoming: RTPPacket, now: UInt64) {
        var packet = incoming
        guard let encoding = encoding(forSSRC: packet.ssrc) else { return }
        if packet.ssrc != encoding.ssrc {
            guard unwrapRetransmission(&packet, into: encoding) else { return }
        }
        let descriptor = kind == .video ? Self.vp8Descriptor(packet) : nil
        encoding.record(packet, temporalLayer: descriptor?.temporalLayerID, now: now)
        lastPacketAt = now
        if isIdle {
            isIdle = false
            transport.worker.events.yield(.producerActive(id))
        }
        let isKeyFrame = descriptor?.isKeyFrame == true
        if isKeyFrame {
            encoding.keyFrameRequests.keyFrameReceived(now: now)
            if isLayered, let descriptor { encoding.recordKeyFrame(packet, descriptor: descriptor) }
        }
        guard !isSuspendedForUplinkQuality else { return }
        let frame = VideoFrameInfo(encoding: encoding.index, descriptor: descriptor, isKeyFrame: isKeyFrame)
        for consumer in consumers {
            consumer.forward(packet, frame: frame, now: now)
        }
    }

    /// Asks the publisher for a key frame of `encoding`, folded with other requests into one per
    /// throttle window (a shorter one when the request is a new receiver's first:
    /// `KeyFrameRequestThrottle`).
    func requestKeyFrame(encoding index: Int = 0, now: UInt64, forNewReceiver: Bool = false) {
        // Until the publisher's address is known nothing can reach it, and its first frame will be a
        // key frame anyway; counting the request as sent would hold back the next real one.
        guard transport.isConnected, encodings.indices.contains(index) else { return }
        let encoding = encodings[index]
        if encoding.keyFrameRequests.request(now: now, forNewReceiver: forNewReceiver) { sendPictureLossIndication(encoding) }
    }

    /// Timer work: NACKs for gaps, deferred key-frame requests, idleness, rates, receiver reports.
    func tick(now: UInt64, reportInterval: UInt64, idleTimeout: UInt64) {
        for encoding in encodings {
            if encoding.nackGenerator != nil { sendNacks(encoding, now: now) }
            if encoding.keyFrameRequests.due(now: now) { sendPictureLossIndication(encoding) }
            encoding.updateRate(now: now)
        }
        if isLayered { announceLayers() }
        if !isIdle, let lastPacketAt, now - lastPacketAt >= idleTimeout {
            isIdle = true
            transport.worker.events.yield(.producerIdle(id))
        }
        if now - lastReportAt >= reportInterval {
            lastReportAt = now
            for encoding in encodings { sendReceiverReport(encoding, now: now) }
        }
    }

    /// Packets expected and lost since the previous call, for the publisher's uplink quality. A
    /// packet that arrived only after the router NACKed it counts as lost here: the path lost it, and
    /// a publisher that repairs every loss by retransmission would otherwise look clean however bad
    /// its uplink (a WebRTC receiver sees the same, since retransmissions come on the RTX stream).
    /// The receiver reports to the publisher keep RFC 3550's count.
    func takeUplinkInterval() -> ReportInterval {
        encodings.reduce(ReportInterval(packetsExpected: 0, packetsLost: 0)) { $0 + $1.takeUplinkInterval() }
    }

    var jitterSeconds: Double {
        encodings.reduce(0) { max($0, $1.statistics.jitter) } / Double(options.codec.clockRate)
    }

    /// Tells signaling what the layers turned out to be, when a picture size is new or the frame
    /// rate moved by more than a quarter since the last time.
    private func announceLayers() {
        var changed = false
        var learnedSSRCs = false
        var layers = announcedLayers
        for (index, encoding) in encodings.enumerated() {
            if let size = encoding.pictureWidthAndHeight, size != (layers[index].width, layers[index].height) {
                (layers[index].width, layers[index].height) = size
                changed = true
            }
            let frameRate = encoding.frameRate.rounded()
            if frameRate > 0, abs(frameRate - layers[index].frameRate) > layers[index].frameRate / 4 {
                layers[index].frameRate = frameRate
                changed = true
            }
            if layers[index].ssrc == nil, encoding.isBound {
                layers[index].ssrc = encoding.ssrc
                learnedSSRCs = true
            }
            if layers[index].rtxSSRC != encoding.rtxSSRC {
                layers[index].rtxSSRC = encoding.rtxSSRC
                learnedSSRCs = true
            }
        }
        // Kept even when there is nothing to tell, so the copy above is not made again every tick.
        guard changed || learnedSSRCs else { return }
        announcedLayers = layers
        if changed { transport.worker.events.yield(.producerLayersChanged(id, layers)) }
    }

    /// Records the publisher's sender report about `ssrc`, for LSR / DLSR in our receiver reports.
    func receivedSenderReport(ssrc: UInt32, ntpTimestamp: UInt64, now: UInt64) {
        encoding(forSSRC: ssrc)?.receivedSenderReport(ntpTimestamp: ntpTimestamp, now: now)
    }

    private func sendNacks(_ encoding: ProducerEncoding, now: UInt64) {
        var count = 0
        let capacity = Self.nacksPerTick
        let lost = nackScratch
        encoding.nackGenerator?.collect(now: now, roundTripTime: nil) { sequenceNumber in
            guard count < capacity else { return }
            lost[count] = sequenceNumber
            count += 1
        }
        guard count > 0, encoding.isBound else { return }
        nacksSent &+= 1
        let senderSSRC = feedbackSSRC
        let mediaSSRC = encoding.ssrc
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPGenericNACK.write(
                senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
                lostSequenceNumbers: UnsafeBufferPointer(start: lost, count: count), into: &writer)
        }
    }

    private func sendPictureLossIndication(_ encoding: ProducerEncoding) {
        guard encoding.isBound else { return }
        keyFrameRequestsSent &+= 1
        transport.worker.events.yield(.keyFrameNeeded(id))
        let senderSSRC = feedbackSSRC
        let mediaSSRC = encoding.ssrc
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &writer)
        }
    }

    private func sendReceiverReport(_ encoding: ProducerEncoding, now: UInt64) {
        guard let block = encoding.makeReportBlock(now: now) else { return }
        let senderSSRC = feedbackSSRC
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: CollectionOfOne(block), into: &writer)
            try RTCPSourceDescription.write(ssrc: senderSSRC, cname: Router.canonicalName, into: &writer)
        }
    }

    /// Turns an RFC 4588 retransmission (original sequence number in the first two payload bytes) back
    /// into the packet it repairs, in place.
    private func unwrapRetransmission(_ packet: inout RTPPacket, into encoding: ProducerEncoding) -> Bool {
        guard packet.ssrc == encoding.rtxSSRC, packet.payloadLength >= 2 else { return false }
        let payload = packet.payload
        let originalSequenceNumber = UInt16(payload[0]) << 8 | UInt16(payload[1])
        do throws(RTPPacketError) {
            try packet.removeLeadingPayloadBytes(2)
        } catch {
            return false
        }
        packet.ssrc = encoding.ssrc
        packet.sequenceNumber = originalSequenceNumber
        packet.payloadType = options.codec.payloadType
        return true
    }

    private static func vp8Descriptor(_ packet: RTPPacket) -> VP8PayloadDescriptor? {
        do throws(VP8DescriptorError) {
            return try VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(packet.payload))
        } catch {
            return nil
        }
    }

    func snapshot() -> ProducerStatistics {
        var result = ProducerStatistics(producerID: id, kind: kind)
        for encoding in encodings {
            result.packetsReceived += encoding.packetsReceived
            result.bytesReceived += encoding.bytesReceived
            result.packetsLost += encoding.statistics.cumulativeLost
        }
        result.jitterSeconds = jitterSeconds
        result.nacksSent = nacksSent
        result.keyFrameRequestsSent = keyFrameRequestsSent
        if isLayered { result.layerBitrates = encodings.map { $0.measuredBitrate ?? 0 } }
        return result
    }
}

/// What the producer learned of a packet that every consumer needs: which encoding it belongs to and
/// its VP8 descriptor, parsed once rather than once per consumer.
struct VideoFrameInfo {
    let encoding: Int
    let descriptor: VP8PayloadDescriptor?
    let isKeyFrame: Bool
}

extension Duration {
    /// The duration in whole nanoseconds, for the media plane's UInt64 clock.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
