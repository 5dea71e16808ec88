import SignalingProtocol

/// WHIP (RFC 9725): a publisher that is one HTTP request, not a WebSocket. It joins the session as a
/// connection of its own with no socket, publishes one stream from its SDP offer, and leaves when the
/// stream ends (DELETE on its resource, a media failure, a moderator's unpublish).
extension SessionDirectory {
    /// What a WHIP POST created.
    public struct WHIPResource: Equatable, Sendable {
        public var streamId: String
        public var connectionId: String
        public var sdpAnswer: String
    }

    /// Publishes a stream from a WHIP offer. The session must exist (created over REST or by a
    /// connected client); the stream's name is `name`, or else the token's connection data.
    public func publishWHIP(grant: ClientGrant, name: String?, sdpOffer: String) async throws(SignalingError) -> WHIPResource {
        guard sessions[grant.sessionId] != nil else { throw SignalingError(.notFound, "no session \(grant.sessionId)") }
        guard grant.role.canPublish else { throw SignalingError(.forbidden, "role \(grant.role.rawValue) cannot publish") }
        try refuseInEndToEndEncryptedSession(.whipPublisher, in: grant.sessionId)
        let connectionId = try connectHTTPResource(grant: grant)
        do throws(SignalingError) {
            let published = try await publish(
                sessionId: grant.sessionId, connectionId: connectionId,
                parameters: PublishParameters(name: name ?? grant.connectionData, sdpOffer: sdpOffer))
            guard let answer = published.sdpAnswer else { throw SignalingError(.internalError, "a WebRTC publish gave no SDP answer") }
            return WHIPResource(streamId: published.stream.streamId, connectionId: connectionId, sdpAnswer: answer)
        } catch {
            await disconnect(sessionId: grant.sessionId, connectionId: connectionId, reason: .clientDisconnected)
            throw error
        }
    }

    /// Joins a WHIP publisher or WHEP player to its session as a connection without a socket. Nobody
    /// reads its events: an outbox that holds none drops them as they come.
    func connectHTTPResource(grant: ClientGrant) throws(SignalingError) -> String {
        let connected = try connect(grant: grant, outbox: ClientOutbox(limits: ClientOutbox.Limits(messages: 0, bytes: 0)))
        sessions[grant.sessionId]?.connections[connected.connection.connectionId]?.isHTTPResource = true
        return connected.connection.connectionId
    }

    /// Ends a WHIP resource (DELETE): the stream goes with `clientDisconnected`, then its connection.
    /// `grant` must be for the resource's session and allow publishing.
    public func endWHIP(grant: ClientGrant, streamId: String) async throws(SignalingError) {
        guard let stream = sessions[grant.sessionId]?.streams[streamId],
            sessions[grant.sessionId]?.connections[stream.publisherConnectionId]?.isHTTPResource == true
        else { throw SignalingError(.notFound, "no WHIP resource \(streamId) in session \(grant.sessionId)") }
        guard grant.role.canPublish else { throw SignalingError(.forbidden, "role \(grant.role.rawValue) cannot end a WHIP stream") }
        await disconnect(sessionId: grant.sessionId, connectionId: stream.publisherConnectionId, reason: .clientDisconnected)
    }

    /// A WHIP publisher's stream or a WHEP player's subscription ended some other way: its connection
    /// follows, once the stream's or subscriber's own bookkeeping is done.
    func endHTTPResource(sessionId: String, connectionId: String, after reason: StreamDestroyedReason) {
        let connectionReason: ConnectionDestroyedReason =
            switch reason {
            case .forceUnpublished, .forceDisconnected: .forceDisconnected
            case .mediaFailed, .networkDisconnected: .networkDisconnected
            case .clientDisconnected: .clientDisconnected
            }
        Task { await self.disconnect(sessionId: sessionId, connectionId: connectionId, reason: connectionReason) }
    }
}
