import RTPWire

/// What a subscriber does with the router's media, like a real receiver: RFC 3550 statistics per
/// stream, a receiver report every `reportInterval` with a REMB from a simple receive-rate estimate
/// (or, when it asked for transport-wide congestion control, transport-wide feedback every 50 ms),
/// NACKs for video gaps, a PLI while it cannot decode, VP8 frames reassembled (and decoded with
/// libvpx, Opus with libopus, when asked), and the latency of every packet from its abs-send-time.
final class SubscriberMedia: MediaHandler {
    static let reportInterval: UInt64 = 500_000_000
    static let nackInterval: UInt64 = 20_000_000
    static let keyFrameRequestInterval: UInt64 = 300_000_000

    let audioSSRC: UInt32?
    /// The payload type RFC 2198 redundant audio arrives with, when the subscriber takes it.
    let audioRedPayloadType: UInt8?
    let videoSSRC: UInt32?
    private let reporterSSRC: UInt32
    private var audioReceiver = ReceiverStatistics(clockRate: 48_000)
    private var videoReceiver = ReceiverStatistics(clockRate: 90_000)
    private var nacks = NackGenerator()
    private var frames = VP8FrameTracker()
    private var videoDecoder: VP8Decoder?
    private var audioDecoder: OpusDecoder?
    private var audioFrames = AudioFrameRecovery()
    private var payloadRing: [[UInt8]]
    private var expectedCounter: Int?
    private var lastPictureID: UInt16?
    private var lastFrameAt: UInt64?
    private var averageFrameInterval: Double = 1e9 / 30
    private var waitingSince: UInt64?
    private var lastKeyFrameRequestAt: UInt64 = 0
    private var nextReportAt: UInt64 = 0
    private var nextNackAt: UInt64 = 0
    private var bytesSinceReport: UInt64 = 0
    private var lastReportAt: UInt64?
    private var receivingSince: UInt64?
    private var latency = LatencyHistogram()
    private var statistics = SubscriberMediaStatistics()
    private var path: MediaPathWatch
    private var transportFeedback: TransportFeedbackRecorder?
    /// Whether any media should be arriving (audio, or video that is on); silence is a broken path
    /// only then.
    var isMediaExpected = true
    /// Told `false` when the path breaks (no media for 2 s while some is expected), `true` when
    /// media arrives again. Called on the media loop.
    var onPathChange: ((Bool) -> Void)?
    /// False while the subscriber knows video is off (its choice, the publisher's, or quality), so
    /// the pause is not counted as a freeze.
    var isVideoExpected = true {
        didSet {
            guard isVideoExpected != oldValue else { return }
            lastFrameAt = nil
            if !isVideoExpected {
                frames.requireKeyFrame()
                waitingSince = nil
            }
        }
    }

    /// `pathBroken`: the subscription replaces one whose media connection failed, so its first media
    /// mends the path.
    init(
        audioSSRC: UInt32?, videoSSRC: UInt32?, reporterSSRC: UInt32, decodes: Bool, feedback: BandwidthFeedback = .receiverEstimate,
        pathBroken: Bool = false, audioRedPayloadType: UInt8? = nil
    ) throws(CodecError) {
        path = MediaPathWatch(silence: 2_000_000_000, isBroken: pathBroken)
        self.audioSSRC = audioSSRC
        self.audioRedPayloadType = audioRedPayloadType
        self.videoSSRC = videoSSRC
        self.reporterSSRC = reporterSSRC
        if feedback == .transportWide { transportFeedback = TransportFeedbackRecorder(extensionID: BandwidthFeedback.transportWideSequenceID) }
        if decodes {
            videoDecoder = try VP8Decoder()
            audioDecoder = try OpusDecoder()
        }
        payloadRing = decodes ? Array(repeating: [], count: VP8FrameTracker.window) : []
    }

    var snapshot: SubscriberMediaStatistics {
        var result = statistics
        result.audio.packetsLost = audioReceiver.isValid ? audioReceiver.cumulativeLost : 0
        result.video.packetsLost = videoReceiver.isValid ? videoReceiver.cumulativeLost : 0
        result.audio.jitterSeconds = audioReceiver.jitter / 48_000
        result.video.jitterSeconds = videoReceiver.jitter / 90_000
        result.isWaitingForKeyFrame = frames.isWaitingForKeyFrame
        return result
    }

    func takeLatency() -> LatencyHistogram {
        defer { latency = LatencyHistogram() }
        return latency
    }

    // MARK: Receiving

    func received(rtp packet: RTPPacket, now: UInt64, endpoint: MediaEndpoint) {
        if receivingSince == nil { receivingSince = now }
        // Padding counts towards the rate estimate: probing the path is what it is for.
        bytesSinceReport += UInt64(packet.length)
        transportFeedback?.record(packet, now: now)
        var packet = packet
        packet.removePadding()
        let payload = UnsafeRawBufferPointer(packet.payload)
        // Media, not the router's padding probes: those show the path works, not that media flows.
        if !payload.isEmpty, path.progressed(now: now) { onPathChange?(true) }
        if let sent = packet.absoluteSendTime(id: PublisherMedia.absoluteSendTimeID), !payload.isEmpty {
            let ticks = (AbsoluteSendTime(nanoseconds: now).value &- sent.value) & 0x00FF_FFFF
            latency.record(nanoseconds: AbsoluteSendTime(value: ticks).nanoseconds)
        }
        if packet.ssrc == videoSSRC {
            // A packet that fills a gap is a retransmission (or reordered past the NACK delay). Like a
            // WebRTC receiver, whose retransmissions arrive on an RTX SSRC, the media stream's
            // statistics leave it out, so receiver reports show the loss of the path, not what is
            // left after repair.
            if nacks.isMissing(packet.sequenceNumber) {
                statistics.video.repairedPackets += 1
            } else {
                videoReceiver.record(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrivalNanoseconds: now)
            }
            nacks.received(sequenceNumber: packet.sequenceNumber, now: now)
            if payload.isEmpty {
                statistics.video.paddingPackets += 1
            } else {
                statistics.video.packetsReceived += 1
                statistics.video.bytesReceived += UInt64(payload.count)
            }
            let sequence = frames.received(
                sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, marker: packet.marker, payload: payload, now: now)
            if videoDecoder != nil { payloadRing[Int(sequence & Int64(VP8FrameTracker.window - 1))] = Array(payload) }
            collectFrames(now: now, endpoint: endpoint)
        } else if packet.ssrc == audioSSRC {
            audioReceiver.record(sequenceNumber: packet.sequenceNumber, rtpTimestamp: packet.timestamp, arrivalNanoseconds: now)
            statistics.audio.packetsReceived += 1
            statistics.audio.bytesReceived += UInt64(payload.count)
            let decoder = audioDecoder
            audioFrames.receive(
                sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, payload: payload,
                redundant: audioRedPayloadType != nil && packet.payloadType == audioRedPayloadType
            ) { frame in
                guard let decoder else { return }
                if let frame {
                    let decoded = try? decoder.decode(UnsafeRawBufferPointer(rebasing: payload[frame]))
                    if decoded != nil { statistics.audioFramesDecoded += 1 } else { statistics.decodeErrors += 1 }
                } else if (try? decoder.concealLostFrame()) == nil {
                    statistics.decodeErrors += 1
                }
            }
            statistics.audioFramesRecovered = audioFrames.framesRecovered
            statistics.audioFramesConcealed = audioFrames.framesConcealed
        } else {
            statistics.unknownSSRCPackets += 1
        }
    }

    private func collectFrames(now: UInt64, endpoint: MediaEndpoint) {
        var undecodable = false
        frames.collect(now: now) { frame in
            undecodable = !deliver(frame, now: now) || undecodable
        } broken: {
            statistics.framesDropped += 1
        }
        // Outside `collect`, which has the tracker borrowed: a frame libvpx refused breaks the chain.
        if undecodable { frames.requireKeyFrame() }
        if frames.isWaitingForKeyFrame, isVideoExpected {
            if waitingSince == nil {
                waitingSince = now
                statistics.keyFrameWaits += 1
            }
            if now - lastKeyFrameRequestAt >= Self.keyFrameRequestInterval, now - (waitingSince ?? now) >= 100_000_000,
                let videoSSRC
            {
                lastKeyFrameRequestAt = now
                statistics.pictureLossIndicationsSent += 1
                endpoint.sendRTCP(now: now) { (writer: inout RTCPWriter) throws(RTCPError) in
                    try RTCPPictureLossIndication.write(senderSSRC: reporterSSRC, mediaSSRC: videoSSRC, into: &writer)
                }
            }
        }
    }

    /// Counts a decodable frame (and decodes it when asked); false when libvpx refused it.
    private func deliver(_ frame: VP8FrameTracker.Frame, now: UInt64) -> Bool {
        var decoded = true
        statistics.framesReceived += 1
        if frame.isKeyFrame { statistics.keyFramesReceived += 1 }
        if let pictureID = frame.pictureID {
            if let last = lastPictureID, pictureID != (last + 1) % (1 << 15) { statistics.pictureIDGaps += 1 }
            lastPictureID = pictureID
        }
        if statistics.firstFrameAt == nil { statistics.firstFrameAt = now }
        if let since = waitingSince {
            statistics.keyFrameWaitSeconds += Double(now - since) / 1e9
            waitingSince = nil
        }
        if let videoDecoder, let first = frame.first, let last = frame.last {
            var bytes: [UInt8] = []
            for sequence in first...last {
                let payload = payloadRing[Int(sequence & Int64(VP8FrameTracker.window - 1))]
                let headerLength = payload.withUnsafeBytes { (try? VP8PayloadDescriptor(parsing: $0))?.length } ?? payload.count
                bytes += payload[min(headerLength, payload.count)...]
            }
            do {
                for counter in try bytes.withUnsafeBytes({ try videoDecoder.decode($0) }) {
                    statistics.framesDecoded += 1
                    statistics.decodedWidth = videoDecoder.lastWidth
                    statistics.decodedHeight = videoDecoder.lastHeight
                    statistics.framesDecodedByWidth[videoDecoder.lastWidth, default: 0] += 1
                    if !frame.isKeyFrame, let expectedCounter, counter != expectedCounter { statistics.counterMismatches += 1 }
                    expectedCounter = counter + 1
                }
            } catch {
                statistics.decodeErrors += 1
                decoded = false
            }
        }
        if let lastFrameAt, isVideoExpected {
            let interval = Double(now - lastFrameAt)
            // The W3C freeze rule: a frame later than 3× the average interval and 150 ms past it.
            if interval > max(3 * averageFrameInterval, averageFrameInterval + 150_000_000) {
                statistics.freezeCount += 1
                statistics.totalFreezeSeconds += interval / 1e9
            } else {
                averageFrameInterval = 0.9 * averageFrameInterval + 0.1 * interval
            }
        }
        lastFrameAt = now
        return decoded
    }

    func received(rtcp compound: UnsafeRawBufferPointer, now: UInt64, endpoint: MediaEndpoint) {
        guard let parsed = try? RTCPCompoundPacket(parsing: compound) else {
            statistics.malformedRTCP += 1
            return
        }
        for packet in parsed {
            guard case .senderReport(let report) = packet else { continue }
            statistics.senderReportsReceived += 1
            if report.senderSSRC == audioSSRC {
                audioReceiver.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrivalNanoseconds: now)
            } else if report.senderSSRC == videoSSRC {
                videoReceiver.recordSenderReport(ntpTimestamp: report.ntpTimestamp, arrivalNanoseconds: now)
            }
        }
    }

    // MARK: Timer

    func tick(now: UInt64, endpoint: MediaEndpoint) {
        if nextReportAt == 0 {
            nextReportAt = now + Self.reportInterval
            nextNackAt = now + Self.nackInterval
        }
        // Arrivals drive frame collection; the timer only has to notice gaps that time out and send
        // NACKs, which a 20 ms cadence does for a thousand subscribers at little cost.
        if videoSSRC != nil, now >= nextNackAt {
            nextNackAt = now + Self.nackInterval
            collectFrames(now: now, endpoint: endpoint)
            sendNacks(now: now, endpoint: endpoint)
        }
        if transportFeedback?.isReportDue(now: now) == true {
            let reporterSSRC = reporterSSRC
            endpoint.sendRTCP(now: now) { (writer: inout RTCPWriter) throws(RTCPError) in
                if try transportFeedback!.writeReport(senderSSRC: reporterSSRC, now: now, into: &writer) {
                    statistics.transportFeedbackSent += 1
                }
            }
        }
        if now >= nextReportAt {
            nextReportAt = now + Self.reportInterval
            sendReport(now: now, endpoint: endpoint)
            if path.check(now: now, expecting: isMediaExpected) { onPathChange?(false) }
        }
    }

    private func sendNacks(now: UInt64, endpoint: MediaEndpoint) {
        guard let videoSSRC else { return }
        var lost: [UInt16] = []
        nacks.collect(now: now, roundTripTime: nil) { lost.append($0) }
        guard !lost.isEmpty else { return }
        statistics.nackPacketsSent += 1
        statistics.nackedSequenceNumbers += UInt64(lost.count)
        endpoint.sendRTCP(now: now) { (writer: inout RTCPWriter) throws(RTCPError) in
            try RTCPGenericNACK.write(senderSSRC: reporterSSRC, mediaSSRC: videoSSRC, lostSequenceNumbers: lost, into: &writer)
        }
    }

    private func sendReport(now: UInt64, endpoint: MediaEndpoint) {
        var blocks: [RTCPReportBlock] = []
        var videoFractionLost = 0.0
        if let audioSSRC, let block = audioReceiver.makeReportBlock(ssrc: audioSSRC, nowNanoseconds: now) { blocks.append(block) }
        if let videoSSRC, let block = videoReceiver.makeReportBlock(ssrc: videoSSRC, nowNanoseconds: now) {
            blocks.append(block)
            videoFractionLost = Double(block.fractionLost) / 256
        }
        let estimate = transportFeedback == nil ? remb(now: now, fractionLost: videoFractionLost) : nil
        let mediaSSRCs = [videoSSRC, audioSSRC].compactMap { $0 }
        endpoint.sendRTCP(now: now) { (writer: inout RTCPWriter) throws(RTCPError) in
            try RTCPReceiverReport.write(senderSSRC: reporterSSRC, reportBlocks: blocks, into: &writer)
            if let estimate, !mediaSSRCs.isEmpty {
                try RTCPReceiverEstimatedMaximumBitrate.write(senderSSRC: reporterSSRC, bitrate: estimate, ssrcs: mediaSSRCs, into: &writer)
            }
        }
        statistics.receiverReportsSent += 1
    }

    /// A receive-side bandwidth estimate: what arrived over the last interval, raised by half when
    /// there was (almost) no loss, lowered with heavy loss. Sent only after a second of receiving,
    /// so the ramp-up of a new subscription is not mistaken for a narrow path.
    private func remb(now: UInt64, fractionLost: Double) -> UInt64? {
        defer {
            lastReportAt = now
            bytesSinceReport = 0
        }
        guard let lastReportAt, let receivingSince, now - receivingSince >= 1_000_000_000, now > lastReportAt else { return nil }
        let rate = Double(bytesSinceReport * 8) * 1e9 / Double(now - lastReportAt)
        let factor = fractionLost < 0.02 ? 1.5 : fractionLost > 0.1 ? 1 - 0.5 * fractionLost : 1.0
        let estimate = UInt64(max(30_000, rate * factor))
        statistics.estimatedBitrate = estimate
        return estimate
    }
}

/// What a subscriber's media side received, as the client measured it.
public struct SubscriberMediaStatistics: Equatable, Sendable {
    public struct Track: Equatable, Sendable {
        /// Media packets (padding excluded).
        public var packetsReceived: UInt64 = 0
        /// Payload bytes of media packets.
        public var bytesReceived: UInt64 = 0
        /// RFC 3550 cumulative loss of the path (padding counts as received; repaired packets as lost).
        public var packetsLost: Int64 = 0
        public var jitterSeconds: Double = 0
        /// Padding-only packets (the router's bandwidth probes while video is off).
        public var paddingPackets: UInt64 = 0
        /// Packets that arrived after being NACKed; counted received but also lost, as RTX would be.
        public var repairedPackets: UInt64 = 0
    }

    public var audio = Track()
    public var video = Track()
    /// Complete, decodable video frames.
    public var framesReceived: UInt64 = 0
    /// Frames libvpx decoded (decoding subscribers only).
    public var framesDecoded: UInt64 = 0
    public var audioFramesDecoded: UInt64 = 0
    /// Audio frames lost on the path that an RFC 2198 packet brought back, and those nothing brought
    /// back (concealed; with a decoder, by libopus's loss concealment).
    public var audioFramesRecovered: UInt64 = 0
    public var audioFramesConcealed: UInt64 = 0
    public var decodeErrors: UInt64 = 0
    /// Decoded pictures whose frame counter was not the one after the previous picture's.
    public var counterMismatches: UInt64 = 0
    /// The size of the last picture decoded, and how many pictures were decoded at each width (the
    /// layer of a scalable-video stream shows in them).
    public var decodedWidth = 0
    public var decodedHeight = 0
    public var framesDecodedByWidth: [Int: UInt64] = [:]
    /// Decodable frames whose VP8 PictureID did not follow the previous frame's (frames that carry one).
    public var pictureIDGaps: UInt64 = 0
    /// Times the frame chain broke for good (frames lost until a key frame).
    public var framesDropped: UInt64 = 0
    public var keyFramesReceived: UInt64 = 0
    /// Times the subscriber had to wait for a key frame, and for how long in all.
    public var keyFrameWaits: UInt64 = 0
    public var keyFrameWaitSeconds: Double = 0
    public var freezeCount: UInt64 = 0
    public var totalFreezeSeconds: Double = 0
    /// When the first decodable frame arrived (monotonic nanoseconds).
    public var firstFrameAt: UInt64?
    public var nackPacketsSent: UInt64 = 0
    public var nackedSequenceNumbers: UInt64 = 0
    public var pictureLossIndicationsSent: UInt64 = 0
    public var receiverReportsSent: UInt64 = 0
    public var senderReportsReceived: UInt64 = 0
    /// The last REMB value sent, in bits per second.
    public var estimatedBitrate: UInt64?
    /// Transport-wide feedback messages sent (subscribers that asked for transport-wide feedback).
    public var transportFeedbackSent: UInt64 = 0
    public var isWaitingForKeyFrame = false
    public var unknownSSRCPackets: UInt64 = 0
    public var malformedRTCP: UInt64 = 0
}
