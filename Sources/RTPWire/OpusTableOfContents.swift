/// The table-of-contents byte that starts every Opus packet (RFC 6716 section 3.1), with the frame
/// count byte of code 3 packets (section 3.2.5), parsed from caller-owned memory without allocating.
///
///      TOC byte                 code 3 frame count byte
///       0 1 2 3 4 5 6 7          0 1 2 3 4 5 6 7
///      +-+-+-+-+-+-+-+-+        +-+-+-+-+-+-+-+-+
///      | config  |s| c |        |v|p|     M     |
///      +-+-+-+-+-+-+-+-+        +-+-+-+-+-+-+-+-+
///
///      config  mode     bandwidth       frame sizes (ms)
///      0...3   SILK     narrowband      10, 20, 40, 60
///      4...7   SILK     mediumband      10, 20, 40, 60
///      8...11  SILK     wideband        10, 20, 40, 60
///      12...13 hybrid   super-wideband  10, 20
///      14...15 hybrid   fullband        10, 20
///      16...19 CELT     narrowband      2.5, 5, 10, 20
///      20...23 CELT     wideband        2.5, 5, 10, 20
///      24...27 CELT     super-wideband  2.5, 5, 10, 20
///      28...31 CELT     fullband        2.5, 5, 10, 20
///
///      c = 0: one frame; 1: two frames of equal size; 2: two frames of different sizes;
///      c = 3: M frames (1...48), counted in the byte after the TOC.
///
/// Durations are counted in samples at 48 kHz, the Opus reference rate and the RTP clock rate of
/// Opus (RFC 7587), so they add straight onto RTP timestamps. Frame lengths inside the packet are
/// not validated: a forwarder does not decode them.
public struct OpusTableOfContents: Equatable, Sendable {
    /// The codec layer that coded the frames.
    public enum Mode: Equatable, Sendable {
        /// Linear prediction, for speech at low bandwidths.
        case silk
        /// SILK below 8 kHz plus CELT above it.
        case hybrid
        /// Transform coding, for music and low delay.
        case celt
    }

    /// The audio bandwidth coded in the frames.
    public enum Bandwidth: Equatable, Sendable, CaseIterable {
        case narrowband
        case mediumband
        case wideband
        case superWideband
        case fullband

        /// The highest audio frequency the bandwidth carries, in hertz (RFC 6716 section 2, table 1).
        public var audioBandwidthHertz: Int {
            switch self {
            case .narrowband: 4_000
            case .mediumband: 6_000
            case .wideband: 8_000
            case .superWideband: 12_000
            case .fullband: 20_000
            }
        }

        /// The sample rate that carries the bandwidth without loss.
        public var effectiveSampleRate: Int {
            switch self {
            case .narrowband: 8_000
            case .mediumband: 12_000
            case .wideband: 16_000
            case .superWideband: 24_000
            case .fullband: 48_000
            }
        }
    }

    /// The rate durations are counted in: Opus always runs its RTP clock at 48 kHz.
    public static let samplesPerSecond = 48_000

    /// A packet may hold at most 120 ms of audio (RFC 6716 [R5]).
    public static let maximumPacketSamples = 120 * samplesPerSecond / 1_000

    /// The payload length at or below which a packet counts as DTX; see
    /// `isDiscontinuousTransmission`.
    public static let discontinuousTransmissionMaximumLength = 2

    /// The 5-bit configuration number (0...31) that selects mode, bandwidth and frame size.
    public var configuration: UInt8
    /// The codec layer selected by `configuration`.
    public var mode: Mode
    /// The audio bandwidth selected by `configuration`.
    public var bandwidth: Bandwidth
    /// The duration of one frame in samples at 48 kHz: 120, 240, 480, 960, 1920 or 2880
    /// (2.5, 5, 10, 20, 40 or 60 ms).
    public var samplesPerFrame: Int
    /// s: the frames are coded as stereo.
    public var isStereo: Bool
    /// c: how the frames are laid out (0...3).
    public var frameCountCode: UInt8
    /// The number of frames in the packet: 1 for code 0, 2 for codes 1 and 2, M for code 3.
    public var frameCount: Int
    /// Bytes in the whole Opus packet, TOC included.
    public var payloadLength: Int

    /// The duration of one frame in microseconds: 2500, 5000, 10000, 20000, 40000 or 60000.
    @inlinable
    public var frameDurationMicroseconds: Int {
        samplesPerFrame * 1_000_000 / Self.samplesPerSecond
    }

    /// The duration of one frame.
    @inlinable
    public var frameDuration: Duration {
        .microseconds(frameDurationMicroseconds)
    }

    /// The duration of the whole packet in samples at 48 kHz, which is how far the next packet's
    /// RTP timestamp should advance.
    @inlinable
    public var packetSamples: Int {
        samplesPerFrame * frameCount
    }

    /// The duration of the whole packet in microseconds.
    @inlinable
    public var packetDurationMicroseconds: Int {
        packetSamples * 1_000_000 / Self.samplesPerSecond
    }

    /// The duration of the whole packet.
    @inlinable
    public var packetDuration: Duration {
        .microseconds(packetDurationMicroseconds)
    }

    /// Whether the packet is a DTX (discontinuous transmission) packet carrying silence or comfort
    /// noise rather than speech; see `isDiscontinuousTransmission(payloadLength:)`.
    @inlinable
    public var isDiscontinuousTransmission: Bool {
        Self.isDiscontinuousTransmission(payloadLength: payloadLength)
    }

    /// Whether an Opus payload of `payloadLength` bytes is DTX: 1 or 2 bytes.
    ///
    /// The rule is libwebrtc's (`payload.size() <= 2`): during DTX the libopus encoder sends a bare
    /// TOC byte, whose frames are empty and which the decoder conceals as silence, and some encoders
    /// send one more byte for comfort noise. No frame of real speech fits in a single byte, so audio
    /// level and active-speaker logic may skip such packets without reading them. Zero bytes is not
    /// DTX but malformed.
    @inlinable
    public static func isDiscontinuousTransmission(payloadLength: Int) -> Bool {
        payloadLength >= 1 && payloadLength <= discontinuousTransmissionMaximumLength
    }

    /// Parses the TOC byte at the start of an Opus RTP payload, and for code 3 the frame count byte.
    @inlinable
    public init(parsing payload: UnsafeRawBufferPointer) throws(OpusTableOfContentsError) {
        guard payload.count > 0 else { throw .emptyPayload }
        let toc = payload.uint8(at: 0)
        let configuration = toc >> 3
        self.configuration = configuration
        isStereo = toc & 0x04 != 0
        frameCountCode = toc & 0x03
        payloadLength = payload.count

        // Frame sizes double with each step of the configuration's low bits (except SILK's 60 ms), so
        // they are computed: an array literal here could allocate on the packet path.
        switch configuration {
        case 0...11:
            mode = .silk
            bandwidth = configuration < 4 ? .narrowband : configuration < 8 ? .mediumband : .wideband
            let sizeIndex = configuration & 0x03
            samplesPerFrame = sizeIndex == 3 ? 2_880 : 480 << Int(sizeIndex)
        case 12...15:
            mode = .hybrid
            bandwidth = configuration < 14 ? .superWideband : .fullband
            samplesPerFrame = configuration & 0x01 == 0 ? 480 : 960
        default:
            mode = .celt
            switch configuration {
            case 16...19: bandwidth = .narrowband
            case 20...23: bandwidth = .wideband
            case 24...27: bandwidth = .superWideband
            default: bandwidth = .fullband
            }
            samplesPerFrame = 120 << Int(configuration & 0x03)
        }

        switch frameCountCode {
        case 0:
            frameCount = 1
        case 1, 2:
            frameCount = 2
        default:
            guard payload.count >= 2 else { throw .frameCountByteMissing }
            let count = Int(payload.uint8(at: 1) & 0x3F)
            guard count > 0 else { throw .frameCountZero }
            guard count * samplesPerFrame <= Self.maximumPacketSamples else {
                throw .durationExceeds120Milliseconds(frameCount: count, samplesPerFrame: samplesPerFrame)
            }
            frameCount = count
        }
    }

    /// Parses the TOC of a mutable Opus RTP payload; see `init(parsing:)`.
    @inlinable
    public init(parsing payload: UnsafeMutableRawBufferPointer) throws(OpusTableOfContentsError) {
        try self.init(parsing: UnsafeRawBufferPointer(payload))
    }
}
