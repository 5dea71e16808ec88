import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// Tells a subscriber of a scalable-video stream which layer it receives now (`videoLayerChanged`).
    func layerChanged(_ consumer: ConsumerID, _ state: VideoLayerState) {
        for session in sessions.values {
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

    /// The router learned a simulcast stream's pictures or frame rates (a WebRTC publisher declares
    /// neither): every connection hears `streamPropertyChanged` for `videoLayers`, and for
    /// `videoDimensions` when the highest layer's picture is new.
    func layersLearned(_ producer: ProducerID, _ layers: [VideoLayer]) {
        for (sessionId, session) in sessions {
            guard let stream = session.streams.values.first(where: { $0.video?.producerID == producer }) else { continue }
            let learned = layers.map { VideoLayerInfo(width: $0.width, height: $0.height, frameRate: $0.frameRate) }
            let old = stream.info
            guard learned != old.videoLayers else { return }
            var info = old
            info.videoLayers = learned
            if let top = learned.last, top.width > 0, top.height > 0 {
                info.videoDimensions = VideoDimensions(width: top.width, height: top.height)
            }
            sessions[sessionId]?.streams[stream.info.streamId]?.info = info
            sessions[sessionId]?.broadcast(
                .streamPropertyChanged(
                    StreamPropertyChange(stream: info, changedProperty: .videoLayers, oldValue: .layers(old.videoLayers ?? []), newValue: .layers(learned))))
            if info.videoDimensions != old.videoDimensions {
                sessions[sessionId]?.broadcast(
                    .streamPropertyChanged(
                        StreamPropertyChange(
                            stream: info, changedProperty: .videoDimensions, oldValue: .dimensions(old.videoDimensions),
                            newValue: .dimensions(info.videoDimensions))))
            }
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
