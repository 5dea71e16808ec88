import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// Starts forwarding a stream to this connection over a new transport (plain SRTP, or WebRTC with
    /// the router's SDP offer in the reply): one consumer per track, paused for whichever choice (the
    /// subscriber's or the publisher's) has it off.
    public func subscribe(sessionId: String, connectionId: String, parameters: SubscribeParameters) async throws(SignalingError) -> SubscribeResult {
        let connection = try connection(connectionId, in: sessionId)
        guard connection.role.canSubscribe else {
            throw SignalingError(.forbidden, "role \(connection.role.rawValue) cannot subscribe")
        }
        guard connection.subscriberIds.count < limits.subscribersPerConnection else {
            throw SignalingError(.limitReached, "this connection already has \(limits.subscribersPerConnection) subscribers")
        }
        guard let stream = sessions[sessionId]?.streams[parameters.streamId] else {
            throw SignalingError(.notFound, "no stream \(parameters.streamId) in this session")
        }
        let preference = try Self.layerPreference(
            resolution: parameters.preferredResolution, frameRate: parameters.preferredFrameRate, over: .unconstrained)
        let subscribeToAudio = parameters.subscribeToAudio ?? true
        let subscribeToVideo = parameters.subscribeToVideo ?? true
        let transportID: TransportID
        var plainAnswer: TransportAnswer?
        var webRTCTransport: WebRTCTransportParameters?
        switch (parameters.transport, parameters.webrtc ?? false) {
        case (let offer?, false):
            try refuseInEndToEndEncryptedSession(.plainSubscriber, in: sessionId)
            let transport = try await createTransport(in: sessionId, offer: offer, toReceive: stream)
            transportID = transport.transportID
            plainAnswer = Self.answer(transport)
        case (nil, true):
            let transport = try await createWebRTCTransport(in: sessionId, toReceive: stream)
            transportID = transport.transportID
            webRTCTransport = transport
        case (nil, false):
            throw .invalidParams("params", "subscribe needs transport (plain SRTP) or webrtc: true")
        case (_?, true):
            throw .invalidParams("params", "subscribe takes transport (plain SRTP) or webrtc: true, not both")
        }
        let (audio, video) = try await consumeTracks(
            of: stream, on: transportID, subscribeToAudio: subscribeToAudio, subscribeToVideo: subscribeToVideo, preference: preference)
        guard sessions[sessionId]?.connections[connectionId] != nil, let current = sessions[sessionId]?.streams[parameters.streamId] else {
            await closeTransports([transportID])
            throw SignalingError(.notFound, "stream \(parameters.streamId) ended while subscribing")
        }
        try await refuseIfFailedWhileSettingUp(transportID)
        var subscriber = SubscriberState(
            id: SessionIdentifier.make(prefix: "sb_"), streamId: parameters.streamId, connectionId: connectionId,
            transportID: transportID, audio: audio, video: video, subscribeToAudio: subscribeToAudio,
            subscribeToVideo: subscribeToVideo, layerPreference: preference)
        if let webRTCTransport {
            subscriber.webRTC = offerToSubscriber(transport: webRTCTransport, stream: current, audio: audio, video: video, in: sessionId)
        }
        await record(subscriber, of: current, audioConsumedWith: stream.info.hasAudio, in: sessionId)
        let disableReason: VideoDisableReason? =
            if video == nil { nil } else if !subscribeToVideo { .subscriberPropertyChanged } else if !current.info.hasVideo { .publisherPropertyChanged } else { nil }
        return SubscribeResult(
            subscriberId: subscriber.id, streamId: parameters.streamId, transport: plainAnswer,
            sdpOffer: subscriber.webRTC?.offer.description,
            audio: audio.map { Self.track($0, redPayloadType: parameters.transport?.redPayloadType) }, video: video.map { Self.track($0) },
            videoEnabled: video != nil && disableReason == nil, videoDisableReason: disableReason)
    }

    /// One consumer per track of `stream` on the transport, paused for whichever choice has it off;
    /// with the receiver's payload types when it chose them. Closes the transport when one fails.
    func consumeTracks(
        of stream: StreamState, on transportID: TransportID, subscribeToAudio: Bool, subscribeToVideo: Bool,
        preference: VideoLayerPreference, payloadTypes: (audio: ReceiverPayloadTypes?, video: ReceiverPayloadTypes?) = (nil, nil)
    ) async throws(SignalingError) -> (audio: ConsumerParameters?, video: ConsumerParameters?) {
        var audio: ConsumerParameters?
        var video: ConsumerParameters?
        do {
            if let track = stream.audio {
                audio = try await media.consume(
                    transport: transportID, producer: track.producerID,
                    pauseReasons: Self.pauseReasons(subscriberWants: subscribeToAudio, publisherSends: stream.info.hasAudio),
                    preference: .unconstrained, payloadTypes: payloadTypes.audio)
            }
            if let track = stream.video {
                video = try await media.consume(
                    transport: transportID, producer: track.producerID,
                    pauseReasons: Self.pauseReasons(subscriberWants: subscribeToVideo, publisherSends: stream.info.hasVideo),
                    preference: preference, payloadTypes: payloadTypes.video)
            }
        } catch {
            await closeTransports([transportID])
            throw Self.mediaError(error)
        }
        return (audio, video)
    }

    /// Enters a new subscriber in the bookkeeping, with the stream's audio fallback for its downlink.
    /// `audioConsumedWith` is the stream's `hasAudio` its audio consumer was made with: a mute or an
    /// unmute that came while the subscription was being set up passed this subscriber by, so its
    /// consumer is brought in line now.
    func record(_ subscriber: SubscriberState, of stream: StreamState, audioConsumedWith publisherSentAudio: Bool, in sessionId: String) async {
        sessions[sessionId]!.subscribers[subscriber.id] = subscriber
        sessions[sessionId]!.connections[subscriber.connectionId]!.subscriberIds.insert(subscriber.id)
        sessions[sessionId]!.streams[subscriber.streamId]!.subscriberIds.insert(subscriber.id)
        if subscriber.audio != nil, sessions[sessionId]!.streams[subscriber.streamId]!.info.hasAudio != publisherSentAudio {
            await alignAudioConsumers(of: subscriber.streamId, in: sessionId)
        }
        if subscriber.video != nil, stream.audioFallback.subscriberAudioFallbackEnabled == true {
            await setAudioFallback(transport: subscriber.transportID, side: .subscriber, enabled: true)
        }
    }

    public func unsubscribe(sessionId: String, connectionId: String, subscriberId: String) async throws(SignalingError) {
        _ = try ownedSubscriber(subscriberId, by: connectionId, in: sessionId)
        guard let subscriber = removeSubscriber(sessionId: sessionId, subscriberId: subscriberId) else { return }
        await closeTransports([subscriber.transportID])
    }

    /// The subscriber turns a track off or on, or changes which layers of a scalable-video stream it
    /// wants. Turning video off or on while the publisher sends it gives `videoDisabled` /
    /// `videoEnabled` with reason `subscriberPropertyChanged`.
    public func updateSubscriber(sessionId: String, connectionId: String, update: SubscriberUpdate) async throws(SignalingError) {
        let subscriber = try ownedSubscriber(update.subscriberId, by: connectionId, in: sessionId)
        if update.preferredResolution != nil || update.preferredFrameRate != nil {
            var preference = try Self.layerPreference(
                resolution: update.preferredResolution?.value, frameRate: update.preferredFrameRate?.value, over: subscriber.layerPreference)
            if update.preferredResolution == .clear { (preference.maximumWidth, preference.maximumHeight) = (nil, nil) }
            if update.preferredFrameRate == .clear { preference.maximumFrameRate = nil }
            sessions[sessionId]?.subscribers[subscriber.id]?.layerPreference = preference
            if let video = subscriber.video {
                do {
                    try await media.setLayerPreference(video.consumerID, preference)
                } catch {
                    logger.debug("consumer gone before its layer preference", metadata: ["subscriber": "\(subscriber.id)", "error": "\(error)"])
                }
            }
        }
        let stream = sessions[sessionId]?.streams[subscriber.streamId]
        var changes: [ConsumerChange] = []
        if let wanted = update.subscribeToAudio, wanted != subscriber.subscribeToAudio {
            sessions[sessionId]?.subscribers[subscriber.id]?.subscribeToAudio = wanted
            if let audio = subscriber.audio { changes.append(ConsumerChange(consumer: audio.consumerID, pause: !wanted)) }
        }
        if let wanted = update.subscribeToVideo, wanted != subscriber.subscribeToVideo {
            sessions[sessionId]?.subscribers[subscriber.id]?.subscribeToVideo = wanted
            if let video = subscriber.video {
                changes.append(ConsumerChange(consumer: video.consumerID, pause: !wanted))
                if stream?.info.hasVideo == true {
                    let change = SubscriberVideoChange(subscriberId: subscriber.id, streamId: subscriber.streamId, reason: .subscriberPropertyChanged)
                    let event: SessionEvent = wanted ? .videoEnabled(change) : .videoDisabled(change)
                    sessions[sessionId]?.connections[connectionId]?.events.send(event)
                    reportVideoChange(event, to: connectionId, in: sessionId)
                }
            }
        }
        await apply(changes, reason: .subscriberChoice)
    }

    func ownedSubscriber(_ subscriberId: String, by connectionId: String, in sessionId: String) throws(SignalingError) -> SubscriberState {
        _ = try connection(connectionId, in: sessionId)
        guard let subscriber = sessions[sessionId]?.subscribers[subscriberId] else {
            throw SignalingError(.notFound, "no subscriber \(subscriberId) in this session")
        }
        guard subscriber.connectionId == connectionId else {
            throw SignalingError(.notOwner, "subscriber \(subscriberId) belongs to another connection")
        }
        return subscriber
    }

    /// `preference` with the resolution and frame rate given (nil leaves a field as it is), checked.
    private static func layerPreference(
        resolution: VideoDimensions?, frameRate: Double?, over preference: VideoLayerPreference
    ) throws(SignalingError) -> VideoLayerPreference {
        var result = preference
        if let resolution {
            guard (1...16384).contains(resolution.width), (1...16384).contains(resolution.height) else {
                throw .invalidParams(
                    "params.preferredResolution", "must be 1-16384 pixels each way, not \(resolution.width)x\(resolution.height)")
            }
            result.maximumWidth = resolution.width
            result.maximumHeight = resolution.height
        }
        if let frameRate {
            guard frameRate.isFinite, frameRate > 0, frameRate <= 240 else {
                throw .invalidParams("params.preferredFrameRate", "must be above 0 and at most 240, not \(frameRate)")
            }
            result.maximumFrameRate = frameRate
        }
        return result
    }

    private static func pauseReasons(subscriberWants: Bool, publisherSends: Bool) -> Set<ConsumerPauseReason> {
        var reasons: Set<ConsumerPauseReason> = []
        if !subscriberWants { reasons.insert(.subscriberChoice) }
        if !publisherSends { reasons.insert(.publisherChoice) }
        return reasons
    }

    /// The track as the subscriber receives it, with `redPayloadType`, the one its transport takes RED
    /// at: redundant packets may come at it, the publisher's or the router's own.
    private static func track(_ consumer: ConsumerParameters, redPayloadType: UInt8? = nil) -> TrackDescription {
        TrackDescription(
            codec: TrackCodec(consumer.codec.name), payloadType: consumer.codec.payloadType, ssrc: consumer.ssrc,
            rtxPayloadType: consumer.rtxSSRC == nil ? nil : consumer.codec.rtxPayloadType, rtxSsrc: consumer.rtxSSRC,
            redPayloadType: redPayloadType)
    }
}
