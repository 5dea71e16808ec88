import MediaControl
import RTPWire

/// One frame of a track, whole, as the archive writes it.
struct AssembledFrame {
    var rtpTimestamp: UInt32
    /// When the worker forwarded its first packet, in nanoseconds of the monotonic clock.
    var forwardedAt: UInt64
    var isKeyFrame: Bool
    /// A VP8 key frame's picture size.
    var pictureSize: (width: Int, height: Int)?
    /// An H.264 frame's sequence and picture parameter sets, Annex B (what a key frame carries).
    var parameterSets: [UInt8] = []
    var bytes: [UInt8]
}

/// Puts one track's RTP packets back in sequence order and hands out whole frames: an Opus packet
/// is a frame; a VP8 frame is the payloads (descriptors removed) from the packet that starts it to
/// the one with the marker bit; an H.264 frame (an access unit: one timestamp, to the marker bit) is
/// its NAL units in Annex B, taken out of single-NAL, STAP-A and FU-A packets (RFC 6184 mode 1). A packet missing for longer than `holdNanoseconds` is given up: the
/// VP8 frame it belonged to is dropped, and video resumes only at the next key frame (which
/// `needsKeyFrame` has the publisher asked for), so every file decodes without references to frames
/// it never had.
struct FrameAssembler {
    /// How long a gap waits for a late or resent packet before it counts as lost.
    static let holdNanoseconds: UInt64 = 300_000_000
    /// Packets held at most while a gap waits; past it the gap is given up at once.
    static let maximumHeldPackets = 2048

    private struct HeldPacket {
        var forwardedAt: UInt64
        var bytes: [UInt8]
    }

    let codec: CodecName
    var kind: MediaKind { codec.kind }
    private var held: [UInt16: HeldPacket] = [:]
    private var nextSequence: UInt16?
    private var hasConsumed = false
    /// Video: the frame being put together, nil between frames or after a loss inside one.
    private var partial: AssembledFrame?
    /// Video: frames are dropped until a key frame starts.
    private(set) var wantsKeyFrame = true
    /// Video: when it began waiting for a key frame (nil: before any packet).
    private var waitingSince: UInt64?
    /// How long a wait for a key frame goes before the publisher is asked: the one the router asks
    /// for when the recording starts arrives well within it.
    static let keyFrameGraceNanoseconds: UInt64 = 500_000_000
    /// Packets given up as lost, and frames dropped for it.
    private(set) var lostPackets = 0
    private(set) var droppedFrames = 0

    /// H.264: a fragmented NAL unit is open (its FU-A start came, its end not yet).
    private var fragmentOpen = false
    /// H.264: a gap was given up; the access unit of the next packet may have lost its start.
    private var afterGap = false
    private var brokenTimestamp: UInt32?

    init(codec: CodecName) {
        self.codec = codec
    }

    /// Takes one RTP packet of the track; malformed ones are ignored.
    mutating func insert(_ bytes: UnsafeRawBufferPointer, forwardedAt: UInt64) {
        guard bytes.count >= 12 else { return }
        let sequence = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        if let next = nextSequence, Int16(bitPattern: sequence &- next) < 0 {
            // Behind what was written already: a duplicate or too late. Before anything was written,
            // the track just starts earlier.
            guard !hasConsumed else { return }
            nextSequence = sequence
        }
        held[sequence] = HeldPacket(forwardedAt: forwardedAt, bytes: Array(bytes))
        if nextSequence == nil {
            nextSequence = sequence
            waitingSince = forwardedAt
        }
    }

    /// Hands out, in order, the frames completed by the packets held, giving up gaps older than
    /// `holdNanoseconds` at `now`.
    mutating func takeFrames(now: UInt64, _ emit: (AssembledFrame) -> Void) {
        while let next = nextSequence, !held.isEmpty {
            if let packet = held.removeValue(forKey: next) {
                nextSequence = next &+ 1
                hasConsumed = true
                consume(packet, emit)
                continue
            }
            let oldest = held.values.lazy.map(\.forwardedAt).min() ?? now
            guard now &- oldest > Self.holdNanoseconds || held.count > Self.maximumHeldPackets else { return }
            // Give up the gap: skip to the lowest sequence number still held.
            let skipTo = held.keys.min { Int16(bitPattern: $0 &- next) < Int16(bitPattern: $1 &- next) }!
            lostPackets += Int(skipTo &- next)
            nextSequence = skipTo
            if kind == .video {
                loseFrame()
                waitingSince = now
                afterGap = true
            }
        }
    }

    private mutating func consume(_ packet: HeldPacket, _ emit: (AssembledFrame) -> Void) {
        packet.bytes.withUnsafeBytes { raw in
            let storage = UnsafeMutableRawBufferPointer(mutating: raw)
            guard let rtp = try? RTPPacket(parsing: storage) else { return }
            let payload = UnsafeRawBufferPointer(rtp.payload)
            if kind == .audio {
                guard !payload.isEmpty else { return }
                emit(
                    AssembledFrame(
                        rtpTimestamp: rtp.timestamp, forwardedAt: packet.forwardedAt, isKeyFrame: true,
                        bytes: Array(payload)))
                return
            }
            if codec == .h264 {
                consumeH264(rtp, payload: payload, forwardedAt: packet.forwardedAt, emit)
            } else {
                consumeVP8(rtp, payload: payload, forwardedAt: packet.forwardedAt, emit)
            }
        }
    }

    private mutating func consumeVP8(
        _ rtp: RTPPacket, payload: UnsafeRawBufferPointer, forwardedAt: UInt64, _ emit: (AssembledFrame) -> Void
    ) {
        guard let descriptor = try? VP8PayloadDescriptor(parsing: payload), descriptor.length <= payload.count else {
            return
        }
        let body = UnsafeRawBufferPointer(rebasing: payload[descriptor.length...])
        if descriptor.isStartOfFrame {
            if partial != nil { loseFrame() }
            let isKeyFrame = descriptor.isKeyFrame
            let size = isKeyFrame ? VP8KeyFrameHeader(payload: body).map { ($0.width, $0.height) } : nil
            partial = AssembledFrame(
                rtpTimestamp: rtp.timestamp, forwardedAt: forwardedAt, isKeyFrame: isKeyFrame, pictureSize: size,
                bytes: [])
        }
        guard var frame = partial, frame.rtpTimestamp == rtp.timestamp else {
            // The middle of a frame whose start was lost (or the start of the next frame's timestamp
            // without its first packet): nothing of it can be written.
            if partial != nil { loseFrame() }
            return
        }
        partial = nil
        frame.bytes.append(contentsOf: body)
        guard rtp.marker else {
            partial = frame
            return
        }
        finish(frame, emit)
    }

    private static let startCode: [UInt8] = [0, 0, 0, 1]

    private mutating func consumeH264(
        _ rtp: RTPPacket, payload: UnsafeRawBufferPointer, forwardedAt: UInt64, _ emit: (AssembledFrame) -> Void
    ) {
        guard let first = payload.first else { return }
        if afterGap {
            afterGap = false
            brokenTimestamp = rtp.timestamp
        }
        guard rtp.timestamp != brokenTimestamp else { return }
        // H.264 marks no frame's start: a new timestamp is a new access unit.
        if let open = partial, open.rtpTimestamp != rtp.timestamp { loseFrame() }
        var frame =
            partial
            ?? AssembledFrame(rtpTimestamp: rtp.timestamp, forwardedAt: forwardedAt, isKeyFrame: false, bytes: [])
        partial = nil
        switch first & 0x1F {
        case 1...23:
            append(nal: payload, to: &frame)
        case 24:
            var offset = 1
            while offset + 2 <= payload.count {
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                guard size > 0, offset + 2 + size <= payload.count else { return loseFrame() }
                append(nal: UnsafeRawBufferPointer(rebasing: payload[(offset + 2)..<(offset + 2 + size)]), to: &frame)
                offset += 2 + size
            }
        case 28:
            guard payload.count > 2 else { return loseFrame() }
            let header = payload[1]
            let body = UnsafeRawBufferPointer(rebasing: payload[2...])
            if header & 0x80 != 0 {
                append(nal: [first & 0xE0 | header & 0x1F] + Array(body), to: &frame)
                fragmentOpen = true
            } else {
                guard fragmentOpen else { return loseFrame() }
                frame.bytes.append(contentsOf: body)
            }
            if header & 0x40 != 0 { fragmentOpen = false }
        default:
            return
        }
        guard rtp.marker else {
            partial = frame
            return
        }
        fragmentOpen = false
        finish(frame, emit)
    }

    /// Appends one NAL unit with its start code, noting a key frame's IDR slice and keeping the
    /// parameter sets.
    private func append(nal: some Collection<UInt8>, to frame: inout AssembledFrame) {
        guard let header = nal.first else { return }
        switch header & 0x1F {
        case 5: frame.isKeyFrame = true
        case 7, 8: frame.parameterSets += Self.startCode + nal
        default: break
        }
        frame.bytes += Self.startCode
        frame.bytes.append(contentsOf: nal)
    }

    /// A whole frame: out, unless frames wait for a key frame and this is not one.
    private mutating func finish(_ frame: AssembledFrame, _ emit: (AssembledFrame) -> Void) {
        if frame.isKeyFrame { wantsKeyFrame = false }
        guard !wantsKeyFrame else {
            droppedFrames += 1
            return
        }
        emit(frame)
    }

    /// Video: whether it has waited for a key frame long enough that the publisher should be asked.
    func needsKeyFrame(now: UInt64) -> Bool {
        guard kind == .video, wantsKeyFrame, let waitingSince else { return false }
        return now &- waitingSince > Self.keyFrameGraceNanoseconds
    }

    private mutating func loseFrame() {
        partial = nil
        fragmentOpen = false
        droppedFrames += 1
        wantsKeyFrame = true
    }
}
