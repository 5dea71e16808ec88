import MediaControl
import Quality
import RTPWire

/// One producer forwarded to one subscriber's transport, in a sequence-number and timestamp space of
/// its own, so pausing and resuming are invisible to the receiver's decoder except as a gap in time.
///
/// Confined to its worker's thread.
final class Consumer {
    /// The largest packet the router makes by adding redundancy: well within any path's MTU.
    static let maximumRedundantPacketBytes = 1200
    let id: ConsumerID
    unowned let producer: Producer
    unowned let transport: Transport
    let ssrc: UInt32
    let payloadType: UInt8
    /// Where retransmissions go as RFC 4588 packets, when they do not go on `ssrc`.
    let retransmissionStream: (ssrc: UInt32, payloadType: UInt8)?
    /// The abs-send-time extension id this consumer restamps with the router's clock (WebRTC): a
    /// subscriber's bandwidth estimator then measures the router-to-subscriber path, and sees the
    /// padding probes, which carry the same clock, on one timeline with the media.
    let sendTimeExtensionID: UInt8?
    private var retransmissionSequenceNumber = UInt16.random(in: 0...UInt16.max)
    private(set) var pauseReasons: Set<ConsumerPauseReason>
    /// Video forwards nothing after a start or resume until a key frame arrives, because the decoder
    /// could not use the delta frames before it.
    private(set) var waitingForKeyFrame: Bool
    private var rewriter: ConsumerSequenceRewriter
    /// Of a simulcast producer: which layer flows and which one is next (nil for one encoding).
    /// Consumer+Layers drives it.
    var layerSelector: SimulcastLayerSelector?
    var layerPreference: VideoLayerPreference
    /// Of a simulcast producer: the highest temporal layer forwarded, and the one to move to at the
    /// next picture that allows it.
    private(set) var temporalLayer = Int.max
    var targetTemporalLayer = Int.max
    private var pictureRewriter = VP8PictureRewriter()
    /// The last layer state announced, so only changes become events.
    var announcedLayerState: VideoLayerState?
    /// The newest packet forwarded ended a frame: a probe slipped in here splits nothing.
    private var isAtFrameBoundary = false
    private(set) var packetsSent: UInt64 = 0
    private(set) var payloadBytesSent: UInt64 = 0
    private(set) var bytesSent: UInt64 = 0
    private(set) var retransmittedPackets: UInt64 = 0
    private(set) var retransmissionsOverBudget: UInt64 = 0
    private(set) var redundantPacketsSent: UInt64 = 0
    /// Plain Opus packets the router made RED itself toward a lossy subscriber that takes RED.
    private(set) var redundancyAddedPackets: UInt64 = 0
    /// The latest frames forwarded, for that redundancy: made (once) when the consumer is audio on a
    /// transport that takes RED, so the packet path allocates nothing.
    private var recentAudio: RecentAudioFrames?
    private(set) var nacksReceived: UInt64 = 0
    private(set) var keyFrameRequestsReceived: UInt64 = 0
    private(set) var probePacketsSent: UInt64 = 0
    private(set) var lastReportBlock: RTCPReportBlock?
    private var skippedAtLastReport: UInt64 = 0
    private(set) var roundTripTimeSeconds: Double?
    var lastReportAt: UInt64 = 0

    init(
        id: ConsumerID, producer: Producer, transport: Transport, pauseReasons: Set<ConsumerPauseReason>,
        preference: VideoLayerPreference = .unconstrained, payloadTypes: ReceiverPayloadTypes? = nil, now: UInt64
    ) {
        self.id = id
        self.producer = producer
        self.transport = transport
        ssrc = UInt32.random(in: 1...UInt32.max)
        let codec = producer.options.codec
        payloadType = payloadTypes?.media ?? codec.payloadType
        // WebRTC receivers count a packet repaired on its own SSRC as received, so their reports would
        // hide the loss the audio-fallback policy judges; RTX keeps the two apart. The receiver's RTX
        // payload type when it chose one (none when it offered none), else the publisher's, else the
        // next dynamic one.
        let retransmissionPayloadType =
            payloadTypes.map(\.retransmission) ?? codec.rtxPayloadType ?? (codec.payloadType == 127 ? 126 : codec.payloadType + 1)
        retransmissionStream =
            transport.webRTC != nil && producer.kind == .video
            ? retransmissionPayloadType.map { (UInt32.random(in: 1...UInt32.max), $0) }
            : nil
        sendTimeExtensionID = transport.webRTC != nil ? producer.options.absoluteSendTimeID : nil
        self.pauseReasons = pauseReasons
        waitingForKeyFrame = producer.kind == .video
        rewriter = ConsumerSequenceRewriter(clockRate: producer.options.codec.clockRate)
        layerPreference = preference
        // Probes go in the consumer's own sequence where there is no retransmission stream to carry
        // them, and the history keeps NACKs right around the padding.
        if producer.kind == .video, retransmissionStream == nil, transport.transportWideSequenceID != nil || producer.isLayered {
            rewriter.keepHistory()
        }
        if producer.isLayered {
            // Start low: the lowest layer costs least to get going, and the budget moves it up. A
            // relay leg's consumer carries its one layer from the start. A recording has no downlink
            // to spare: it starts on the top layer, so its file starts at the picture it keeps.
            layerSelector =
                preference.pinnedLayer.map { SimulcastLayerSelector(pinnedLayer: min(max($0, 0), producer.encodings.count - 1)) }
                ?? SimulcastLayerSelector(initialLayer: transport.recording == nil ? 0 : producer.encodings.count - 1)
        }
        // A consumer can forward nothing before its transport can send (a WebRTC transport's DTLS keys,
        // a plain transport's client address learned from its first packet); it asks when it can
        // (`Transport.startConsumersFromKeyFrames`), so the key frame is not spent before it could be sent.
        if pauseReasons.isEmpty, waitingForKeyFrame, transport.isConnected {
            producer.requestKeyFrame(encoding: targetEncoding, now: now, forNewReceiver: true)
        }
    }

    /// The encoding the consumer waits for or moves to (0 for one encoding).
    var targetEncoding: Int { layerSelector?.target ?? 0 }
    /// The encoding being forwarded.
    var currentEncoding: Int { layerSelector?.current ?? layerSelector?.target ?? 0 }

    var kind: MediaKind { producer.kind }
    var isForwarding: Bool { pauseReasons.isEmpty }

    /// Forwards one producer packet: copy into a worker send slot, rewrite, protect, queue.
    @inline(__always)
    func forward(_ packet: RTPPacket, frame: ForwardingInfo, now: UInt64) {
        // Nothing starts while nothing can be sent: a key frame passing before the transport can
        // send would count as the start, and the subscriber would get only the delta frames after it.
        guard pauseReasons.isEmpty, transport.isConnected else { return }
        if layerSelector != nil {
            guard admitsLayered(packet, frame: frame, now: now) else { return }
        } else if waitingForKeyFrame {
            guard frame.isKeyFrame else { return }
            waitingForKeyFrame = false
        }
        guard
            let mapped = rewriter.rewrite(
                sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, encoding: UInt8(truncatingIfNeeded: frame.encoding),
                now: now)
        else { return }
        if rewriter.keepsHistory, mapped.sequenceNumber == rewriter.lastSequenceNumber { isAtFrameBoundary = packet.marker }
        if send(packet, sequenceNumber: mapped.sequenceNumber, timestamp: mapped.timestamp, frame: frame, now: now) {
            packetsSent &+= 1
            payloadBytesSent &+= UInt64(packet.payloadLength)
        }
    }

    /// Whether a packet of a simulcast producer goes to this subscriber: its layer is the one flowing
    /// (moving to the target on the target's key frame, or starting on any key frame at or below it),
    /// and its temporal layer is not above the subscriber's.
    @inline(__always)
    private func admitsLayered(_ packet: RTPPacket, frame: ForwardingInfo, now: UInt64) -> Bool {
        if frame.encoding != layerSelector!.current {
            guard frame.isKeyFrame, layerSelector!.keyFrameArrived(layer: frame.encoding) else { return false }
            waitingForKeyFrame = false
            rewriter.resync()
            pictureRewriter.startRun()
            temporalLayer = targetTemporalLayer
            announceLayerState()
        }
        guard let descriptor = frame.descriptor, let temporal = descriptor.temporalLayerID else { return true }
        if descriptor.isStartOfFrame, temporalLayer != targetTemporalLayer {
            // Down at any picture; up only where the picture depends on the base layer alone.
            if targetTemporalLayer < temporalLayer || temporal == 0 || descriptor.isLayerSync {
                temporalLayer = targetTemporalLayer
                announceLayerState()
            }
        }
        guard Int(temporal) <= temporalLayer else {
            rewriter.drop(sequenceNumber: packet.sequenceNumber)
            pictureRewriter.dropPicture(descriptor)
            return false
        }
        return true
    }

    /// Resends a packet a subscriber NACKed, from the ring of the producer encoding that sent it
    /// (a simulcast layer forwarded before a switch included), as it went out the first time: as an
    /// RFC 4588 packet on the retransmission stream when the consumer has one, and only as far as the
    /// transport's resend budget allows.
    func retransmit(consumerSequenceNumber: UInt16, now: UInt64) {
        guard pauseReasons.isEmpty, let forwarded = rewriter.forwardedPacket(forConsumer: consumerSequenceNumber),
            producer.encodings.indices.contains(Int(forwarded.encoding)),
            let buffer = producer.encodings[Int(forwarded.encoding)].retransmissions,
            let stored = buffer.packet(sequenceNumber: forwarded.producerSequenceNumber, now: now)
        else { return }
        // A worker behind on forwarding resends nothing: the resend would cost what a first send
        // does, for a packet the receiver may no longer play.
        guard !transport.worker.isSheddingLoad, transport.retransmissionBudget.spend(stored.count, now: now) else {
            retransmissionsOverBudget &+= 1
            return
        }
        let slot = transport.worker.sendSlot()
        guard stored.count <= slot.buffer.count else {
            transport.worker.releaseLastSendSlot(slot.index)
            return
        }
        slot.buffer.copyMemory(from: stored)
        guard var copy = try? RTPPacket(parsing: slot.buffer, length: stored.count) else {
            transport.worker.releaseLastSendSlot(slot.index)
            return
        }
        rewrite(copy, sequenceNumber: consumerSequenceNumber, timestamp: copy.timestamp &+ forwarded.timestampOffset, now: now)
        if let pictureID = forwarded.pictureID, var descriptor = try? VP8PayloadDescriptor(parsing: copy.payload) {
            try? descriptor.rewrite(pictureID: pictureID, in: copy.payload)
            if let tl0 = forwarded.tl0PictureIndex { try? descriptor.rewrite(tl0PictureIndex: tl0, in: copy.payload) }
        }
        if let stream = retransmissionStream {
            do throws(RTPPacketError) {
                try copy.insertLeadingPayloadBytes(2)
            } catch {
                transport.worker.releaseLastSendSlot(slot.index)
                return
            }
            copy.payload.storeBytes(of: consumerSequenceNumber.bigEndian, as: UInt16.self)
            copy.ssrc = stream.ssrc
            copy.payloadType = stream.payloadType
            copy.sequenceNumber = retransmissionSequenceNumber
            retransmissionSequenceNumber &+= 1
        }
        transport.stampTransportSequence(&copy, now: now)
        if transport.sendRTP(slot: slot, length: copy.length, now: now) { retransmittedPackets &+= 1 }
    }

    @inline(__always)
    private func send(
        _ packet: RTPPacket, sequenceNumber: UInt16, timestamp: UInt32, frame: ForwardingInfo, now: UInt64
    ) -> Bool {
        let slot = transport.worker.sendSlot()
        guard var copy = packet.copy(into: slot.buffer) else {
            transport.worker.releaseLastSendSlot(slot.index)
            return false
        }
        rewrite(copy, sequenceNumber: sequenceNumber, timestamp: timestamp, now: now)
        var sendsRedundancy = false
        var addsRedundancy = false
        var addedBytes = 0
        if frame.primaryAudioOffset == nil, let recent = recentAudio, case .redundant(let redundantPayloadType) = transport.redundantAudio {
            let frames = transport.addedRedundantFrames
            let plainLength = copy.length
            if frames > 0,
                recent.addRedundancy(
                    upTo: frames, to: &copy, timestamp: timestamp, payloadType: payloadType, maximumLength: Self.maximumRedundantPacketBytes) > 0
            {
                addedBytes = copy.length - plainLength
                copy.payloadType = redundantPayloadType
                sendsRedundancy = true
                addsRedundancy = true
            }
            // Frames are kept only while some are added: a clean downlink costs no copy per packet.
            if frames > 0 {
                recent.remember(UnsafeRawBufferPointer(packet.payload), timestamp: timestamp)
            } else {
                recent.forget()
            }
        } else if let primaryOffset = frame.primaryAudioOffset {
            switch transport.redundantAudio {
            case .redundant(let payloadType):
                copy.payloadType = payloadType
                sendsRedundancy = true
            case .asPublished:
                copy.payloadType = packet.payloadType
                sendsRedundancy = true
            case .primaryOnly:
                do throws(RTPPacketError) {
                    try copy.removeLeadingPayloadBytes(primaryOffset)
                } catch {
                    transport.worker.releaseLastSendSlot(slot.index)
                    return false
                }
            }
        }
        if layerSelector != nil, let descriptor = frame.descriptor, let picture = pictureRewriter.rewrite(descriptor, in: copy.payload) {
            rewriter.recordPicture(sequenceNumber: sequenceNumber, pictureID: picture.pictureID, tl0PictureIndex: picture.tl0PictureIndex)
        }
        transport.stampTransportSequence(&copy, now: now)
        guard transport.sendRTP(slot: slot, length: copy.length, now: now) else { return false }
        bytesSent &+= UInt64(copy.length)
        if sendsRedundancy { redundantPacketsSent &+= 1 }
        if addsRedundancy {
            redundancyAddedPackets &+= 1
            transport.addedRedundancyBytes &+= UInt64(addedBytes)
        }
        return true
    }

    @inline(__always)
    private func rewrite(_ copy: RTPPacket, sequenceNumber: UInt16, timestamp: UInt32, now: UInt64) {
        copy.ssrc = ssrc
        copy.sequenceNumber = sequenceNumber
        copy.timestamp = timestamp
        copy.payloadType = payloadType
        if let id = sendTimeExtensionID { copy.overwriteAbsoluteSendTime(AbsoluteSendTime(nanoseconds: now), id: id) }
    }

    /// Readies the frames kept for the redundancy the router adds, once the transport takes RED.
    func prepareForRedundantAudio() {
        if kind == .audio, recentAudio == nil, case .redundant = transport.redundantAudio { recentAudio = RecentAudioFrames() }
    }

    /// Adds a reason not to forward. A person's choice suspends the transport's audio-fallback policy.
    func pause(_ reason: ConsumerPauseReason, now: UInt64) {
        guard pauseReasons.insert(reason).inserted else { return }
        if reason != .quality { transport.updateDownlinkEligibility(now: now) }
    }

    /// Removes a reason; when none is left, forwarding restarts seamlessly, from a key frame for video.
    func resume(_ reason: ConsumerPauseReason, now: UInt64) {
        guard pauseReasons.remove(reason) != nil else { return }
        if pauseReasons.isEmpty { restartFromKeyFrame(now: now) }
        if reason != .quality { transport.updateDownlinkEligibility(now: now) }
    }

    /// Whether a person's choice has this consumer off (quality aside).
    var isPausedByChoice: Bool {
        pauseReasons.contains(.subscriberChoice) || pauseReasons.contains(.publisherChoice)
    }

    /// Starts a new run after a gap in what reached this consumer: from a key frame for video.
    ///
    /// A consumer resumed before its transport can send (no DTLS keys, no client address yet) asks
    /// for nothing: the key frame would arrive before it could be sent, and the request would hold
    /// back the one made when the transport connects, which is the one that counts.
    /// - Parameter asNewReceiver: The consumer has just become able to send (its transport just
    ///   connected) and has had no key frame; its request passes the throttle's long interval.
    func restartFromKeyFrame(now: UInt64, asNewReceiver: Bool = false) {
        rewriter.resync()
        recentAudio?.forget()
        if kind == .video {
            waitingForKeyFrame = true
            if layerSelector != nil {
                layerSelector!.stopForwarding()
                announceLayerState()
            }
            guard transport.isConnected else { return }
            producer.requestKeyFrame(encoding: targetEncoding, now: now, forNewReceiver: asNewReceiver)
        }
    }

    /// Sends one padding-only packet on this consumer's SSRC, in its sequence space, to probe the
    /// subscriber's path while video is off for quality. The receiver's reports then cover it.
    func sendPadding(now: UInt64) {
        let (sequenceNumber, timestamp) = rewriter.nextPaddingPacket(now: now)
        if sendPaddingPacket(ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, now: now) {
            packetsSent &+= 1
        }
    }

    /// Sends one packet of a bandwidth probe: padding on the retransmission stream, as libwebrtc
    /// probes, so the media's own sequence stays untouched while it flows; without one, padding in
    /// the media's own sequence between frames (`sendInlineProbe`). Returns whether it went.
    func sendProbePadding(now: UInt64, probeCluster: Int) -> Bool {
        guard let stream = retransmissionStream else { return sendInlineProbe(now: now, probeCluster: probeCluster) }
        let sequenceNumber = retransmissionSequenceNumber
        retransmissionSequenceNumber &+= 1
        return sendPaddingPacket(
            ssrc: stream.ssrc, payloadType: stream.payloadType, sequenceNumber: sequenceNumber,
            timestamp: rewriter.timestamp(at: now), now: now, probeCluster: probeCluster)
    }

    /// Whether the consumer can carry probes: on its retransmission stream, or in its own sequence
    /// when it keeps the history that keeps NACKs right around inserted padding.
    var canProbe: Bool { retransmissionStream != nil || rewriter.keepsHistory }

    /// Sends one padding-only packet in this consumer's own sequence while media flows, between two
    /// frames: a bandwidth probe a receiver without RTX counts (and reports) like media. Only where
    /// nothing can still arrive late to take its number (no upstream gap awaiting repair). Returns
    /// whether it went.
    func sendInlineProbe(now: UInt64, probeCluster: Int? = nil) -> Bool {
        guard isAtFrameBoundary, pauseReasons.isEmpty, producer.encodings[currentEncoding].nackGenerator?.missingCount ?? 0 == 0,
            let (sequenceNumber, timestamp) = rewriter.insertPadding()
        else { return false }
        return sendPaddingPacket(
            ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, now: now, probeCluster: probeCluster)
    }

    private func sendPaddingPacket(
        ssrc: UInt32, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, now: UInt64, probeCluster: Int? = nil
    ) -> Bool {
        let slot = transport.worker.sendSlot()
        let sendTime = sendTimeExtensionID.map { (id: $0, value: AbsoluteSendTime(nanoseconds: now)) }
        var length = Self.writePadding(
            into: slot.buffer, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
            absoluteSendTime: sendTime)
        if transport.transportWideSequenceID != nil, var packet = try? RTPPacket(parsing: slot.buffer, length: length) {
            transport.stampTransportSequence(&packet, now: now, probeCluster: probeCluster)
            length = packet.length
        }
        guard transport.sendRTP(slot: slot, length: length, now: now) else { return false }
        probePacketsSent &+= 1
        return true
    }

    /// Bytes of one probe packet before SRTP: a 12-byte header, the extension block with abs-send-time
    /// and the transport-wide sequence number when the consumer stamps them (4 + 4 each), and the most
    /// padding RFC 3550 allows.
    var probePacketBytes: Int {
        let elements = (sendTimeExtensionID == nil ? 0 : 4) + (transport.transportWideSequenceID == nil ? 0 : 4)
        return 12 + (elements == 0 ? 0 : 4 + elements) + 255
    }

    /// Writes a padding-only RTP packet: P bit set, no payload, 255 bytes of padding whose last byte
    /// counts them, and, when given, a one-byte-form (RFC 8285) abs-send-time extension.
    static func writePadding(
        into buffer: UnsafeMutableRawBufferPointer, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        absoluteSendTime: (id: UInt8, value: AbsoluteSendTime)? = nil
    ) -> Int {
        buffer[0] = absoluteSendTime == nil ? 0xA0 : 0xB0
        buffer[1] = payloadType & 0x7F
        buffer.storeBytes(of: sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
        var headerEnd = 12
        if let absoluteSendTime {
            buffer.storeBytes(of: UInt16(0xBEDE).bigEndian, toByteOffset: 12, as: UInt16.self)
            buffer.storeBytes(of: UInt16(1).bigEndian, toByteOffset: 14, as: UInt16.self)
            buffer[16] = absoluteSendTime.id << 4 | 2
            buffer[17] = UInt8(truncatingIfNeeded: absoluteSendTime.value.value >> 16)
            buffer[18] = UInt8(truncatingIfNeeded: absoluteSendTime.value.value >> 8)
            buffer[19] = UInt8(truncatingIfNeeded: absoluteSendTime.value.value)
            headerEnd = 20
        }
        let end = headerEnd + 255
        for offset in headerEnd..<(end - 1) { buffer[offset] = 0 }
        buffer[end - 1] = 255
        return end
    }

    /// The subscriber's PLI or FIR: a key frame of the layer it receives (the target's while it waits).
    func keyFrameRequested(now: UInt64) {
        keyFrameRequestsReceived &+= 1
        guard pauseReasons.isEmpty else { return }
        producer.requestKeyFrame(encoding: waitingForKeyFrame ? targetEncoding : currentEncoding, now: now)
    }

    func nackReceived() {
        nacksReceived &+= 1
    }

    /// A report block the subscriber sent about this consumer. Returns what it adds to the previous
    /// one: packets expected and lost in between (nothing for the first).
    /// Packets the router never had to send (upstream loss) do not count against the subscriber's path.
    func received(_ block: RTCPReportBlock, arrivalCompactNTP: UInt32) -> ReportInterval? {
        var interval = lastReportBlock.flatMap { ReportInterval(from: $0, to: block) }
        let skipped = rewriter.skippedCount
        if interval != nil {
            let upstream = max(0, Int(Int64(bitPattern: skipped &- skippedAtLastReport)))
            interval!.packetsLost = max(0, interval!.packetsLost - upstream)
        }
        skippedAtLastReport = skipped
        lastReportBlock = block
        if let roundTrip = block.roundTripTime(arrivalCompactNTP: arrivalCompactNTP) {
            roundTripTimeSeconds = Double(roundTrip) / 65_536
        }
        return interval
    }

    /// The subscriber's reported jitter, in seconds.
    var reportedJitterSeconds: Double? {
        lastReportBlock.map { Double($0.jitter) / Double(producer.options.codec.clockRate) }
    }

    /// Sends a sender report (and SDES CNAME) whose RTP timestamp matches the rewritten timeline.
    func sendSenderReport(ntpNow: UInt64, now: UInt64) {
        guard packetsSent > 0 else { return }
        let ssrc = ssrc
        let rtpTimestamp = rewriter.timestamp(at: now)
        let packets = UInt32(truncatingIfNeeded: packetsSent)
        let octets = UInt32(truncatingIfNeeded: payloadBytesSent)
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPSenderReport.write(
                senderSSRC: ssrc, ntpTimestamp: ntpNow, rtpTimestamp: rtpTimestamp, senderPacketCount: packets,
                senderOctetCount: octets, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPSourceDescription.write(ssrc: ssrc, cname: Router.canonicalName, into: &writer)
        }
    }

    func snapshot() -> ConsumerStatistics {
        var result = ConsumerStatistics(consumerID: id, kind: kind)
        result.packetsSent = packetsSent
        result.bytesSent = bytesSent
        result.retransmittedPackets = retransmittedPackets
        result.nacksReceived = nacksReceived
        result.probePacketsSent = probePacketsSent
        result.retransmissionsOverBudget = retransmissionsOverBudget
        result.redundantPacketsSent = redundantPacketsSent
        result.redundancyAddedPackets = redundancyAddedPackets
        result.keyFrameRequestsReceived = keyFrameRequestsReceived
        result.pauseReasons = pauseReasons
        result.layer = layerState
        if let block = lastReportBlock {
            result.packetsLost = Int64(block.cumulativeLost)
            result.fractionLost = block.fractionLost
        }
        result.jitterSeconds = reportedJitterSeconds ?? 0
        result.roundTripTimeSeconds = roundTripTimeSeconds
        return result
    }
}
