/// One encoding of a simulcast video track: where it arrives and what it carries.
public struct VideoLayer: Equatable, Sendable, Codable {
    /// The SSRC the publisher sends the encoding with; nil when the publisher names the encoding only
    /// by `rid` (browsers announce no SSRCs for simulcast): the router then learns it from the first
    /// packet that carries the rid.
    public var ssrc: UInt32?
    /// The SSRC of its RFC 4588 retransmission stream, when it has one (learned from the repaired
    /// stream id when `ssrc` is nil).
    public var rtxSSRC: UInt32?
    /// The RTP stream id (RFC 8852) a WebRTC publisher named the encoding with, when it did.
    public var rid: String?
    /// The picture, 0 × 0 when unknown until the encoding's first key frame (which the router reads
    /// it from, and which then counts).
    public var width: Int
    public var height: Int
    /// Frames per second at full temporal rate, 0 when unknown: the router then measures it.
    public var frameRate: Double
    /// The bits per second the publisher aims at, 0 when unknown: the router measures what arrives
    /// and uses this only until it has a measurement.
    public var bitrate: Int

    public init(ssrc: UInt32?, rtxSSRC: UInt32? = nil, rid: String? = nil, width: Int, height: Int, frameRate: Double, bitrate: Int = 0) {
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
        self.rid = rid
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
    }
}

/// What one subscriber would like of a simulcast stream; nil fields mean "the best the network allows".
public struct VideoLayerPreference: Equatable, Sendable, Codable {
    /// The largest picture wanted: the router sends the highest layer not above it in either dimension
    /// (the lowest layer when every layer is above it).
    public var maximumWidth: Int?
    public var maximumHeight: Int?
    /// The highest frame rate wanted: the router drops the temporal layers above it.
    public var maximumFrameRate: Double?

    /// Forward exactly this layer (index, lowest first) with every temporal layer, whatever the budget:
    /// what a relay leg to another node carries, one consumer per layer. The sizes and frame rate are
    /// then ignored.
    public var pinnedLayer: Int?

    public init(maximumWidth: Int? = nil, maximumHeight: Int? = nil, maximumFrameRate: Double? = nil) {
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.maximumFrameRate = maximumFrameRate
    }

    public init(pinnedLayer: Int) {
        self.pinnedLayer = pinnedLayer
    }

    public static let unconstrained = VideoLayerPreference()
}

/// The layer a subscriber receives of a simulcast stream, the one it is moving to, and why.
public struct VideoLayerState: Equatable, Sendable, Codable {
    /// Index into the producer's layers (lowest first) of the layer being forwarded; nil before the
    /// first key frame or while the consumer is paused.
    public var currentLayer: Int?
    /// The layer the router moves to at its next key frame.
    public var targetLayer: Int
    /// The highest temporal layer forwarded (0 = base rate), of `temporalLayerCount` the current
    /// layer carries (each doubling the frame rate).
    public var temporalLayer: Int
    public var temporalLayerCount: Int
    /// `preference`, `bandwidth`, `fallback` or `unavailable`.
    public var reason: String

    public init(currentLayer: Int?, targetLayer: Int, temporalLayer: Int, temporalLayerCount: Int, reason: String) {
        self.currentLayer = currentLayer
        self.targetLayer = targetLayer
        self.temporalLayer = temporalLayer
        self.temporalLayerCount = temporalLayerCount
        self.reason = reason
    }

    /// The share of a layer's full frame rate that is forwarded: 1 with every temporal layer, half
    /// for each one dropped.
    public var frameRateShare: Double {
        Double(1 << max(0, temporalLayer)) / Double(1 << max(0, temporalLayerCount - 1))
    }
}
