/// Limits that keep one client or one session from taking the whole server.
public struct SignalingLimits: Equatable, Sendable {
    /// Connections in one session.
    public var connectionsPerSession: Int
    /// Streams one connection publishes at once.
    public var streamsPerConnection: Int
    /// Streams one connection subscribes to at once.
    public var subscribersPerConnection: Int
    /// Sessions on this server.
    public var sessions: Int

    public init(connectionsPerSession: Int = 1000, streamsPerConnection: Int = 4, subscribersPerConnection: Int = 256, sessions: Int = 10_000) {
        self.connectionsPerSession = connectionsPerSession
        self.streamsPerConnection = streamsPerConnection
        self.subscribersPerConnection = subscribersPerConnection
        self.sessions = sessions
    }
}
