import RTPWire

/// What a publisher sends: the encoded loop, paced in real time (an Opus frame every 20 ms, a VP8
/// frame every 1/frameRate s on each video encoding), each packet stamped with abs-send-time and each
/// audio packet, when asked, with its frame's RFC 6464 level; sender reports every second; NACKed
/// packets resent byte for byte; a PLI or FIR answered by jumping to the loop's key frame on the
/// encoding it names.
final class PublisherMedia: MediaHandler {
    static let absoluteSendTimeID: UInt8 = 3
    /// The audio-level extension's id: clear of abs-send-time (3) and a subscriber's transport-wide
    /// sequence number (5).
    static let audioLevelID: UInt8 = 1
    static let senderReportInterval: UInt64 = 1_000_000_000
    /// The payload type of RFC 2198 redundant audio, as Chromium numbers it.
    static let redPayloadType: UInt8 = 63

    let media: EncodedMedia
    let audio: OutgoingTrack?
    /// The header extension id audio packets carry their level in; nil sends none.
    let audioLevelID: UInt8?
    /// Earlier audio frames each audio packet repeats as RFC 2198 redundant audio (0: plain Opus), and
    /// the latest frames sent, with their timestamps, oldest first.
    let redundantAudioFrames: Int
    private var recentAudioFrames: [(payload: [UInt8], timestamp: UInt32)] = []
    /// What the audio track plays now (`play`), and where in its loop it is.
    private var audioLoop: EncodedAudio?
    private var audioLoopPosition = 0
    /// One per video encoding, lowest first (one unless simulcast).
    let videoEncodings: [VideoEncodingSender]
    var sendsAudio = true
    var sendsVideo = true
    private let reporterSSRC: UInt32
    private var startedAt: UInt64?
    private var nextAudioAt: UInt64 = 0
    private var nextVideoAt: UInt64 = 0
    private var audioFrameCount = 0
    private var videoFrameCount = 0
    private var nextReportAt: UInt64 = 0
    private var statistics = PublisherMediaStatistics()
    private var path = MediaPathWatch(silence: 3_000_000_000)
    /// The highest sequence number the router reported receiving, per SSRC.
    private var reportedHighest: [UInt32: UInt32] = [:]
    /// Told `false` when the router's receiver reports stop showing progress for 3 s while this
    /// publisher sends, `true` when they show it again. Called on the media loop.
    var onPathChange: ((Bool) -> Void)?

    init(
        media: EncodedMedia, audio: OutgoingTrack?, video: [OutgoingTrack], reporterSSRC: UInt32, audioLevelID: UInt8? = nil,
        redundantAudioFrames: Int = 0
    ) {
        self.media = media
        self.redundantAudioFrames = redundantAudioFrames
        self.audio = media.audio == nil ? nil : audio
        self.audioLevelID = audioLevelID
        audioLoop = media.audio
        videoEncodings = zip(video, media.videoLayers).map { VideoEncodingSender(track: $0, frames: $1, numbersPictures: media.videoLayers.count > 1) }
        self.reporterSSRC = reporterSSRC
    }

    deinit {
        for encoding in videoEncodings { encoding.ring.release() }
    }

    var snapshot: PublisherMediaStatistics { statistics }

    func tick(now: UInt64, endpoint: MediaEndpoint) {
        if startedAt == nil {
            startedAt = now
            nextAudioAt = now
            nextVideoAt = now
            nextReportAt = now + Self.senderReportInterval
        }
        if let audio {
            // A loop thread that fell far behind skips ahead rather than bursting the backlog.
            if now > nextAudioAt + 200_000_000 { nextAudioAt = now }
            while nextAudioAt <= now {
                if let frame = takeAudioFrame(), sendsAudio { sendAudioFrame(audio, frame: frame, now: now, endpoint: endpoint) }
                audioFrameCount += 1
                nextAudioAt += 20_000_000
            }
        }
        if !videoEncodings.isEmpty {
            let frameInterval = 1_000_000_000 / UInt64(media.settings.frameRate)
            if now > nextVideoAt + 200_000_000 { nextVideoAt = now }
            while nextVideoAt <= now {
                if sendsVideo {
                    for encoding in videoEncodings where encoding.isSending { sendVideoFrame(encoding, now: now, endpoint: endpoint) }
                }
                videoFrameCount += 1
                nextVideoAt += frameInterval
            }
        }
        if now >= nextReportAt {
            sendSenderReports(now: now, endpoint: endpoint)
            nextReportAt = now + Self.senderReportInterval
            let sending = (audio != nil && sendsAudio) || (!videoEncodings.isEmpty && sendsVideo)
            if path.check(now: now, expecting: sending) { onPathChange?(false) }
        }
    }

    /// From the next frame on, plays `audio`'s loop from its start, as a microphone hears something
    /// new; ignored without an audio track.
    func play(_ audio: EncodedAudio) {
        guard self.audio != nil else { return }
        audioLoop = audio
        audioLoopPosition = 0
    }

    /// The next frame of the audio loop, which moves on whether or not it is sent: a muted talker
    /// goes on talking.
    private func takeAudioFrame() -> EncodedAudio.Frame? {
        guard let frames = audioLoop?.frames, !frames.isEmpty else { return nil }
        defer { audioLoopPosition = (audioLoopPosition + 1) % frames.count }
        return frames[audioLoopPosition % frames.count]
    }

    private func sendAudioFrame(_ track: OutgoingTrack, frame: EncodedAudio.Frame, now: UInt64, endpoint: MediaEndpoint) {
        let timestamp = track.timestampBase &+ UInt32(truncatingIfNeeded: audioFrameCount &* 960)
        let level = audioLevelID.map { (AudioLevelIndication(voiceActivity: frame.level.voiceActivity, level: frame.level.level), $0) }
        if redundantAudioFrames > 0 {
            send(
                track, payload: redundantPayload(frame.payload, timestamp: timestamp, payloadType: track.payloadType), timestamp: timestamp, marker: false, now: now,
                endpoint: endpoint, audioLevel: level, payloadType: Self.redPayloadType)
            recentAudioFrames = Array((recentAudioFrames + [(frame.payload, timestamp)]).suffix(redundantAudioFrames))
        } else {
            send(track, payload: frame.payload, timestamp: timestamp, marker: false, now: now, endpoint: endpoint, audioLevel: level)
        }
        statistics.audio.packetsSent += 1
        statistics.audio.bytesSent += UInt64(frame.payload.count)
    }

    /// `primary` after the recent frames an RFC 2198 header can still point back to (a pause leaves
    /// them too old), all of the track's Opus payload type.
    private func redundantPayload(_ primary: [UInt8], timestamp: UInt32, payloadType: UInt8) -> [UInt8] {
        let earlier = recentAudioFrames.filter {
            timestamp &- $0.timestamp <= RedundantAudioPayload.maximumTimestampOffset && $0.payload.count <= RedundantAudioPayload.maximumBlockLength
        }
        let joined = earlier.flatMap(\.payload)
        var bytes = [UInt8](repeating: 0, count: primary.count + 1 + earlier.count * RedundantAudioPayload.redundantHeaderLength + joined.count)
        let written = joined.withUnsafeBytes { all in
            var offset = 0
            let blocks = earlier.map { frame -> (frame: UnsafeRawBufferPointer, timestampOffset: UInt32) in
                defer { offset += frame.payload.count }
                return (UnsafeRawBufferPointer(rebasing: all[offset..<(offset + frame.payload.count)]), timestamp &- frame.timestamp)
            }
            return primary.withUnsafeBytes { primaryBytes in
                bytes.withUnsafeMutableBytes { destination in
                    (try? RedundantAudioPayload.write(
                        primary: primaryBytes, redundant: blocks, payloadType: payloadType, into: destination)) ?? 0
                }
            }
        }
        return Array(bytes.prefix(written))
    }

    private func sendVideoFrame(_ encoding: VideoEncodingSender, now: UInt64, endpoint: MediaEndpoint) {
        let frame = encoding.nextFrame()
        let track = encoding.track
        let timestamp = track.timestampBase &+ UInt32(truncatingIfNeeded: videoFrameCount &* (90_000 / media.settings.frameRate))
        let pictureID = encoding.takePictureID()
        for (index, payload) in frame.payloads.enumerated() {
            send(
                track, payload: payload, timestamp: timestamp, marker: index == frame.payloads.count - 1, now: now, endpoint: endpoint,
                encoding: encoding, pictureID: pictureID)
            statistics.video.packetsSent += 1
            statistics.video.bytesSent += UInt64(payload.count)
        }
        statistics.framesSent += 1
        if frame.isKeyFrame { statistics.keyFramesSent += 1 }
    }

    private func send(
        _ track: OutgoingTrack, payload: [UInt8], timestamp: UInt32, marker: Bool, now: UInt64, endpoint: MediaEndpoint,
        encoding: VideoEncodingSender? = nil, pictureID: UInt16? = nil, audioLevel: (AudioLevelIndication, id: UInt8)? = nil,
        payloadType: UInt8? = nil
    ) {
        let sequenceNumber = track.takeSequenceNumber()
        endpoint.sendRTP(now: now) { buffer in
            var packet = try payload.withUnsafeBytes { bytes in
                try RTPPacket(
                    writingInto: buffer, payloadType: payloadType ?? track.payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
                    ssrc: track.ssrc, marker: marker, payload: bytes)
            }
            try packet.setAbsoluteSendTime(AbsoluteSendTime(nanoseconds: now), id: Self.absoluteSendTimeID)
            if let (level, id) = audioLevel { try packet.setAudioLevel(level, id: id) }
            if let pictureID, var descriptor = try? VP8PayloadDescriptor(parsing: packet.payload), descriptor.pictureID != nil {
                try descriptor.rewrite(pictureID: pictureID, in: packet.payload)
            }
            encoding?.ring.store(UnsafeRawBufferPointer(packet.bytes), sequenceNumber: sequenceNumber)
            return packet.length
        }
    }

    private func sendSenderReports(now: UInt64, endpoint: MediaEndpoint) {
        guard let startedAt else { return }
        let ntp = ReceiverStatistics.ntpTimestamp(nanosecondsSinceNTPEpoch: MonotonicClock.nanosecondsSinceNTPEpoch())
        let elapsed = now - startedAt
        let tracks = (audio.map { [($0, UInt64(48_000), statistics.audio, sendsAudio)] } ?? [])
            + videoEncodings.map { ($0.track, UInt64(90_000), statistics.video, sendsVideo) }
        endpoint.sendRTCP(now: now) { (writer: inout RTCPWriter) throws(RTCPError) in
            for (track, rate, counters, sends) in tracks where sends {
                try RTCPSenderReport.write(
                    senderSSRC: track.ssrc, ntpTimestamp: ntp,
                    rtpTimestamp: track.timestampBase &+ UInt32(truncatingIfNeeded: elapsed * rate / 1_000_000_000),
                    senderPacketCount: UInt32(truncatingIfNeeded: counters.packetsSent),
                    senderOctetCount: UInt32(truncatingIfNeeded: counters.bytesSent), reportBlocks: [RTCPReportBlock](), into: &writer)
            }
        }
        statistics.senderReportsSent += 1
    }

    private func videoEncoding(ssrc: UInt32) -> VideoEncodingSender? {
        videoEncodings.first { $0.track.ssrc == ssrc }
    }

    func received(rtp packet: RTPPacket, now: UInt64, endpoint: MediaEndpoint) {
        statistics.unexpectedPackets += 1
    }

    func received(rtcp compound: UnsafeRawBufferPointer, now: UInt64, endpoint: MediaEndpoint) {
        guard let parsed = try? RTCPCompoundPacket(parsing: compound) else {
            statistics.malformedRTCP += 1
            return
        }
        for packet in parsed {
            switch packet {
            case .receiverReport(let report):
                let arrival = ReceiverStatistics.compactNTP(
                    fromNTPTimestamp: ReceiverStatistics.ntpTimestamp(nanosecondsSinceNTPEpoch: MonotonicClock.nanosecondsSinceNTPEpoch()))
                for block in report.reportBlocks {
                    if let roundTrip = block.roundTripTime(arrivalCompactNTP: arrival) {
                        statistics.roundTripTimeSeconds = Double(roundTrip) / 65536
                    }
                    let isVideo = videoEncoding(ssrc: block.ssrc) != nil
                    if isVideo { statistics.videoFractionLost = Double(block.fractionLost) / 256 }
                    if isVideo || block.ssrc == audio?.ssrc,
                        block.extendedHighestSequenceNumber > reportedHighest[block.ssrc, default: 0] || reportedHighest[block.ssrc] == nil
                    {
                        reportedHighest[block.ssrc] = block.extendedHighestSequenceNumber
                        if path.progressed(now: now) { onPathChange?(true) }
                    }
                }
                statistics.receiverReports += 1
            case .genericNACK(let nack):
                guard let encoding = videoEncoding(ssrc: nack.mediaSSRC) else { continue }
                statistics.nacksReceived += 1
                for sequenceNumber in nack.lostSequenceNumbers {
                    resend(sequenceNumber, from: encoding, now: now, endpoint: endpoint)
                }
            case .pictureLossIndication(let request):
                guard let encoding = videoEncoding(ssrc: request.mediaSSRC) else { continue }
                statistics.keyFrameRequests += 1
                encoding.keyFrameRequested = true
            case .fullIntraRequest(let request):
                statistics.keyFrameRequests += 1
                for item in request.items { videoEncoding(ssrc: item.ssrc)?.keyFrameRequested = true }
            default:
                break
            }
        }
    }

    private func resend(_ sequenceNumber: UInt16, from encoding: VideoEncodingSender, now: UInt64, endpoint: MediaEndpoint) {
        var found = false
        endpoint.sendRTP(now: now) { buffer in
            guard let length = encoding.ring.copy(sequenceNumber: sequenceNumber, into: buffer) else { return 0 }
            found = true
            return length
        }
        if found { statistics.retransmissions += 1 } else { statistics.retransmissionsMissed += 1 }
    }
}

/// One video encoding a publisher sends: its RTP stream, its loop of frames (restarted at the key
/// frame when the router asks for one), the packets kept for NACKs, and its PictureID counter.
final class VideoEncodingSender {
    let track: OutgoingTrack
    let frames: [EncodedMedia.VideoFrame]
    var ring = SentPacketRing()
    var keyFrameRequested = false
    /// Whether the encoding's frames go out (`Publisher.setSendsVideoLayer`).
    var isSending = true
    private var loopIndex = 0
    private var pictureID: UInt16?

    /// The loop has a key frame every second (`MediaSettings.syncMarks`): a request waits for the
    /// next one rather than jumping, so the frames keep their place against the audio.
    private let keyFramesRecur: Bool

    init(track: OutgoingTrack, frames: [EncodedMedia.VideoFrame], numbersPictures: Bool) {
        self.track = track
        self.frames = frames
        keyFramesRecur = frames.lazy.filter(\.isKeyFrame).count > 1
        // Each encoding numbers its pictures on its own, from anywhere, as browsers' do.
        pictureID = numbersPictures ? UInt16.random(in: 0..<(1 << 15)) : nil
    }

    func nextFrame() -> EncodedMedia.VideoFrame {
        if keyFrameRequested {
            keyFrameRequested = false
            if !keyFramesRecur { loopIndex = 0 }
        }
        defer { loopIndex = (loopIndex + 1) % frames.count }
        return frames[loopIndex]
    }

    func takePictureID() -> UInt16? {
        guard let current = pictureID else { return nil }
        pictureID = (current + 1) % (1 << 15)
        return current
    }
}

/// One outgoing RTP stream's identity and sequence counter.
final class OutgoingTrack {
    let ssrc: UInt32
    let payloadType: UInt8
    let timestampBase: UInt32
    private var sequenceNumber: UInt16

    init(ssrc: UInt32, payloadType: UInt8) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        timestampBase = UInt32.random(in: 0...UInt32.max)
        sequenceNumber = UInt16.random(in: 0...UInt16.max)
    }

    func takeSequenceNumber() -> UInt16 {
        defer { sequenceNumber &+= 1 }
        return sequenceNumber
    }
}

/// What a publisher's media side sent and heard back.
public struct PublisherMediaStatistics: Equatable, Sendable {
    public struct Track: Equatable, Sendable {
        public var packetsSent: UInt64 = 0
        public var bytesSent: UInt64 = 0
    }

    public var audio = Track()
    public var video = Track()
    public var framesSent: UInt64 = 0
    public var keyFramesSent: UInt64 = 0
    /// PLIs and FIRs from the router.
    public var keyFrameRequests: UInt64 = 0
    public var nacksReceived: UInt64 = 0
    public var retransmissions: UInt64 = 0
    /// NACKed packets too old to resend.
    public var retransmissionsMissed: UInt64 = 0
    public var senderReportsSent: UInt64 = 0
    public var receiverReports: UInt64 = 0
    public var roundTripTimeSeconds: Double?
    /// Fraction of video the router reported lost in its last receiver report.
    public var videoFractionLost: Double = 0
    public var unexpectedPackets: UInt64 = 0
    public var malformedRTCP: UInt64 = 0
}
