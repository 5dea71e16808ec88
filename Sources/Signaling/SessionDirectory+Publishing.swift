import MediaControl
import RTPWire
import SessionDescription
import SignalingProtocol

extension SessionDirectory {
    /// Longest stream name, in characters.
    static let maximumStreamNameCharacters = 256

    /// Starts a stream: a transport for the publisher (plain SRTP, or WebRTC from its SDP offer), a
    /// producer per track, and `streamCreated` to every other connection. While the session's force
    /// mute is active, the stream's audio starts off and the publisher hears `muteForced`.
    public func publish(sessionId: String, connectionId: String, parameters: PublishParameters) async throws(SignalingError) -> PublishResult {
        let connection = try connection(connectionId, in: sessionId)
        guard connection.role.canPublish else {
            throw SignalingError(.forbidden, "role \(connection.role.rawValue) cannot publish")
        }
        guard connection.streamIds.count < limits.streamsPerConnection else {
            throw SignalingError(.limitReached, "this connection already publishes \(limits.streamsPerConnection) streams")
        }
        var parameters = parameters
        let transportID: TransportID
        var plainAnswer: TransportAnswer?
        var webRTC: PublisherNegotiationResult?
        switch (parameters.transport, parameters.sdpOffer) {
        case (let offer?, nil):
            try refuseInEndToEndEncryptedSession(.plainPublisher, in: sessionId)
            try Self.validate(parameters)
            let transport = try await createTransport(in: sessionId, offer: offer)
            transportID = transport.transportID
            plainAnswer = Self.answer(transport)
        case (nil, let sdpOffer?):
            guard parameters.audio == nil, parameters.video == nil else {
                throw .invalidParams("params", "audio and video come from sdpOffer; leave them out of a WebRTC publish")
            }
            let negotiated = try await negotiatePublisher(sdpOffer: sdpOffer, in: sessionId)
            transportID = negotiated.state.transport.transportID
            parameters.audio = negotiated.audio.map(Self.trackDescription)
            parameters.video = negotiated.video.map(Self.trackDescription)
            do throws(SignalingError) {
                try Self.validate(parameters)
            } catch {
                await closeTransports([transportID])
                throw error
            }
            webRTC = negotiated
        case (nil, nil):
            throw .invalidParams("params", "publish needs transport (plain SRTP) or sdpOffer (WebRTC)")
        case (_?, _?):
            throw .invalidParams("params", "publish takes transport (plain SRTP) or sdpOffer (WebRTC), not both")
        }
        var audio: PublishedTrack?
        var video: PublishedTrack?
        do {
            if let track = parameters.audio {
                let declared = track.audioLevelId.map { [HeaderExtension(id: $0, uri: HeaderExtensionURI.audioLevel)] } ?? []
                let extensions = webRTC?.audio?.headerExtensions ?? declared
                audio = PublishedTrack(
                    description: track,
                    producerID: try await media.produce(transport: transportID, options: Self.producerOptions(track, extensions)),
                    headerExtensions: extensions)
            }
            if let track = parameters.video {
                let extensions = webRTC?.video?.headerExtensions ?? []
                var options = Self.producerOptions(track, extensions)
                if let negotiated = webRTC?.video, !negotiated.layers.isEmpty { Self.addLayers(of: negotiated, to: &options) }
                video = PublishedTrack(
                    description: track, producerID: try await media.produce(transport: transportID, options: options),
                    headerExtensions: extensions, formatParameters: webRTC?.video?.formatParameters)
            }
        } catch {
            await closeTransports([transportID])
            throw Self.mediaError(error)
        }
        guard let current = sessions[sessionId]?.connections[connectionId] else {
            await closeTransports([transportID])
            throw SignalingError(.notConnected, "this connection left the session while publishing")
        }
        try await refuseIfFailedWhileSettingUp(transportID)
        let videoType = parameters.videoType ?? .camera
        // A WebRTC publisher's layers are known by rid or SSRC only: their pictures and rates follow in
        // streamPropertyChanged once the router has seen them.
        let layers =
            parameters.video?.layers?.map { VideoLayerInfo(width: $0.width, height: $0.height, frameRate: $0.frameRate) }
            ?? webRTC?.video.flatMap { $0.layers.isEmpty ? nil : $0.layers.map { _ in VideoLayerInfo(width: 0, height: 0, frameRate: 0) } }
        let streamId = SessionIdentifier.make(prefix: "st_")
        let sendsAudio = audio != nil && parameters.publishAudio != false
        let mutedOnEntry = sendsAudio && sessions[sessionId]!.forceMute.mutesOnEntry(streamId)
        let info = StreamInfo(
            streamId: streamId, connection: current.info, creationTime: nowMilliseconds,
            name: parameters.name ?? "", hasAudio: sendsAudio && !mutedOnEntry,
            hasVideo: video != nil && parameters.publishVideo != false,
            videoDimensions: parameters.videoDimensions ?? layers?.last.map { VideoDimensions(width: $0.width, height: $0.height) },
            videoType: videoType, videoLayers: layers)
        let fallback = AudioFallbackSettings(
            subscriberAudioFallbackEnabled: parameters.audioFallback?.subscriberAudioFallbackEnabled ?? (videoType == .camera),
            publisherAudioFallbackEnabled: parameters.audioFallback?.publisherAudioFallbackEnabled ?? false)
        sessions[sessionId]!.streams[info.streamId] = StreamState(
            info: info, publisherConnectionId: connectionId, transportID: transportID, audio: audio, video: video,
            audioFallback: fallback, webRTC: webRTC?.state)
        sessions[sessionId]!.connections[connectionId]!.streamIds.insert(info.streamId)
        sessions[sessionId]!.broadcast(.streamCreated(StreamEvent(stream: info)), excluding: connectionId)
        report(.streamCreated(StreamEvent(stream: info)), in: sessionId)
        if audio != nil, !info.hasAudio { await alignAudioConsumers(of: streamId, in: sessionId) }
        if mutedOnEntry {
            current.events.send(.muteForced(MuteForced(streamId: streamId)))
            logger.info("stream force-muted on entry", metadata: ["session": "\(sessionId)", "stream": "\(streamId)"])
        }
        if video != nil, fallback.publisherAudioFallbackEnabled == true {
            await setAudioFallback(transport: transportID, side: .publisher, enabled: info.hasVideo)
        }
        await recordNewStream(streamId, in: sessionId)
        logger.info("stream created", metadata: ["session": "\(sessionId)", "stream": "\(info.streamId)", "connection": "\(connectionId)"])
        return PublishResult(stream: info, transport: plainAnswer, sdpAnswer: webRTC?.sdpAnswer)
    }

    /// Ends one of the connection's own streams.
    public func unpublish(sessionId: String, connectionId: String, streamId: String) async throws(SignalingError) {
        _ = try ownedStream(streamId, by: connectionId, in: sessionId)
        let transports = removeStream(sessionId: sessionId, streamId: streamId, reason: .clientDisconnected, notifyPublisher: false)
        await closeTransports(transports)
    }

    /// The publisher turns audio or video on or off, or reports new dimensions: every connection hears
    /// `streamPropertyChanged`, and subscribers whose video goes off or on hear why.
    public func updateStream(sessionId: String, connectionId: String, update: StreamUpdate) async throws(SignalingError) {
        let stream = try ownedStream(update.streamId, by: connectionId, in: sessionId)
        if let dimensions = update.videoDimensions { try Self.validate(dimensions) }
        if update.publishVideo == true, stream.video == nil {
            throw .invalidParams("params.publishVideo", "stream \(update.streamId) has no video track")
        }
        if update.publishAudio == true, stream.audio == nil {
            throw .invalidParams("params.publishAudio", "stream \(update.streamId) has no audio track")
        }
        var consumerChanges: [ConsumerChange] = []
        let audioChanges = update.publishAudio.map { $0 != stream.info.hasAudio } ?? false
        if let publishAudio = update.publishAudio, audioChanges {
            changeProperty(.hasAudio, of: update.streamId, in: sessionId, old: .flag(!publishAudio), new: .flag(publishAudio)) {
                $0.hasAudio = publishAudio
            }
        }
        if let publishVideo = update.publishVideo, publishVideo != stream.info.hasVideo {
            changeProperty(.hasVideo, of: update.streamId, in: sessionId, old: .flag(!publishVideo), new: .flag(publishVideo)) {
                $0.hasVideo = publishVideo
            }
            if let recording = archiveConsumer(of: update.streamId, kind: .video, in: sessionId) {
                consumerChanges.append(ConsumerChange(consumer: recording, pause: !publishVideo))
            }
            for subscriber in subscribers(of: stream, in: sessionId) {
                guard let video = subscriber.video else { continue }
                consumerChanges.append(ConsumerChange(consumer: video.consumerID, pause: !publishVideo))
                if subscriber.subscribeToVideo {
                    let change = SubscriberVideoChange(subscriberId: subscriber.id, streamId: stream.info.streamId, reason: .publisherPropertyChanged)
                    let event: SessionEvent = publishVideo ? .videoEnabled(change) : .videoDisabled(change)
                    sessions[sessionId]?.connections[subscriber.connectionId]?.events.send(event)
                    reportVideoChange(event, to: subscriber.connectionId, in: sessionId)
                }
            }
        }
        if let dimensions = update.videoDimensions, dimensions != stream.info.videoDimensions {
            changeProperty(.videoDimensions, of: update.streamId, in: sessionId, old: .dimensions(stream.info.videoDimensions), new: .dimensions(dimensions)) {
                $0.videoDimensions = dimensions
            }
        }
        await apply(consumerChanges, reason: .publisherChoice)
        if audioChanges { await alignAudioConsumers(of: update.streamId, in: sessionId) }
        if let publishVideo = update.publishVideo, stream.video != nil, stream.audioFallback.publisherAudioFallbackEnabled == true {
            // Quality never overrides a choice: with its video off, the publisher's uplink is not judged.
            await setAudioFallback(transport: stream.transportID, side: .publisher, enabled: publishVideo)
        }
    }

    func ownedStream(_ streamId: String, by connectionId: String, in sessionId: String) throws(SignalingError) -> StreamState {
        _ = try connection(connectionId, in: sessionId)
        guard let stream = sessions[sessionId]?.streams[streamId] else {
            throw SignalingError(.notFound, "no stream \(streamId) in this session")
        }
        guard stream.publisherConnectionId == connectionId else {
            throw SignalingError(.notOwner, "stream \(streamId) belongs to another connection")
        }
        return stream
    }

    private func subscribers(of stream: StreamState, in sessionId: String) -> [SubscriberState] {
        stream.subscriberIds.compactMap { sessions[sessionId]?.subscribers[$0] }
    }

    /// Pauses or resumes, for the publisher's choice, the audio consumers of every subscriber of a
    /// stream as its `hasAudio` is now, and returns once the router has applied it: no audio packet
    /// read after that is forwarded to a muted stream's subscribers. Passes over one stream run one
    /// after another, so a moderator's mute and the publisher's unmute reach the router in the
    /// order they were made, whatever the interleaving of their requests.
    func alignAudioConsumers(of streamId: String, in sessionId: String) async {
        let previous = sessions[sessionId]?.streams[streamId]?.audioAlignment
        let alignment = Task {
            await previous?.value
            guard let stream = sessions[sessionId]?.streams[streamId] else { return }
            let recording = archiveConsumer(of: streamId, kind: .audio, in: sessionId)
            let changes =
                subscribers(of: stream, in: sessionId).compactMap { subscriber in
                    subscriber.audio.map { ConsumerChange(consumer: $0.consumerID, pause: !stream.info.hasAudio) }
                } + (recording.map { [ConsumerChange(consumer: $0, pause: !stream.info.hasAudio)] } ?? [])
            await apply(changes, reason: .publisherChoice)
            await muteAudioProducer(of: stream)
        }
        sessions[sessionId]?.streams[streamId]?.audioAlignment = alignment
        await alignment.value
    }

    /// Sets a stream property and tells every connection, the publisher included; `reason` says
    /// who changed it when the publisher did not.
    func changeProperty(
        _ property: StreamProperty, of streamId: String, in sessionId: String, old: StreamPropertyValue,
        new: StreamPropertyValue, reason: StreamPropertyChangeReason? = nil, _ apply: (inout StreamInfo) -> Void
    ) {
        guard var info = sessions[sessionId]?.streams[streamId]?.info else { return }
        apply(&info)
        sessions[sessionId]?.streams[streamId]?.info = info
        sessions[sessionId]?.broadcast(
            .streamPropertyChanged(StreamPropertyChange(stream: info, changedProperty: property, oldValue: old, newValue: new, reason: reason)))
    }

    private static func validate(_ parameters: PublishParameters) throws(SignalingError) {
        guard parameters.audio != nil || parameters.video != nil else {
            throw .invalidParams("params", "publish needs an audio or a video track")
        }
        if let audio = parameters.audio, audio.codec != .opus {
            throw .invalidParams("params.audio.codec", "must be opus, not \(audio.codec.rawValue)")
        }
        if let video = parameters.video, video.codec == .opus {
            throw .invalidParams("params.video.codec", "must be vp8 or h264, not \(video.codec.rawValue)")
        }
        var ssrcs: Set<UInt32> = []
        for (name, track) in [("audio", parameters.audio), ("video", parameters.video)] {
            guard let track else { continue }
            for (field, payloadType) in [("payloadType", track.payloadType), ("rtxPayloadType", track.rtxPayloadType)] {
                if let payloadType, !(96...127).contains(payloadType) {
                    throw .invalidParams("params.\(name).\(field)", "must be a dynamic payload type (96-127), not \(payloadType)")
                }
            }
            if let red = track.redPayloadType {
                let field = "params.\(name).redPayloadType"
                guard name == "audio" else { throw .invalidParams(field, "only an Opus track carries RED (RFC 2198)") }
                // Browsers give RED a payload type from 35-63 once 96-127 run short (Chromium: 63).
                guard (35...63).contains(red) || (96...127).contains(red) else {
                    throw .invalidParams(field, "must be a dynamic payload type (35-63 or 96-127), not \(red)")
                }
                guard red != track.payloadType else { throw .invalidParams(field, "must differ from the Opus payloadType \(red)") }
            }
            if let id = track.audioLevelId {
                guard name == "audio" else { throw .invalidParams("params.video.audioLevelId", "only an audio track carries audio levels") }
                guard (1...14).contains(id) else {
                    throw .invalidParams("params.audio.audioLevelId", "must be a one-byte header extension id (1-14), not \(id)")
                }
            }
            if let layers = track.layers {
                try validate(layers, of: track, named: name)
            } else if (track.rtxSsrc == nil) != (track.rtxPayloadType == nil) {
                throw .invalidParams("params.\(name)", "rtxSsrc and rtxPayloadType go together")
            }
            let trackSSRCs: [UInt32?] = track.layers.map { layers in layers.flatMap { [$0.ssrc, $0.rtxSsrc] } } ?? [track.ssrc, track.rtxSsrc]
            for ssrc in trackSSRCs.compactMap({ $0 }) {
                guard ssrcs.insert(ssrc).inserted else {
                    throw .invalidParams("params.\(name)", "SSRC \(ssrc) is used twice in this stream")
                }
            }
        }
        if let name = parameters.name, name.count > maximumStreamNameCharacters {
            throw .invalidParams("params.name", "has \(name.count) characters; the limit is \(maximumStreamNameCharacters)")
        }
        if let dimensions = parameters.videoDimensions {
            try validate(dimensions)
        }
    }

    /// Most simulcast layers a track may have: what browsers send, and what the selection budgets for.
    static let maximumLayers = 3

    /// A simulcast track's layers: 1-3 of them, video, lowest first (each picture larger than the one
    /// before), sane sizes, rates and bitrates, every layer with an RTX SSRC when the track has an RTX
    /// payload type and none without.
    private static func validate(_ layers: [LayerDescription], of track: TrackDescription, named name: String) throws(SignalingError) {
        let path = "params.\(name).layers"
        guard name == "video" else { throw .invalidParams(path, "only a video track can have layers") }
        guard (1...maximumLayers).contains(layers.count) else {
            throw .invalidParams(path, "must list 1-\(maximumLayers) layers, not \(layers.count)")
        }
        guard track.ssrc == layers[0].ssrc else {
            throw .invalidParams("params.\(name).ssrc", "must be the first layer's SSRC (\(layers[0].ssrc)) or left out, not \(track.ssrc)")
        }
        for (index, layer) in layers.enumerated() {
            let field = "\(path)[\(index)]"
            guard (1...16384).contains(layer.width), (1...16384).contains(layer.height) else {
                throw .invalidParams(field, "must be 1-16384 pixels each way, not \(layer.width)x\(layer.height)")
            }
            guard layer.frameRate.isFinite, layer.frameRate > 0, layer.frameRate <= 240 else {
                throw .invalidParams("\(field).frameRate", "must be above 0 and at most 240, not \(layer.frameRate)")
            }
            if let bitrate = layer.bitrate, !(0...100_000_000).contains(bitrate) {
                throw .invalidParams("\(field).bitrate", "must be 0-100000000 bits per second, not \(bitrate)")
            }
            if (layer.rtxSsrc == nil) != (track.rtxPayloadType == nil) {
                throw .invalidParams(field, "rtxSsrc goes with the track's rtxPayloadType: give both or neither")
            }
            if index > 0, layer.width * layer.height <= layers[index - 1].width * layers[index - 1].height {
                throw .invalidParams(field, "must be larger than the layer before it (layers go lowest first)")
            }
        }
    }

    static func validate(_ dimensions: VideoDimensions) throws(SignalingError) {
        guard (1...16384).contains(dimensions.width), (1...16384).contains(dimensions.height) else {
            throw .invalidParams("params.videoDimensions", "must be 1-16384 pixels each way, not \(dimensions.width)x\(dimensions.height)")
        }
    }


    static func answer(_ transport: PlainTransportParameters) -> TransportAnswer {
        TransportAnswer(
            local: EndpointAddress(host: transport.localAddress.host, port: transport.localAddress.port),
            srtp: SRTPKeying(profile: transport.routerSRTP.profile, key: transport.routerSRTP.keyParameter))
    }

    /// A WebRTC track as the protocol describes tracks (its simulcast layers go to the router
    /// directly: `addLayers`).
    static func trackDescription(_ track: NegotiatedTrack) -> TrackDescription {
        TrackDescription(
            codec: TrackCodec(track.codec), payloadType: track.payloadType, ssrc: track.ssrc ?? 0,
            // An RTX format without an FID group's SSRC is never sent; the router needs both to use it.
            rtxPayloadType: track.rtxSSRC == nil ? nil : track.rtxPayloadType, rtxSsrc: track.rtxSSRC, redPayloadType: track.redPayloadType)
    }

    /// A WebRTC publisher's simulcast layers, with the header extensions that name them by rid. Their
    /// pictures and rates are left for the router to learn from what arrives.
    private static func addLayers(of track: NegotiatedTrack, to options: inout ProducerOptions) {
        let oneByteID = { (uri: String) in track.headerExtensions.first { $0.uri == uri && (1...14).contains($0.id) }?.id }
        options.layers = track.layers.map { layer in
            VideoLayer(
                ssrc: layer.ssrc, rtxSSRC: track.rtxPayloadType == nil ? nil : layer.rtxSSRC, rid: layer.rid, width: 0, height: 0,
                frameRate: 0)
        }
        options.ssrc = track.layers[0].ssrc ?? 0
        options.rtxSSRC = options.layers[0].rtxSSRC
        options.codec.rtxPayloadType = track.rtxPayloadType
        if track.layers.contains(where: { $0.rid != nil }) {
            options.rtpStreamIDExtensionID = oneByteID(HeaderExtensionURI.rtpStreamID)
            if track.rtxPayloadType != nil { options.repairedRTPStreamIDExtensionID = oneByteID(HeaderExtensionURI.repairedRTPStreamID) }
        }
    }

    private static func producerOptions(_ track: TrackDescription, _ headerExtensions: [HeaderExtension]) -> ProducerOptions {
        var options = ProducerOptions(
            codec: CodecParameters(
                name: CodecName(track.codec), payloadType: track.payloadType, rtxPayloadType: track.rtxPayloadType,
                redPayloadType: track.redPayloadType),
            ssrc: track.ssrc, rtxSSRC: track.rtxSsrc,
            // One-byte form only (ids 1-14), the form the router writes in its probes.
            absoluteSendTimeID: headerExtensions.first { $0.uri == HeaderExtensionURI.absoluteSendTime && (1...14).contains($0.id) }?.id)
        options.layers =
            track.layers?.map { layer in
                VideoLayer(
                    ssrc: layer.ssrc, rtxSSRC: layer.rtxSsrc, width: layer.width, height: layer.height, frameRate: layer.frameRate,
                    bitrate: layer.bitrate ?? 0)
            } ?? []
        if track.codec == .opus {
            options.audioLevelID = headerExtensions.first { $0.uri == HeaderExtensionURI.audioLevel && $0.id > 0 }?.id
        }
        return options
    }
}
