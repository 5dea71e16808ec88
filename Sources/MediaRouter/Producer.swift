import MediaControl
import Quality
import RTPWire

/// One published track arriving on a transport, in one encoding or several (simulcast layers, each
/// a `ProducerEncoding` with its own recovery state). It hands each packet to its consumers, which
/// pick the encoding they forward.
///
/// When the router's subscribers of the track are spread over workers, the producer on the
/// publisher's worker (its home) also hands each packet once to every other worker with consumers of
/// it, through that worker pair's `RelayRing`, and a **copy** there (same id, `homeWorker` set, no
/// transport) fans it out to the consumers of that worker. A copy keeps its own statistics and
/// retransmission ring, so its consumers serve NACKs locally; what only the publisher can answer (key
/// frames, packets the copy never got) goes home through the ring the other way.
///
/// Confined to its worker's thread.
final class Producer {
    let id: ProducerID
    let options: ProducerOptions
    /// The publisher's transport; nil for a copy.
    unowned let transport: Transport?
    unowned let worker: Worker
    /// A copy's home: the index of the worker the producer lives on. Nil at home.
    let homeWorker: Int?
    /// At home: the workers holding a copy, each handed every packet once. An immutable snapshot, as
    /// `consumers` is.
    private(set) var relayTargets: [Int] = []
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
    /// Why nothing reaches the consumers, if anything keeps it from them.
    private(set) var suspension: ProducerSuspension = []
    /// Packets kept from every consumer while suspended.
    private(set) var packetsHeldBack: UInt64 = 0
    /// Packets of the RED payload type: well formed around the track's Opus, and those that were
    /// malformed or whose primary frame was not the track's Opus (forwarded to nobody).
    private(set) var redundantPacketsReceived: UInt64 = 0
    private(set) var unforwardableRedundantPackets: UInt64 = 0
    /// What the packets' RFC 6464 levels say about the stream (audio at home, with the extension).
    private(set) var levels = AudioLevelMeter()
    /// Set by the router while it forwards only its loudest audio: the speech loudness at which this
    /// producer takes a place at its next talk spurt, and whether the router wants it held back
    /// (then it is, at its next silent packet). Nil while every audio producer is forwarded.
    var loudestAdmission: Double?
    var yieldsToLouder = false
    private var isIdle = false
    var lastReportAt: UInt64 = 0
    /// The layers as last told to signaling (`producerLayersChanged`).
    private var announcedLayers: [VideoLayer]

    convenience init(id: ProducerID, options: ProducerOptions, transport: Transport, configuration: MediaRouterConfiguration) {
        self.init(id: id, options: options, transport: transport, worker: transport.worker, homeWorker: nil, configuration: configuration)
    }

    /// A copy, on `worker`, of the producer `id` whose home is worker `homeWorker`.
    convenience init(copyOf id: ProducerID, options: ProducerOptions, on worker: Worker, homeWorker: Int) {
        self.init(id: id, options: options, transport: nil, worker: worker, homeWorker: homeWorker, configuration: worker.configuration)
    }

    private init(
        id: ProducerID, options: ProducerOptions, transport: Transport?, worker: Worker, homeWorker: Int?,
        configuration: MediaRouterConfiguration
    ) {
        self.id = id
        self.options = options
        self.transport = transport
        self.worker = worker
        self.homeWorker = homeWorker
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

    /// Hands every packet from now on to exactly the workers `targets` (which hold a copy). A new
    /// target first learns that the publisher's video is off, when it is.
    func setRelayTargets(_ targets: [Int]) {
        guard targets != relayTargets else { return }
        if isSuspended {
            for target in targets where !relayTargets.contains(target) {
                worker.relay(.suspension, to: target, producer: id, encoding: 0, flag: true)
            }
        }
        relayTargets = targets
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

    /// Handles one packet from the publisher: bookkeeping, then every consumer and every copy.
    /// - Parameter isLate: The packet waited past overload shedding's limit for its kind since the
    ///   kernel took it in: it is counted (so the router asks the publisher for nothing) but not
    ///   forwarded.
    func receive(_ incoming: RTPPacket, now: UInt64, isLate: Bool = false) {
        var packet = incoming
        guard let encoding = encoding(forSSRC: packet.ssrc) else { return }
        if packet.ssrc != encoding.ssrc {
            guard unwrapRetransmission(&packet, into: encoding) else { return }
        }
        deliver(packet, of: encoding, now: now, isLate: isLate)
    }

    /// A copy's packet from home: already the encoding's own (RTX unwrapped), its encoding named.
    func receiveRelayed(_ packet: RTPPacket, encoding index: Int, now: UInt64) {
        guard encodings.indices.contains(index) else { return }
        deliver(packet, of: encodings[index], now: now)
    }

    @inline(__always)
    private func deliver(_ packet: RTPPacket, of encoding: ProducerEncoding, now: UInt64, isLate: Bool = false) {
        let descriptor = options.codec.name == .vp8 ? Self.vp8Descriptor(packet) : nil
        encoding.record(packet, temporalLayer: descriptor?.temporalLayerID, now: now)
        lastPacketAt = now
        if isIdle {
            isIdle = false
            if homeWorker == nil { worker.events.yield(.producerActive(id)) }
        }
        var primaryAudioOffset: Int?
        if let redPayloadType = options.codec.redPayloadType, packet.payloadType == redPayloadType {
            guard let offset = primaryOpusOffset(in: packet) else {
                unforwardableRedundantPackets &+= 1
                return
            }
            primaryAudioOffset = offset
            redundantPacketsReceived &+= 1
        }
        let isKeyFrame = options.codec.name == .h264 ? H264KeyFrame.starts(UnsafeRawBufferPointer(packet.payload)) : descriptor?.isKeyFrame == true
        if isKeyFrame {
            encoding.keyFrameRequests.keyFrameReceived(now: now)
            if isLayered, let descriptor { encoding.recordKeyFrame(packet, descriptor: descriptor) }
        }
        if homeWorker == nil, let levelID = options.audioLevelID, let level = packet.audioLevel(id: levelID) {
            recordLevel(level.level, now: now)
        }
        guard suspension.isEmpty else {
            packetsHeldBack &+= 1
            return
        }
        guard !isLate else { return }
        for target in relayTargets {
            worker.relay(.media, to: target, producer: id, encoding: encoding.index, payload: UnsafeRawBufferPointer(packet.bytes))
        }
        let frame = ForwardingInfo(encoding: encoding.index, descriptor: descriptor, isKeyFrame: isKeyFrame, primaryAudioOffset: primaryAudioOffset)
        for consumer in consumers {
            consumer.forward(packet, frame: frame, now: now)
        }
    }

    /// Where an RFC 2198 packet's primary frame starts in its payload, when the packet is well formed
    /// and that frame is the track's Opus: what a receiver without RED is passed.
    @inline(__always)
    private func primaryOpusOffset(in packet: RTPPacket) -> Int? {
        guard let redundant = try? RedundantAudioPayload(parsing: UnsafeRawBufferPointer(packet.payload)),
            redundant.primary.payloadType == options.codec.payloadType
        else { return nil }
        return redundant.primary.range.lowerBound
    }

    /// Whether nothing reaches the consumers.
    var isSuspended: Bool { !suspension.isEmpty }

    /// Packets per second of the encoding that sends most: the most one more consumer costs.
    var packetRateOfBusiestEncoding: Double {
        encodings.reduce(0) { max($0, $1.measuredPacketRate ?? 0) }
    }

    /// Adds or removes a reason to forward nothing. When that stops or restarts forwarding, it does so
    /// for every consumer (and, from home, every copy's), and lets their subscribers' policies know
    /// whether they have video to judge.
    func setSuspended(_ reason: ProducerSuspension, _ suspended: Bool, now: UInt64) {
        let wasSuspended = isSuspended
        if suspended { suspension.insert(reason) } else { suspension.remove(reason) }
        guard isSuspended != wasSuspended else { return }
        for target in relayTargets {
            worker.relay(.suspension, to: target, producer: id, encoding: 0, flag: suspended)
        }
        for consumer in consumers {
            if !suspended, consumer.isForwarding { consumer.restartFromKeyFrame(now: now) }
            consumer.transport.updateDownlinkEligibility(now: now)
        }
    }

    /// Mutes or unmutes: a muted stream forwards nothing and its speech is forgotten.
    func setMuted(_ muted: Bool, now: UInt64) {
        if muted { levels.silence() }
        setSuspended(.muted, muted, now: now)
    }

    /// Meters one packet's level and, while the router forwards only its loudest audio, holds the
    /// stream back or lets it through, only where that cannot cut a sound: at a silent packet, or at
    /// the first packet of a talk spurt.
    @inline(__always)
    private func recordLevel(_ level: UInt8, now: UInt64) {
        guard !suspension.contains(.muted) else { return }
        let wasSpeech = levels.lastPacketWasSpeech
        levels.record(level: level, now: now)
        guard let admission = loudestAdmission else { return }
        let isSpeech = levels.lastPacketWasSpeech
        let isBoundary = !isSpeech || !wasSpeech
        guard isBoundary else { return }
        if suspension.contains(.quieter) {
            let admitted = isSpeech && levels.speechLoudness(now: now) >= admission
            if !yieldsToLouder || admitted {
                yieldsToLouder = false
                setSuspended(.quieter, false, now: now)
            }
        } else if yieldsToLouder, !isSpeech {
            setSuspended(.quieter, true, now: now)
        }
    }

    /// Stops holding the stream back as quieter (the router forwards every audio producer again).
    func forwardRegardlessOfLoudness(now: UInt64) {
        loudestAdmission = nil
        yieldsToLouder = false
        setSuspended(.quieter, false, now: now)
    }

    /// At home: packets a copy on worker `target` never received, sent to it again from the
    /// retransmission ring (those the ring no longer holds, or never had, are gone).
    func resend(_ sequenceNumbers: UnsafeRawBufferPointer, encoding index: Int, to target: Int, now: UInt64) {
        guard encodings.indices.contains(index), let buffer = encodings[index].retransmissions else { return }
        for offset in stride(from: 0, to: sequenceNumbers.count - 1, by: 2) {
            let sequenceNumber = UInt16(sequenceNumbers[offset]) << 8 | UInt16(sequenceNumbers[offset + 1])
            guard let stored = buffer.packet(sequenceNumber: sequenceNumber, now: now) else { continue }
            worker.relay(.media, to: target, producer: id, encoding: index, payload: stored)
        }
    }

    /// Asks the publisher for a key frame of `encoding`, folded with other requests into one per
    /// throttle window (a shorter one when the request is a new receiver's first:
    /// `KeyFrameRequestThrottle`).
    func requestKeyFrame(encoding index: Int = 0, now: UInt64, forNewReceiver: Bool = false) {
        if let homeWorker {
            // Only home can ask the publisher, and it folds every worker's requests into one.
            worker.relay(
                .keyFrameRequest, to: homeWorker, producer: id, encoding: index, flag: forNewReceiver)
            return
        }
        // Until the publisher's address is known nothing can reach it, and its first frame will be a
        // key frame anyway; counting the request as sent would hold back the next real one.
        guard let transport, transport.isConnected, encodings.indices.contains(index) else { return }
        let encoding = encodings[index]
        if encoding.keyFrameRequests.request(now: now, forNewReceiver: forNewReceiver) { sendPictureLossIndication(encoding) }
    }

    /// Timer work: NACKs for gaps, deferred key-frame requests, idleness, rates, receiver reports.
    func tick(now: UInt64, reportInterval: UInt64, idleTimeout: UInt64) {
        guard homeWorker == nil else {
            // A copy measures its rates (its consumers' layer budget) and asks home for what it missed.
            for encoding in encodings {
                if encoding.nackGenerator != nil { sendNacks(encoding, now: now) }
                encoding.updateRate(now: now)
            }
            return
        }
        for encoding in encodings {
            if encoding.nackGenerator != nil { sendNacks(encoding, now: now) }
            if encoding.keyFrameRequests.due(now: now) { sendPictureLossIndication(encoding) }
            encoding.updateRate(now: now)
        }
        if isLayered { announceLayers() }
        if !isIdle, let lastPacketAt, now - lastPacketAt >= idleTimeout {
            isIdle = true
            worker.events.yield(.producerIdle(id))
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
        if changed { worker.events.yield(.producerLayersChanged(id, layers)) }
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
        guard count > 0 else { return }
        if let homeWorker {
            let bytes = UnsafeMutableRawBufferPointer(start: lost, count: count * 2)
            for index in 0..<count { bytes.storeBytes(of: lost[index].bigEndian, toByteOffset: index * 2, as: UInt16.self) }
            worker.relay(.nack, to: homeWorker, producer: id, encoding: encoding.index, payload: UnsafeRawBufferPointer(bytes))
            return
        }
        guard encoding.isBound, let transport else { return }
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
        guard encoding.isBound, let transport else { return }
        keyFrameRequestsSent &+= 1
        worker.events.yield(.keyFrameNeeded(id))
        let senderSSRC = feedbackSSRC
        let mediaSSRC = encoding.ssrc
        transport.sendRTCP { writer throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: senderSSRC, reportBlocks: EmptyCollection(), into: &writer)
            try RTCPPictureLossIndication.write(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, into: &writer)
        }
    }

    private func sendReceiverReport(_ encoding: ProducerEncoding, now: UInt64) {
        guard let transport, let block = encoding.makeReportBlock(now: now) else { return }
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
        if options.audioLevelID != nil, homeWorker == nil {
            let now = MediaClock.monotonicNow()
            result.audioLevel = levels.amplitude(now: now)
            result.speaking = levels.shortActivity(now: now) >= DominantSpeakerSelector<ProducerID>.takeoverActivity
        }
        result.muted = suspension.contains(.muted)
        result.heldBackAsQuieter = suspension.contains(.quieter)
        result.packetsHeldBack = packetsHeldBack
        result.redundantPacketsReceived = redundantPacketsReceived
        result.unforwardableRedundantPackets = unforwardableRedundantPackets
        return result
    }
}

/// What the producer learned of a packet that every consumer needs: which encoding it belongs to,
/// its VP8 descriptor (nil for H.264), whether a key frame starts with it, and for RFC 2198 audio
/// where its primary frame starts in the payload (nil for any other packet), read once rather than
/// once per consumer.
struct ForwardingInfo {
    let encoding: Int
    let descriptor: VP8PayloadDescriptor?
    let isKeyFrame: Bool
    let primaryAudioOffset: Int?
}

extension Duration {
    /// The duration in whole nanoseconds, for the media plane's UInt64 clock.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
