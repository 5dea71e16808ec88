import MediaControl
import RTPWire
import SessionDescription
import SignalingProtocol

/// WebRTC transports: SDP offer / answer for publishers (the client offers) and subscribers (the
/// router offers), ICE restarts, and what happens when the media connection fails.
extension SessionDirectory {
    /// What a publisher's offer negotiated: the transport and the answer, and the tracks to produce.
    struct PublisherNegotiationResult {
        var state: PublisherWebRTCState
        var sdpAnswer: String
        var audio: NegotiatedTrack?
        var video: NegotiatedTrack?
    }

    /// Parses a publisher's offer, creates its transport and answers. The transport is closed again
    /// when the offer cannot be served.
    func negotiatePublisher(sdpOffer: String, in sessionId: String) async throws(SignalingError) -> PublisherNegotiationResult {
        let offer = try Self.parse(sdpOffer, field: "sdpOffer")
        let local = try await createWebRTCTransport(in: sessionId)
        do throws(SignalingError) {
            let state = PublisherWebRTCState(transport: local, sdpSessionID: Self.sdpSessionID(), sdpVersion: 1)
            let negotiated: (answer: SessionDescription, remote: RemoteTransportDescription, tracks: [NegotiatedTrack])
            do throws(SDPError) {
                negotiated = try PublisherNegotiation.answer(
                    offer: offer, local: Self.localDescription(local), sessionID: state.sdpSessionID, sessionVersion: state.sdpVersion,
                    redundantAudio: !isEndToEndEncrypted(sessionId))
            } catch {
                throw .invalidParams("params.sdpOffer", "\(error)")
            }
            var result = PublisherNegotiationResult(state: state, sdpAnswer: negotiated.answer.description)
            for track in negotiated.tracks {
                switch track.kind {
                case "audio" where result.audio == nil: result.audio = track
                case "video" where result.video == nil: result.video = track
                default:
                    throw .invalidParams(
                        "params.sdpOffer", "media section \(track.mid) is a second \(track.kind) track; a stream carries one audio and one video track")
                }
            }
            let transportWide = negotiated.tracks.lazy.flatMap(\.headerExtensions)
                .first { $0.uri == HeaderExtensionURI.transportWideSequenceNumber && negotiated.tracks.contains { $0.rtcpFeedback.contains("transport-cc") } }
            try await connect(local.transportID, to: negotiated.remote, from: "sdpOffer", transportWideSequenceID: transportWide?.id)
            return result
        } catch {
            await closeTransports([local.transportID])
            throw error
        }
    }

    /// The router's offer to a new WebRTC subscriber, for the consumers it forwards; without RED in an
    /// end-to-end encrypted session, where the router cannot make or strip it.
    func offerToSubscriber(
        transport: WebRTCTransportParameters, stream: StreamState, audio: ConsumerParameters?, video: ConsumerParameters?, in sessionId: String
    ) -> SubscriberWebRTCState {
        let transportWide = HeaderExtension(
            id: SubscriberNegotiation.transportWideSequenceID(
                publisherExtensions: (stream.audio?.headerExtensions ?? []) + (stream.video?.headerExtensions ?? [])),
            uri: HeaderExtensionURI.transportWideSequenceNumber)
        var tracks = Self.outgoingTracks(
            of: stream, audio: audio, video: video, transportWide: transportWide, mids: (audio: "0", video: audio == nil ? "0" : "1"))
        if isEndToEndEncrypted(sessionId) {
            for index in tracks.indices { tracks[index].redPayloadType = nil }
        }
        let sessionID = Self.sdpSessionID()
        let offer = SubscriberNegotiation.offer(tracks: tracks, local: Self.localDescription(transport), sessionID: sessionID, sessionVersion: 1)
        return SubscriberWebRTCState(transport: transport, offer: offer, tracks: tracks, sdpSessionID: sessionID, sdpVersion: 1)
    }

    /// The tracks the router sends a WebRTC subscriber, in the payload types its consumers send with
    /// and with the extensions the router writes.
    /// `videoFormatParameters`: the receiver's own for the payload type it chose, when it offered.
    static func outgoingTracks(
        of stream: StreamState, audio: ConsumerParameters?, video: ConsumerParameters?, transportWide: HeaderExtension?,
        mids: (audio: String, video: String), videoFormatParameters: String? = nil
    ) -> [OutgoingTrack] {
        var tracks: [OutgoingTrack] = []
        let cname = "switchyard-\(stream.info.streamId)"
        let numbering = transportWide.map { [$0] } ?? []
        if let audio {
            tracks.append(
                OutgoingTrack(
                    mid: mids.audio, kind: "audio", codecName: audio.codec.name.encodingName, payloadType: audio.codec.payloadType,
                    clockRate: audio.codec.clockRate, channels: 2, ssrc: audio.ssrc, cname: cname, streamID: stream.info.streamId, trackID: "\(stream.info.streamId)-audio",
                    headerExtensions: forwardedExtensions(of: stream.audio) + numbering, rtcpFeedback: ["transport-cc"],
                    fmtp: "minptime=10;useinbandfec=1", redPayloadType: Self.offeredRedPayloadType(for: audio.codec)))
        }
        if let video {
            let codec = video.codec.name
            tracks.append(
                OutgoingTrack(
                    mid: mids.video, kind: "video", codecName: codec.encodingName, payloadType: video.codec.payloadType,
                    clockRate: video.codec.clockRate, channels: nil, ssrc: video.ssrc, cname: cname, streamID: stream.info.streamId, trackID: "\(stream.info.streamId)-video",
                    headerExtensions: forwardedExtensions(of: stream.video) + numbering,
                    rtcpFeedback: ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"],
                    fmtp: videoFormatParameters ?? (codec == .h264 ? Self.h264FormatParameters(of: stream) : nil),
                    rtxPayloadType: video.rtxSSRC == nil ? nil : video.codec.rtxPayloadType, rtxSSRC: video.rtxSSRC))
        }
        return tracks
    }

    /// The RED payload type a subscriber is offered: the publisher's when it sends RED; otherwise one
    /// beside the Opus (63, as Chromium numbers it), since the router may add RED itself toward a
    /// lossy subscriber that takes it (docs/red.md).
    static func offeredRedPayloadType(for codec: CodecParameters) -> UInt8 {
        codec.redPayloadType ?? (codec.payloadType == 63 ? 62 : 63)
    }

    /// An H.264 stream's `a=fmtp` for its WebRTC subscribers: the publisher's own, or for a plain
    /// publisher, which announces none, packetization mode 1 in the constrained baseline profile with
    /// the level left to the stream (`level-asymmetry-allowed`).
    static func h264FormatParameters(of stream: StreamState) -> String {
        stream.video?.formatParameters ?? "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"
    }

    /// The subscriber's answer to the router's offer: its ICE credentials and certificate fingerprint.
    public func answerSubscriber(sessionId: String, connectionId: String, answer: SubscriberAnswer) async throws(SignalingError) {
        let subscriber = try ownedSubscriber(answer.subscriberId, by: connectionId, in: sessionId)
        guard let webRTC = subscriber.webRTC else {
            throw .invalidParams("params.subscriberId", "subscriber \(answer.subscriberId) uses a plain transport; answerSubscriber is for WebRTC subscribers")
        }
        let parsed = try Self.parse(answer.sdpAnswer, field: "sdpAnswer")
        let remote: RemoteTransportDescription
        do throws(SDPError) {
            remote = try SubscriberNegotiation.acceptAnswer(parsed, to: webRTC.offer)
        } catch {
            throw .invalidParams("params.sdpAnswer", "\(error)")
        }
        let transportWide = SubscriberNegotiation.acceptedTransportWideSequenceID(in: parsed, offer: webRTC.offer)
        let redundantAudio = SubscriberNegotiation.acceptedRedundantAudioPayloadType(in: parsed, offer: webRTC.offer)
        try await connect(
            subscriber.transportID, to: remote, from: "sdpAnswer", transportWideSequenceID: transportWide, redundantAudioPayloadType: redundantAudio)
    }

    /// ICE restart: a publisher brings a new offer and gets a new answer; a subscriber gets a new offer
    /// to answer with `answerSubscriber`. DTLS and SRTP stay as they are.
    public func restartICE(sessionId: String, connectionId: String, parameters: ICERestartParameters) async throws(SignalingError) -> ICERestartResult {
        switch (parameters.streamId, parameters.subscriberId) {
        case (let streamId?, nil):
            let stream = try ownedStream(streamId, by: connectionId, in: sessionId)
            guard var webRTC = stream.webRTC else {
                throw .invalidParams("params.streamId", "stream \(streamId) uses a plain transport; ICE restart is for WebRTC")
            }
            guard let sdpOffer = parameters.sdpOffer else {
                throw .invalidParams("params.sdpOffer", "required to restart ICE for a stream (an offer made with iceRestart)")
            }
            let offer = try Self.parse(sdpOffer, field: "sdpOffer")
            let remoteICE: ICEParameters
            do throws(SDPError) {
                // The client's new credentials are read first: the router's new ones go into the answer.
                let probe = try PublisherNegotiation.answer(offer: offer, local: Self.placeholderLocal, sessionID: 0)
                remoteICE = ICEParameters(usernameFragment: probe.remote.iceUsernameFragment, password: probe.remote.icePassword)
            } catch {
                throw .invalidParams("params.sdpOffer", "\(error)")
            }
            webRTC.transport.ice = try await restartICE(stream.transportID, remote: remoteICE)
            webRTC.sdpVersion += 1
            sessions[sessionId]?.streams[streamId]?.webRTC = webRTC
            do throws(SDPError) {
                let negotiated = try PublisherNegotiation.answer(
                    offer: offer, local: Self.localDescription(webRTC.transport), sessionID: webRTC.sdpSessionID,
                    sessionVersion: webRTC.sdpVersion, redundantAudio: !isEndToEndEncrypted(sessionId))
                return ICERestartResult(sdpAnswer: negotiated.answer.description)
            } catch {
                throw .invalidParams("params.sdpOffer", "\(error)")
            }
        case (nil, let subscriberId?):
            let subscriber = try ownedSubscriber(subscriberId, by: connectionId, in: sessionId)
            guard var webRTC = subscriber.webRTC else {
                throw .invalidParams("params.subscriberId", "subscriber \(subscriberId) uses a plain transport; ICE restart is for WebRTC")
            }
            webRTC.transport.ice = try await restartICE(subscriber.transportID, remote: nil)
            webRTC.sdpVersion += 1
            webRTC.offer = SubscriberNegotiation.offer(
                tracks: webRTC.tracks, local: Self.localDescription(webRTC.transport), sessionID: webRTC.sdpSessionID,
                sessionVersion: webRTC.sdpVersion)
            sessions[sessionId]?.subscribers[subscriberId]?.webRTC = webRTC
            return ICERestartResult(sdpOffer: webRTC.offer.description)
        default:
            throw .invalidParams("params", "restartIce takes either streamId (with sdpOffer) or subscriberId")
        }
    }

    /// The media plane gave up on a transport: the stream or subscription it carried ends, and the
    /// people concerned hear why.
    public func transportFailed(_ transportID: TransportID, reason: String) async {
        for sessionId in sessions.keys {
            if let stream = sessions[sessionId]?.streams.values.first(where: { $0.transportID == transportID }) {
                logger.warning(
                    "stream media failed", metadata: ["session": "\(sessionId)", "stream": "\(stream.info.streamId)", "reason": "\(reason)"])
                let transports = removeStream(sessionId: sessionId, streamId: stream.info.streamId, reason: .mediaFailed, notifyPublisher: true)
                await closeTransports(transports)
                return
            }
            if let subscriber = sessions[sessionId]?.subscribers.values.first(where: { $0.transportID == transportID }) {
                logger.warning(
                    "subscriber media failed", metadata: ["session": "\(sessionId)", "subscriber": "\(subscriber.id)", "reason": "\(reason)"])
                _ = removeSubscriber(sessionId: sessionId, subscriberId: subscriber.id)
                sessions[sessionId]?.connections[subscriber.connectionId]?.events.send(
                    .subscriberDestroyed(
                        SubscriberEnded(subscriberId: subscriber.id, streamId: subscriber.streamId, reason: .mediaFailed, message: reason)))
                await closeTransports([subscriber.transportID])
                return
            }
        }
        if transportsBeingSetUp.contains(transportID) { failuresBeforeRecorded[transportID] = reason }
    }

    /// The fault-injection test aid on one subscriber's downlink or, with `streamId`, one stream's
    /// uplink: drops `dropShare` of the RTP and caps its rate at `rateCapBitrate`.
    public func setFaultInjection(
        sessionId: String, subscriberId: String? = nil, streamId: String? = nil, fault: RESTBody.Fault
    ) async throws(SignalingError) {
        guard fault.dropShare != nil || fault.rateCapBitrate != nil else {
            throw .invalidParams("body", "give dropShare, rateCapBitrate or both")
        }
        let transportID: TransportID
        if let subscriberId {
            guard let subscriber = sessions[sessionId]?.subscribers[subscriberId] else {
                throw SignalingError(.notFound, "no subscriber \(subscriberId) in session \(sessionId)")
            }
            transportID = subscriber.transportID
        } else {
            guard let stream = sessions[sessionId]?.streams[streamId ?? ""] else {
                throw SignalingError(.notFound, "no stream \(streamId ?? "") in session \(sessionId)")
            }
            transportID = stream.transportID
        }
        do {
            try await media.setFaultInjection(transport: transportID, dropShare: fault.dropShare, rateCapBitrate: fault.rateCapBitrate)
        } catch {
            throw Self.mediaError(error, at: "body")
        }
    }

    /// A WebRTC transport in the session's router; one made to receive `stream` may be placed on
    /// another worker when the stream's audience is large.
    func createWebRTCTransport(in sessionId: String, toReceive stream: StreamState? = nil) async throws(SignalingError) -> WebRTCTransportParameters {
        let routerID = try await router(of: sessionId)
        do {
            let transport = try await media.createWebRTCTransport(router: routerID, toConsume: stream?.producerIDs ?? [])
            transportsBeingSetUp.insert(transport.transportID)
            return transport
        } catch {
            throw Self.mediaError(error)
        }
    }

    /// Whether the media plane gave up on a WebRTC transport while its request was under way; the
    /// request then closes it and refuses with the media plane's reason instead of recording a stream
    /// or subscriber nothing would ever end.
    func refuseIfFailedWhileSettingUp(_ transportID: TransportID) async throws(SignalingError) {
        transportsBeingSetUp.remove(transportID)
        guard let reason = failuresBeforeRecorded.removeValue(forKey: transportID) else { return }
        await closeTransports([transportID])
        throw SignalingError(.mediaError, "the media connection failed before the request completed: \(reason)")
    }

    /// - Parameter sdpField: The request field the remote description came from, for errors.
    func connect(
        _ transportID: TransportID, to remote: RemoteTransportDescription, from sdpField: String, transportWideSequenceID: UInt8? = nil,
        redundantAudioPayloadType: UInt8? = nil
    ) async throws(SignalingError) {
        let parameters = WebRTCRemoteParameters(
            ice: ICEParameters(usernameFragment: remote.iceUsernameFragment, password: remote.icePassword),
            fingerprint: CertificateFingerprint(algorithm: remote.fingerprint.algorithm, bytes: remote.fingerprint.bytes),
            transportWideSequenceID: transportWideSequenceID,
            redundantAudio: redundantAudioPayloadType.map { .redundant(payloadType: $0) } ?? .primaryOnly)
        do {
            try await media.connectWebRTCTransport(transportID, remote: parameters)
        } catch {
            throw Self.mediaError(error, at: "params", sdpField: sdpField)
        }
    }

    private func restartICE(_ transportID: TransportID, remote: ICEParameters?) async throws(SignalingError) -> ICEParameters {
        do {
            return try await media.restartICE(transportID, remote: remote)
        } catch {
            throw Self.mediaError(error)
        }
    }

    static func parse(_ text: String, field: String) throws(SignalingError) -> SessionDescription {
        do throws(SDPError) {
            return try SessionDescription(parsing: text)
        } catch {
            throw .invalidParams("params.\(field)", "\(error)")
        }
    }

    static func localDescription(_ transport: WebRTCTransportParameters) -> LocalTransportDescription {
        LocalTransportDescription(
            iceUsernameFragment: transport.ice.usernameFragment, icePassword: transport.ice.password,
            fingerprint: DTLSFingerprint(algorithm: transport.fingerprint.algorithm, bytes: transport.fingerprint.bytes),
            candidates: transport.candidates.map { ICECandidate(host: $0.host, port: $0.port, priority: hostCandidatePriority, foundation: "1") }
                + transport.tcpCandidates.map {
                    ICECandidate(host: $0.host, port: $0.port, priority: passiveTCPCandidatePriority, foundation: "2", transportProtocol: .passiveTCP)
                })
    }

    /// RFC 8445 section 5.1.2.1 for a host candidate of component 1: type preference 126, local 65535.
    static let hostCandidatePriority: UInt32 = (126 << 24) | (65_535 << 8) | 255
    /// RFC 6544 section 4.2 for a passive TCP host candidate: local preference 2^13 * 4 (passive's
    /// direction preference) + 8191, below the UDP candidate's 65535, so a client takes TCP only
    /// when UDP fails.
    static let passiveTCPCandidatePriority: UInt32 = (126 << 24) | ((4 << 13 | 8191) << 8) | 255

    private static let placeholderLocal = LocalTransportDescription(
        iceUsernameFragment: "", icePassword: "", fingerprint: DTLSFingerprint(algorithm: "sha-256", bytes: []), candidates: [])

    /// The header extensions a subscriber's offer announces: those the router leaves meaningful when it
    /// forwards (send time and audio level travel with the packet), with the publisher's ids, since
    /// the router does not rewrite extensions.
    private static func forwardedExtensions(of track: PublishedTrack?) -> [HeaderExtension] {
        let forwarded: Set<String> = [HeaderExtensionURI.absoluteSendTime, HeaderExtensionURI.audioLevel]
        return (track?.headerExtensions ?? []).filter { forwarded.contains($0.uri) }
    }

    static func sdpSessionID() -> UInt64 { UInt64.random(in: 1...UInt64(Int64.max)) }
}
