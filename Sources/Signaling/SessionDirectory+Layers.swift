import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// Tells a subscriber of a scalable-video stream which layer it receives now (`videoLayerChanged`).
    func layerChanged(_ consumer: ConsumerID, _ state: VideoLayerState) {
        for (sessionId, session) in sessions {
            guard let subscriber = session.subscribers.values.first(where: { $0.video?.consumerID == consumer }) else { continue }
            guard let layers = session.streams[subscriber.streamId]?.info.videoLayers,
                let change = Self.layerChange(state, layers: layers, subscriber: subscriber)
            else { return }
            session.connections[subscriber.connectionId]?.events.send(.videoLayerChanged(change))
            logger.debug(
                "video layer changed",
                metadata: ["subscriber": "\(subscriber.id)", "layer": "\(state.currentLayer.map(String.init) ?? "none")", "target": "\(state.targetLayer)", "reason": "\(state.reason)"])
            return
        }
    }

    /// The layer state in the protocol's terms: pictures and frame rates instead of indices.
    static func layerChange(_ state: VideoLayerState, layers: [VideoLayerInfo], subscriber: SubscriberState) -> SubscriberLayerChange? {
        guard layers.indices.contains(state.targetLayer) else { return nil }
        let current = state.currentLayer.flatMap { layers.indices.contains($0) ? layers[$0] : nil }.map { layer in
            VideoLayerInfo(width: layer.width, height: layer.height, frameRate: layer.frameRate * state.frameRateShare)
        }
        return SubscriberLayerChange(
            subscriberId: subscriber.id, streamId: subscriber.streamId, layer: current, targetLayer: layers[state.targetLayer],
            reason: state.reason)
    }
}
