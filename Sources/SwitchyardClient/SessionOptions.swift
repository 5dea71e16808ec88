import Logging
import SRTP

/// How a `Session` reaches the daemon and where its media runs.
public struct SessionOptions: Sendable {
    /// The loop that runs this session's media endpoints; many sessions may share one.
    public var mediaLoop: MediaLoop
    /// The local address media sockets bind to (and offer to the router).
    public var mediaAddress: String
    public var srtpProfile: SRTPProfile
    public var requestTimeout: Duration
    /// Whether a dropped WebSocket is reopened (see `SessionClientEvent.sessionDidBeginReconnecting`).
    public var reconnects: Bool
    /// How long reconnection attempts go on before the session gives up.
    public var reconnectTimeout: Duration
    /// How often the client pings the server; a ping unanswered by the next one means the WebSocket
    /// died silently (a half-open connection after a network change), and the session reconnects.
    public var pingInterval: Duration
    /// In a cluster: other ways in (other nodes, other load balancers), tried in turn after the
    /// session's `url` when the session must connect afresh and `url` cannot be reached.
    public var alternativeURLs: [String]
    public var logger: Logger

    public init(
        mediaLoop: MediaLoop, mediaAddress: String = "127.0.0.1", srtpProfile: SRTPProfile = .aeadAES128GCM,
        requestTimeout: Duration = .seconds(10), reconnects: Bool = true, reconnectTimeout: Duration = .seconds(30),
        pingInterval: Duration = .seconds(10), alternativeURLs: [String] = [], logger: Logger = Logger(label: "switchyard-client")
    ) {
        self.alternativeURLs = alternativeURLs
        self.mediaLoop = mediaLoop
        self.mediaAddress = mediaAddress
        self.srtpProfile = srtpProfile
        self.requestTimeout = requestTimeout
        self.reconnects = reconnects
        self.reconnectTimeout = reconnectTimeout
        self.pingInterval = pingInterval
        self.logger = logger
    }
}
