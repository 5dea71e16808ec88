import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// Tells the router how the session's audio is routed (every stream, or only the loudest); a
    /// router gone meanwhile needs nothing.
    func applyAudioSettings(to routerID: RouterID, of sessionId: String) async {
        guard let session = sessions[sessionId] else { return }
        do {
            try await media.setForwardLoudest(router: routerID, count: session.audio?.forwardLoudest)
        } catch {
            logger.debug("router gone before its audio routing", metadata: ["session": "\(sessionId)", "error": "\(error)"])
        }
    }

    /// Tells the router whether a stream's audio may reach anyone, as its `hasAudio` says: a muted
    /// stream forwards nothing and counts as silence for the session's speakers.
    func muteAudioProducer(of stream: StreamState) async {
        guard let audio = stream.audio else { return }
        do {
            try await media.setProducerMuted(audio.producerID, muted: !stream.info.hasAudio)
        } catch {
            logger.debug("producer gone before its mute", metadata: ["stream": "\(stream.info.streamId)", "error": "\(error)"])
        }
    }

    /// The router's dominant speaker, as the stream it belongs to, to the connections that asked.
    func dominantSpeakerChanged(_ routerID: RouterID, _ producer: ProducerID?) {
        guard let sessionId = session(of: routerID) else { return }
        let streamId = producer.flatMap { producer in sessions[sessionId]?.streams.values.first { $0.audio?.producerID == producer }?.info.streamId }
        guard sessions[sessionId]?.activeSpeakerStreamId != streamId else { return }
        sessions[sessionId]?.activeSpeakerStreamId = streamId
        let event = SessionEvent.activeSpeakerChanged(ActiveSpeakerChange(streamId: streamId))
        for connection in sessions[sessionId]!.connections.values where connection.receivesSpeakerEvents {
            connection.events.send(event)
        }
    }

    /// The loudest streams' levels, to the connections that asked: serialized once, sent without
    /// a `seq`, never kept for a reconnecting client.
    func audioLevelsMeasured(_ routerID: RouterID, _ levels: [ProducerAudioLevel]) {
        guard let sessionId = session(of: routerID), let session = sessions[sessionId] else { return }
        let listeners = session.connections.values.filter(\.receivesSpeakerEvents)
        guard !listeners.isEmpty else { return }
        let streams = levels.compactMap { level in
            session.streams.values.first { $0.audio?.producerID == level.producerID }.map {
                StreamAudioLevel(streamId: $0.info.streamId, level: level.level, speaking: level.speaking)
            }
        }
        let text = String(decoding: ServerMessage.event(.audioLevels(AudioLevels(levels: streams))).encoded(), as: UTF8.self)
        for connection in listeners { connection.events.sendUnlogged(encodedEvent: text) }
    }

    private func session(of routerID: RouterID) -> String? {
        sessionIdsByRouter[routerID]
    }
}
