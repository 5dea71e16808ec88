import SignalingProtocol

extension SessionDirectory {
    /// Who asks: a connection (its role decides) or the app's backend through REST.
    public enum Requester: Equatable, Sendable {
        case connection(String)
        case application

        /// Where the fields of its requests are: `params` of a WebSocket request, the REST `body`.
        var parametersPath: String {
            switch self {
            case .connection: "params"
            case .application: "body"
            }
        }
    }

    /// Delivers a signal to one connection or, without `to`, to every connection (the sender too).
    /// The sender's identity is its connection, whatever the message says.
    public func signal(sessionId: String, from requester: Requester, parameters: SignalParameters) throws(SignalingError) {
        var sender: String?
        if case .connection(let connectionId) = requester {
            let connection = try connection(connectionId, in: sessionId)
            guard connection.role.canSignal else {
                throw SignalingError(.forbidden, "role \(connection.role.rawValue) cannot signal")
            }
            sender = connectionId
        }
        try SignalRules.validate(type: parameters.type, data: parameters.data, signalId: parameters.signalId, at: requester.parametersPath)
        guard let session = sessions[sessionId] else { throw SignalingError(.notFound, "no session \(sessionId)") }
        let delivery = SessionEvent.signal(SignalDelivery(from: sender, type: parameters.type, data: parameters.data))
        let target = try parameters.to.map { target throws(SignalingError) in
            guard let connection = session.connections[target] else {
                throw SignalingError(.notFound, "no connection \(target) in this session")
            }
            return connection
        }
        if let signalId = parameters.signalId, !isFirstSighting(of: signalId, from: sender, in: sessionId) {
            logger.debug("signal resent; delivered before", metadata: ["sender": "\(sender ?? "application")", "signalId": "\(signalId)"])
            return
        }
        if let target {
            target.events.send(delivery)
        } else {
            session.broadcast(delivery)
        }
    }

    /// Records a signal id under its sender (a connection, or the app's backend when `sender` is nil)
    /// and says whether it is new; a connection and the backend each have their own ids.
    private func isFirstSighting(of signalId: String, from sender: String?, in sessionId: String) -> Bool {
        let now = nowMilliseconds
        if let sender {
            return sessions[sessionId]?.connections[sender]?.recentSignalIds.isFirstSighting(of: signalId, nowMilliseconds: now) ?? true
        }
        return sessions[sessionId]?.applicationSignalIds.isFirstSighting(of: signalId, nowMilliseconds: now) ?? true
    }

    /// Removes a connection from the session; it is told why, the others see `forceDisconnected`.
    public func forceDisconnect(sessionId: String, by requester: Requester, connectionId target: String) async throws(SignalingError) {
        try authorizeModeration(requester, in: sessionId, action: "force disconnect")
        guard sessions[sessionId]?.connections[target] != nil else {
            throw SignalingError(.notFound, "no connection \(target) in session \(sessionId)")
        }
        await disconnect(
            sessionId: sessionId, connectionId: target, reason: .forceDisconnected,
            closing: (.forceDisconnected, requester == .application ? "disconnected by the application" : "disconnected by a moderator"))
    }

    /// Ends someone's stream; everyone, its publisher included, sees `streamDestroyed` with
    /// `forceUnpublished`.
    public func forceUnpublish(sessionId: String, by requester: Requester, streamId: String) async throws(SignalingError) {
        try authorizeModeration(requester, in: sessionId, action: "force unpublish")
        guard sessions[sessionId]?.streams[streamId] != nil else {
            throw SignalingError(.notFound, "no stream \(streamId) in session \(sessionId)")
        }
        let transports = removeStream(sessionId: sessionId, streamId: streamId, reason: .forceUnpublished, notifyPublisher: true)
        await closeTransports(transports)
    }

    /// Refuses a connection whose role cannot moderate (`forbidden`, naming the role and `action`),
    /// and a session that does not exist (`notFound`); the app's backend may always moderate.
    func authorizeModeration(_ requester: Requester, in sessionId: String, action: String) throws(SignalingError) {
        guard sessions[sessionId] != nil else { throw SignalingError(.notFound, "no session \(sessionId)") }
        if case .connection(let connectionId) = requester {
            let connection = try connection(connectionId, in: sessionId)
            guard connection.role.canModerate else {
                throw SignalingError(.forbidden, "role \(connection.role.rawValue) cannot \(action); only a moderator can")
            }
        }
    }
}
