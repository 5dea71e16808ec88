import SignalingProtocol

extension SessionDirectory {
    /// A connection's WebSocket ended without `disconnect`. Unless another socket took over already,
    /// the connection waits for its client for the grace period, keeping its streams and
    /// subscriptions and logging its events; the others see nothing. A client cut off for falling
    /// behind, or a server without a grace period, ends the connection at once.
    public func connectionLost(sessionId: String, connectionId: String, socket outbox: ClientOutbox) async {
        guard let connection = sessions[sessionId]?.connections[connectionId], connection.events.detach(outbox) else { return }
        guard reconnection.grace > .zero, !outbox.overflowed else {
            await disconnect(sessionId: sessionId, connectionId: connectionId, reason: .networkDisconnected)
            return
        }
        let generation = connection.graceGeneration + 1
        let grace = reconnection.grace
        sessions[sessionId]!.connections[connectionId]!.info.status = .reconnecting
        sessions[sessionId]!.connections[connectionId]!.graceGeneration = generation
        sessions[sessionId]!.connections[connectionId]!.graceTimer = Task { [weak self] in
            try? await Task.sleep(for: grace)
            guard !Task.isCancelled else { return }
            await self?.graceEnded(sessionId: sessionId, connectionId: connectionId, generation: generation)
        }
        report(.connectionReconnecting(ConnectionEvent(connection: sessions[sessionId]!.connections[connectionId]!.info)), in: sessionId)
        logger.info("connection reconnecting", metadata: ["session": "\(sessionId)", "connection": "\(connectionId)"])
    }

    private func graceEnded(sessionId: String, connectionId: String, generation: UInt64) async {
        guard let connection = sessions[sessionId]?.connections[connectionId], connection.info.status == .reconnecting,
            connection.graceGeneration == generation
        else { return }
        logger.info("connection did not come back within the grace period", metadata: ["session": "\(sessionId)", "connection": "\(connectionId)"])
        // This runs in the grace timer's own task, which `disconnect` would cancel: the closing
        // it does after that (a cascaded subscriber's transport, on another node) must not run
        // cancelled.
        sessions[sessionId]?.connections[connectionId]?.graceTimer = nil
        await disconnect(sessionId: sessionId, connectionId: connectionId, reason: .networkDisconnected)
    }

    /// Puts a connection back on a new WebSocket: checks its secret, sends the reply (id `replyID`)
    /// and then every event after `lastEventSeq`, in order, and closes the socket it had if that one
    /// is still open. A connection whose missed events are no longer kept ends here: its client must
    /// connect afresh, and the others see it leave now rather than at the end of the grace period.
    public func reconnect(_ parameters: ReconnectParameters, socket outbox: ClientOutbox, replyID: Int) async throws(SignalingError) {
        let sessionId = parameters.sessionId
        let connectionId = parameters.connectionId
        guard let connection = sessions[sessionId]?.connections[connectionId] else {
            throw SignalingError(
                .notFound, "connection \(connectionId) is not in session \(sessionId): it left, or its grace period ended; connect afresh")
        }
        guard Self.secretsMatch(parameters.reconnectSecret, connection.reconnectSecret) else {
            throw SignalingError(.invalidToken, "the reconnect secret does not match connection \(connectionId)")
        }
        do throws(ConnectionEvents.ResumeFailure) {
            try connection.events.canResume(after: parameters.lastEventSeq)
        } catch {
            switch error {
            case .unknownEvent(let lastSeen, let lastSent):
                throw .invalidParams("params.lastEventSeq", "is \(lastSeen) but the last event sent to this connection is \(lastSent)")
            case .eventsNoLongerKept(let lastSeen, let firstKept):
                await disconnect(sessionId: sessionId, connectionId: connectionId, reason: .networkDisconnected)
                throw SignalingError(
                    .reconnectRefused,
                    "events \(lastSeen + 1) to \(firstKept - 1) are no longer kept (more than \(reconnection.replayMessages) events or \(reconnection.replayBytes) bytes came while away); connect afresh"
                )
            }
        }
        connection.graceTimer?.cancel()
        let secret = Self.makeReconnectSecret()
        sessions[sessionId]!.connections[connectionId]!.graceTimer = nil
        sessions[sessionId]!.connections[connectionId]!.graceGeneration += 1
        sessions[sessionId]!.connections[connectionId]!.info.status = .connected
        sessions[sessionId]!.connections[connectionId]!.reconnectSecret = secret
        let result = ConnectResult(
            connection: sessions[sessionId]!.connections[connectionId]!.info, role: connection.role, session: sessions[sessionId]!.snapshot(for: connection),
            reconnection: reconnectionGrant(secret: secret), nodeId: placement?.nodeId, iceServers: iceServers(for: connectionId))
        let replaced = connection.events.attach(outbox, first: .reply(id: replyID, .reconnect(result)), after: parameters.lastEventSeq)
        replaced?.close(.replaced, message: "another WebSocket reconnected as this connection")
        if connection.info.status == .reconnecting {
            report(.connectionReconnected(ConnectionEvent(connection: sessions[sessionId]!.connections[connectionId]!.info)), in: sessionId)
        }
        logger.info(
            "connection reconnected",
            metadata: ["session": "\(sessionId)", "connection": "\(connectionId)", "lastEventSeq": "\(parameters.lastEventSeq)", "tookOver": "\(replaced != nil)"])
    }

    /// The fault-injection aid: resets a connection's WebSocket as a failing network would, so its
    /// client's reconnection can be tried on a real client.
    public func dropWebSocket(sessionId: String, connectionId: String) throws(SignalingError) {
        guard let connection = sessions[sessionId]?.connections[connectionId] else {
            throw SignalingError(.notFound, "no connection \(connectionId) in session \(sessionId)")
        }
        guard faultInjection else { throw .invalidParams("body", "fault injection is off (media.faultInjection in the configuration)") }
        connection.events.abortSocket()
    }

    func reconnectionGrant(secret: String) -> ReconnectionGrant? {
        reconnection.grace > .zero ? ReconnectionGrant(secret: secret, graceSeconds: reconnection.graceSeconds) : nil
    }

    static func makeReconnectSecret() -> String {
        SessionIdentifier.make(prefix: "rs_") + SessionIdentifier.make(prefix: "")
    }

    /// Compares in time that depends only on the lengths, so a wrong guess says nothing about how
    /// close it was.
    static func secretsMatch(_ presented: String, _ expected: String) -> Bool {
        let presentedBytes = Array(presented.utf8)
        let expectedBytes = Array(expected.utf8)
        guard presentedBytes.count == expectedBytes.count else { return false }
        var difference: UInt8 = 0
        for index in expectedBytes.indices { difference |= presentedBytes[index] ^ expectedBytes[index] }
        return difference == 0
    }
}
