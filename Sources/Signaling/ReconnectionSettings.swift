/// How long the server keeps a connection whose WebSocket dropped, and how much of what happened
/// meanwhile it keeps for the client's return.
public struct ReconnectionSettings: Equatable, Sendable {
    /// How long a dropped connection keeps its streams and subscriptions; zero ends it at once.
    public var grace: Duration
    /// The latest events kept per connection for replay, in messages and in bytes.
    public var replayMessages: Int
    public var replayBytes: Int
    /// Signal ids remembered per connection to deliver a resent signal once.
    public var rememberedSignalIds: Int
    /// How long an event stays in the log while the connection's socket is there: long enough to
    /// cover a socket that died unnoticed until its missed pings closed it.
    public var retainedWhileConnected: Duration

    public init(
        grace: Duration = .seconds(20), replayMessages: Int = 1024, replayBytes: Int = 1 << 20, rememberedSignalIds: Int = 1024,
        retainedWhileConnected: Duration = .seconds(45)
    ) {
        self.grace = grace
        self.replayMessages = replayMessages
        self.replayBytes = replayBytes
        self.rememberedSignalIds = rememberedSignalIds
        self.retainedWhileConnected = retainedWhileConnected
    }

    /// The grace in whole seconds, as the `connect` reply states it.
    var graceSeconds: Int { Int(grace.components.seconds) }
}
