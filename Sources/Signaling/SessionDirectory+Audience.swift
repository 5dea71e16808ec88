import SignalingProtocol

extension SessionDirectory {
    /// The least time between two `connectionCountChanged` of one session, so a crowd joining at
    /// once costs each listener one event a second, not one per join.
    static let connectionCountInterval = Duration.seconds(1)

    /// After a join or a leave: sends the count to the connections that hear no connection events,
    /// once `connectionCountInterval` has passed, unless a send is already due.
    func scheduleConnectionCount(in sessionId: String) {
        guard let session = sessions[sessionId], !session.connectionCountScheduled,
            session.connectionEventListeners.count < session.connections.count
        else { return }
        sessions[sessionId]?.connectionCountScheduled = true
        Task { [weak self] in
            try? await Task.sleep(for: Self.connectionCountInterval)
            await self?.announceConnectionCount(in: sessionId)
        }
    }

    /// Sends the count, serialized once and without a `seq`, to every connection that hears no
    /// connection events, if it changed since the last one sent. The sending (a wake of each
    /// socket's writer: 15,000 of them in a broadcast) happens off the directory, so that joins and
    /// other sessions' requests do not queue behind it.
    private func announceConnectionCount(in sessionId: String) {
        guard let session = sessions[sessionId] else { return }
        sessions[sessionId]?.connectionCountScheduled = false
        let count = session.connections.count
        guard count != session.announcedConnectionCount else { return }
        sessions[sessionId]?.announcedConnectionCount = count
        let text = String(decoding: ServerMessage.event(.connectionCountChanged(ConnectionCount(connectionCount: count))).encoded(), as: UTF8.self)
        let recipients = session.connections.values.filter { !$0.receivesConnectionEvents }.map(\.events)
        Task.detached {
            for recipient in recipients { recipient.sendUnlogged(encodedEvent: text) }
        }
    }

    /// Up to `limit` of a session's connections whose ids come after `after`, in id order: the REST
    /// API's paged listing, for an app that needs the whole audience of a broadcast.
    public func connectionPage(of sessionId: String, after: String?, limit: Int) throws(SignalingError) -> ConnectionPage {
        guard let session = sessions[sessionId] else { throw SignalingError(.notFound, "no session \(sessionId)") }
        let following = session.connections.keys.filter { id in after.map { id > $0 } ?? true }.sorted()
        let page = following.prefix(limit).compactMap { session.connections[$0]?.info }
        return ConnectionPage(
            connections: page, connectionCount: session.connections.count, next: following.count > limit ? page.last?.connectionId : nil)
    }
}
