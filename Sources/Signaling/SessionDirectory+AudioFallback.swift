import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// Turns one side of a transport's audio-fallback policy on or off; a transport that has gone
    /// away meanwhile needs nothing.
    func setAudioFallback(transport: TransportID, side: AudioFallbackSide, enabled: Bool) async {
        do {
            try await media.setAudioFallback(transport: transport, side: side, enabled: enabled)
        } catch {
            logger.debug("transport gone before its audio-fallback setting", metadata: ["transport": "\(transport)", "error": "\(error)"])
        }
    }

    /// Tells the people concerned what the media plane did that they hear of: the audio-fallback
    /// policy's moves, simulcast layer changes, what the router learned of a stream's layers, and
    /// who speaks.
    public func handle(_ event: MediaEvent) {
        switch event {
        case .audioFallback(let transport, let side, let transition): audioFallbackChanged(transport, side: side, transition)
        case .overloadShedding(let transport, let videoOff): overloadShedding(transport, videoOff: videoOff)
        case .consumerLayerChanged(let consumer, let state): layerChanged(consumer, state)
        case .producerLayersChanged(let producer, let layers): layersLearned(producer, layers)
        case .dominantSpeakerChanged(let router, let producer): dominantSpeakerChanged(router, producer)
        case .audioLevels(let router, let levels): audioLevelsMeasured(router, levels)
        default: return
        }
    }

    /// The subscriber hears about its own downlink; the publisher about its uplink, and then every
    /// subscriber of that stream that wants video when the video goes off or comes back.
    private func audioFallbackChanged(_ transport: TransportID, side: AudioFallbackSide, _ transition: AudioFallbackTransition) {
        for sessionId in sessions.keys {
            switch side {
            case .subscriber:
                guard let subscriber = sessions[sessionId]!.subscribers.values.first(where: { $0.transportID == transport }) else { continue }
                let change = SubscriberVideoChange(subscriberId: subscriber.id, streamId: subscriber.streamId, reason: .quality)
                let event: SessionEvent =
                    switch transition {
                    case .warning: .videoDisableWarning(change)
                    case .warningLifted: .videoDisableWarningLifted(change)
                    case .videoDisabled: .videoDisabled(change)
                    case .videoEnabled: .videoEnabled(change)
                    }
                send(event, to: subscriber.connectionId, in: sessionId)
                logger.info("audio fallback", metadata: ["subscriber": "\(subscriber.id)", "event": "\(event.name.rawValue)"])
                return
            case .publisher:
                guard let stream = sessions[sessionId]!.streams.values.first(where: { $0.transportID == transport }) else { continue }
                let change = PublisherVideoChange(streamId: stream.info.streamId, reason: .quality)
                let event: SessionEvent =
                    switch transition {
                    case .warning: .publisherVideoDisableWarning(change)
                    case .warningLifted: .publisherVideoDisableWarningLifted(change)
                    case .videoDisabled: .publisherVideoDisabled(change)
                    case .videoEnabled: .publisherVideoEnabled(change)
                    }
                send(event, to: stream.publisherConnectionId, in: sessionId)
                logger.info("audio fallback", metadata: ["stream": "\(stream.info.streamId)", "event": "\(event.name.rawValue)"])
                guard transition == .videoDisabled || transition == .videoEnabled else { return }
                for subscriberId in stream.subscriberIds {
                    guard let subscriber = sessions[sessionId]!.subscribers[subscriberId], subscriber.subscribeToVideo else { continue }
                    let change = SubscriberVideoChange(subscriberId: subscriberId, streamId: stream.info.streamId, reason: .quality)
                    send(transition == .videoDisabled ? .videoDisabled(change) : .videoEnabled(change), to: subscriber.connectionId, in: sessionId)
                }
                return
            }
        }
    }

    /// The subscriber hears that the router turned its video off, or back on, for overload.
    private func overloadShedding(_ transport: TransportID, videoOff: Bool) {
        for sessionId in sessions.keys {
            guard let subscriber = sessions[sessionId]!.subscribers.values.first(where: { $0.transportID == transport }) else { continue }
            guard subscriber.subscribeToVideo else { return }
            let change = SubscriberVideoChange(subscriberId: subscriber.id, streamId: subscriber.streamId, reason: .overload)
            send(videoOff ? .videoDisabled(change) : .videoEnabled(change), to: subscriber.connectionId, in: sessionId)
            logger.info("overload shedding", metadata: ["subscriber": "\(subscriber.id)", "videoOff": "\(videoOff)"])
            return
        }
    }

    private func send(_ event: SessionEvent, to connectionId: String, in sessionId: String) {
        guard let connection = sessions[sessionId]?.connections[connectionId] else { return }
        connection.events.send(event)
        audioFallbackEventCounts[event.name.rawValue, default: 0] += 1
        reportVideoChange(event, to: connectionId, in: sessionId)
    }

    /// Tells the webhooks of a subscriber's or publisher's video going off or on; warnings and
    /// other events are for the clients only.
    func reportVideoChange(_ event: SessionEvent, to connectionId: String, in sessionId: String) {
        let activity: SessionActivity.Event
        switch event {
        case .videoDisabled(let change): activity = .videoDisabled(change)
        case .videoEnabled(let change): activity = .videoEnabled(change)
        case .publisherVideoDisabled(let change): activity = .publisherVideoDisabled(change)
        case .publisherVideoEnabled(let change): activity = .publisherVideoEnabled(change)
        default: return
        }
        report(activity, in: sessionId, to: connectionId)
    }
}
