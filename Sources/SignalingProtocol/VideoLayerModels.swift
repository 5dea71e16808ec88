/// One encoding of a simulcast video track as a plain-SRTP publisher declares it.
public struct LayerDescription: Codable, Equatable, Sendable {
    public var ssrc: UInt32
    /// The layer's RFC 4588 retransmission stream (with the track's `rtxPayloadType`).
    public var rtxSsrc: UInt32?
    public var width: Int
    public var height: Int
    /// Frames per second at the full temporal rate.
    public var frameRate: Double
    /// The bits per second the encoder aims at; the router measures what arrives and uses this only
    /// until it has a measurement.
    public var bitrate: Int?

    public init(ssrc: UInt32, rtxSsrc: UInt32? = nil, width: Int, height: Int, frameRate: Double, bitrate: Int? = nil) {
        self.ssrc = ssrc
        self.rtxSsrc = rtxSsrc
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.bitrate = bitrate
    }

    private enum CodingKeys: String, CodingKey {
        case ssrc, rtxSsrc, width, height, frameRate, bitrate
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ssrc = try container.decodeInteger(UInt32.self, forKey: .ssrc)
        rtxSsrc = try container.decodeIntegerIfPresent(UInt32.self, forKey: .rtxSsrc)
        width = try container.decodeInteger(Int.self, forKey: .width)
        height = try container.decodeInteger(Int.self, forKey: .height)
        frameRate = try container.decode(Double.self, forKey: .frameRate)
        bitrate = try container.decodeIntegerIfPresent(Int.self, forKey: .bitrate)
    }
}

/// A layer of a simulcast stream as subscribers see it in `StreamInfo.videoLayers` and in
/// `videoLayerChanged`: its picture and frame rate.
public struct VideoLayerInfo: Codable, Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var frameRate: Double

    public init(width: Int, height: Int, frameRate: Double) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }
}

/// `videoLayerChanged`: the layer of a simulcast stream one subscriber receives changed, or the one
/// it is moving to did.
public struct SubscriberLayerChange: Codable, Equatable, Sendable {
    public var subscriberId: String
    public var streamId: String
    /// What arrives now (frame rate after the temporal layers dropped); absent while nothing does
    /// (before the first key frame, or while video is off).
    public var layer: VideoLayerInfo?
    /// The layer the router moves to at its next key frame (the same as `layer` once there).
    public var targetLayer: VideoLayerInfo
    /// Why the target is what it is: `preference` (the highest the subscriber's preference allows),
    /// `bandwidth` (the downlink cannot carry more), `fallback` (the audio-fallback ladder holds the
    /// lowest layer, or withholds the top one) or `unavailable` (the publisher does not send the
    /// higher layers now).
    public var reason: String

    public init(subscriberId: String, streamId: String, layer: VideoLayerInfo?, targetLayer: VideoLayerInfo, reason: String) {
        self.subscriberId = subscriberId
        self.streamId = streamId
        self.layer = layer
        self.targetLayer = targetLayer
        self.reason = reason
    }
}

/// A change to an optional preference in `updateSubscriber`: a new value, or JSON `null` to drop
/// the preference ("the best the network allows").
public enum PreferenceUpdate<Value: Codable & Equatable & Sendable>: Equatable, Sendable {
    case set(Value)
    case clear

    public var value: Value? {
        switch self {
        case .set(let value): value
        case .clear: nil
        }
    }
}
