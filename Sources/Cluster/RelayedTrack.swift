import MediaControl

/// One published track as a relay leg carries it to an edge: one consumer for a single encoding, or
/// one per simulcast layer (lowest first, each pinned to its layer) so that the edge's subscribers
/// choose among the layers there as they would on the origin.
public struct RelayedTrack: Codable, Sendable {
    public var producerID: ProducerID
    public var consumers: [ConsumerParameters]
    /// The origin's description of each layer (picture, frame rate, bitrate), matching `consumers`;
    /// empty for a single encoding.
    public var layers: [VideoLayer]

    /// How the edge produces its copy: the consumers' SSRCs, with the origin's picture, frame rate
    /// and bitrate of each layer.
    var copyOptions: ProducerOptions {
        let first = consumers[0]
        guard layers.count == consumers.count, consumers.count > 1 else {
            return ProducerOptions(codec: first.codec, ssrc: first.ssrc, rtxSSRC: first.rtxSSRC)
        }
        return ProducerOptions(
            codec: first.codec,
            layers: zip(consumers, layers).map { consumer, layer in
                VideoLayer(
                    ssrc: consumer.ssrc, rtxSSRC: consumer.rtxSSRC, width: layer.width, height: layer.height, frameRate: layer.frameRate,
                    bitrate: layer.bitrate)
            })
    }
}
