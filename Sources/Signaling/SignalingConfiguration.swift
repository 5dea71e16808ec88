/// How the signaling server treats its clients.
public struct SignalingConfiguration: Equatable, Sendable {
    /// Largest WebSocket message accepted, in bytes; a larger one closes the connection (1009).
    public var maximumMessageBytes: Int
    /// Messages per second a connection may send, sustained.
    public var messagesPerSecond: Double
    /// Messages a connection may send at once.
    public var messageBurst: Int
    /// Refused messages in a row after which the connection is closed.
    public var rateViolationsBeforeDisconnect: Int
    /// Time a new WebSocket has to send `connect`.
    public var connectTimeout: Duration
    /// Time between WebSocket pings, so dead connections are noticed.
    public var pingInterval: Duration
    /// How far a client may fall behind in reading before it is cut off.
    public var backlog: ClientOutbox.Limits
    /// What the server keeps for a client whose WebSocket dropped.
    public var reconnection: ReconnectionSettings
    public var limits: SignalingLimits
    /// Test aids (the daemon sets it from `media.faultInjection`): the REST API may drop a
    /// connection's WebSocket.
    public var faultInjection: Bool
    /// The STUN and TURN servers clients are given, with credentials minted per connection; nil
    /// gives them none.
    public var turn: TURNConfiguration?

    public init(
        maximumMessageBytes: Int = 65_536, messagesPerSecond: Double = 50, messageBurst: Int = 100,
        rateViolationsBeforeDisconnect: Int = 50, connectTimeout: Duration = .seconds(10),
        pingInterval: Duration = .seconds(15), backlog: ClientOutbox.Limits = ClientOutbox.Limits(),
        reconnection: ReconnectionSettings = ReconnectionSettings(), limits: SignalingLimits = SignalingLimits(), faultInjection: Bool = false,
        turn: TURNConfiguration? = nil
    ) {
        self.maximumMessageBytes = maximumMessageBytes
        self.messagesPerSecond = messagesPerSecond
        self.messageBurst = messageBurst
        self.rateViolationsBeforeDisconnect = rateViolationsBeforeDisconnect
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.backlog = backlog
        self.reconnection = reconnection
        self.faultInjection = faultInjection
        self.limits = limits
        self.turn = turn
    }
}
