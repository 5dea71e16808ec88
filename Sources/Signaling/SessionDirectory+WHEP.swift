import MediaControl
import RTPWire
import SessionDescription
import SignalingProtocol

/// WHEP: a player that is one HTTP request. It joins the session as a connection with no socket,
/// subscribes to one stream from its own SDP offer (the router answers, in the payload types the
/// player chose), and leaves when the subscription ends (DELETE, the stream's end, a media failure).
extension SessionDirectory {
    /// What a WHEP POST created.
    public struct WHEPResource: Equatable, Sendable {
        public var subscriberId: String
        public var connectionId: String
        public var sdpAnswer: String
    }

    /// Subscribes a WHEP player to `streamId`.
    public func subscribeWHEP(grant: ClientGrant, streamId: String, sdpOffer: String) async throws(SignalingError) -> WHEPResource {
        let sessionId = grant.sessionId
        guard sessions[sessionId] != nil else { throw SignalingError(.notFound, "no session \(sessionId)") }
        guard grant.role.canSubscribe else { throw SignalingError(.forbidden, "role \(grant.role.rawValue) cannot subscribe") }
        try refuseInEndToEndEncryptedSession(.whepPlayer, in: sessionId)
        guard let stream = sessions[sessionId]?.streams[streamId] else {
            throw SignalingError(.notFound, "no stream \(streamId) in session \(sessionId)")
        }
        let offer = try Self.parse(sdpOffer, field: "sdpOffer")
        let reading: ReceiverNegotiation.Reading
        do throws(SDPError) {
            let videoCodec = stream.video.map { CodecName($0.description.codec) } ?? .vp8
            reading = try ReceiverNegotiation.read(
                offer, videoCodec: videoCodec,
                streamH264Parameters: videoCodec == .h264 ? Self.h264FormatParameters(of: stream) : nil)
        } catch {
            throw .invalidParams("params.sdpOffer", "\(error)")
        }
        let connectionId = try connectHTTPResource(grant: grant)
        do throws(SignalingError) {
            let transport = try await createWebRTCTransport(in: sessionId, toReceive: stream)
            // The router numbers packets with the player's id for the transport-wide sequence number,
            // unless the publisher's packets already carry another extension under that id.
            let publisherExtensions = (stream.audio?.headerExtensions ?? []) + (stream.video?.headerExtensions ?? [])
            let transportWideID = reading.transportWideSequenceID.flatMap { id in
                publisherExtensions.contains { $0.id == id && $0.uri != HeaderExtensionURI.transportWideSequenceNumber } ? nil : id
            }
            // RED goes to a player that offered it: the publisher's, or the router's own on a lossy downlink.
            let redundantAudio = reading.audio?.redPayloadType
            do throws(SignalingError) {
                try await connect(
                    transport.transportID, to: reading.remote, from: "sdpOffer", transportWideSequenceID: transportWideID,
                    redundantAudioPayloadType: redundantAudio)
            } catch {
                await closeTransports([transport.transportID])
                throw error
            }
            // Only the tracks the player's offer has a section for.
            var offered = stream
            if reading.audio == nil { offered.audio = nil }
            if reading.video == nil { offered.video = nil }
            let (audio, video) = try await consumeTracks(
                of: offered, on: transport.transportID, subscribeToAudio: true, subscribeToVideo: true, preference: .unconstrained,
                payloadTypes: (
                    audio: reading.audio.map { ReceiverPayloadTypes(media: $0.payloadType, retransmission: nil) },
                    video: reading.video.map { ReceiverPayloadTypes(media: $0.payloadType, retransmission: $0.rtxPayloadType) }
                ))
            guard audio != nil || video != nil else {
                await closeTransports([transport.transportID])
                throw SignalingError.invalidParams(
                    "params.sdpOffer", "the offer receives \(reading.audio == nil ? "video" : "audio") only, which stream \(streamId) does not have")
            }
            guard sessions[sessionId]?.connections[connectionId] != nil, let current = sessions[sessionId]?.streams[streamId] else {
                await closeTransports([transport.transportID])
                throw SignalingError(.notFound, "stream \(streamId) ended while subscribing")
            }
            try await refuseIfFailedWhileSettingUp(transport.transportID)
            let subscriber = SubscriberState(
                id: SessionIdentifier.make(prefix: "sb_"), streamId: streamId, connectionId: connectionId,
                transportID: transport.transportID, audio: audio, video: video, subscribeToAudio: true, subscribeToVideo: true)
            await record(subscriber, of: current, audioConsumedWith: stream.info.hasAudio, in: sessionId)
            var tracks = Self.outgoingTracks(
                of: current, audio: audio, video: video,
                transportWide: transportWideID.map { HeaderExtension(id: $0, uri: HeaderExtensionURI.transportWideSequenceNumber) },
                mids: (audio: reading.audio?.mid ?? "", video: reading.video?.mid ?? ""), videoFormatParameters: reading.video?.formatParameters)
            for index in tracks.indices where tracks[index].kind == "audio" { tracks[index].redPayloadType = redundantAudio }
            let answer = ReceiverNegotiation.answer(
                to: offer, tracks: tracks, local: Self.localDescription(transport), sessionID: Self.sdpSessionID())
            return WHEPResource(subscriberId: subscriber.id, connectionId: connectionId, sdpAnswer: answer.description)
        } catch {
            await disconnect(sessionId: sessionId, connectionId: connectionId, reason: .clientDisconnected)
            throw error
        }
    }

    /// Ends a WHEP resource (DELETE): the subscription, then its connection.
    public func endWHEP(grant: ClientGrant, subscriberId: String) async throws(SignalingError) {
        guard let subscriber = sessions[grant.sessionId]?.subscribers[subscriberId],
            sessions[grant.sessionId]?.connections[subscriber.connectionId]?.isHTTPResource == true
        else { throw SignalingError(.notFound, "no WHEP resource \(subscriberId) in session \(grant.sessionId)") }
        guard grant.role.canSubscribe else { throw SignalingError(.forbidden, "role \(grant.role.rawValue) cannot end a WHEP subscription") }
        await disconnect(sessionId: grant.sessionId, connectionId: subscriber.connectionId, reason: .clientDisconnected)
    }
}
