import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import MediaControl
import NIOCore
import SignalingProtocol

/// The signaling side of Switchyard: the session directory, the client WebSocket at `/v1/ws`, the
/// REST API under `/v1/sessions`, WHIP under `/v1/whip` and WHEP under `/v1/whep`, registered on a router the daemon owns.
public struct SignalingServer: Sendable {
    public static let webSocketPath = "/v1/ws"

    public let directory: SessionDirectory
    public let tokens: TokenAuthority
    public let configuration: SignalingConfiguration
    private let sockets = OpenSockets()
    private let handler: ClientSessionHandler
    private let rest: RESTRoutes
    private let whip: WHIPWHEPRoutes

    public init(
        media: any MediaControl, tokens: TokenAuthority, configuration: SignalingConfiguration, placement: (any SessionPlacement)? = nil,
        activity: (any SessionActivitySink)? = nil, archiving: (any SessionArchiving)? = nil, logger: Logger,
        wallClock: @escaping @Sendable () -> Date = Date.init
    ) {
        directory = SessionDirectory(
            media: media, limits: configuration.limits, reconnection: configuration.reconnection, faultInjection: configuration.faultInjection,
            placement: placement, turn: configuration.turn, activity: activity, archiving: archiving, logger: logger, wallClock: wallClock)
        self.tokens = tokens
        self.configuration = configuration
        handler = ClientSessionHandler(
            directory: directory, sockets: sockets, tokens: tokens, configuration: configuration, wallClock: wallClock)
        rest = RESTRoutes(directory: directory, tokens: tokens, placement: placement, wallClock: wallClock)
        whip = WHIPWHEPRoutes(
            directory: directory, tokens: tokens, turn: configuration.turn.map(TURNCredentialMinter.init), wallClock: wallClock)
    }

    /// Registers the REST API, WHIP and WHEP, and an answer for a plain GET of the WebSocket path.
    public func register(on router: Router<BasicRequestContext>) {
        router.get(RouterPath(Self.webSocketPath)) { _, _ in
            Response(
                status: .upgradeRequired, headers: [.upgrade: "websocket", .contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "\(Self.webSocketPath) is a WebSocket: send an upgrade request\n")))
        }
        rest.register(on: router)
        whip.register(on: router)
    }

    /// Decides whether a request upgrades to the client WebSocket: a GET of `/v1/ws` does. The
    /// session handler gets the connection's channel, so a client that stops reading can be cut off.
    /// (Hummingbird's router-based upgrade keeps each request context alive in a reference cycle.)
    public func webSocketUpgrade(
        _ request: HTTPRequest, channel: any Channel, logger: Logger
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard request.method == .get, request.path?.split(separator: "?", maxSplits: 1).first.map(String.init) == Self.webSocketPath else {
            return .dontUpgrade
        }
        let handler = self.handler
        return .upgrade([:]) { inbound, outbound, context in
            try await handler.run(inbound: inbound, outbound: outbound, channel: channel, logger: context.logger)
        }
    }

    /// Graceful shutdown: refuses new sockets, tells every client why, closes their sessions and
    /// routers, and waits up to `drainTime` for the sockets to finish closing. A draining node of a
    /// cluster says so, and its clients connect again to continue on another node; it takes new
    /// sockets while its clients leave (a `connect` is sent to the session's new node), then closes
    /// and refuses them with the same word, so none is left for the HTTP server's stop to close
    /// with a bare 1000.
    public func shutdown(drainTime: Duration, reason: SessionDisconnectedReason = .serverShutdown) async {
        let message =
            reason == .nodeDraining
            ? "this node is draining; connect again to continue the session on another node" : "the server is shutting down"
        let start = ContinuousClock.now
        sockets.closeAll(reason, message: message, refusingNew: reason != .nodeDraining)
        await directory.closeAll(reason: reason, message: message)
        // The last tenth of the time is for the sockets that opened during a drain to hear why.
        await waitForSocketsToClose(until: start + drainTime * 0.9)
        sockets.closeAll(reason, message: message, refusingNew: true)
        await waitForSocketsToClose(until: start + drainTime)
    }

    private func waitForSocketsToClose(until deadline: ContinuousClock.Instant) async {
        while sockets.count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Client WebSockets open now, connected to a session or not.
    public var openWebSockets: Int { sockets.count }

    /// WebSocket settings: the frame limit and text that must be valid UTF-8 (RFC 6455 section 8.1:
    /// invalid text fails the connection with 1007). Keep-alive pings are `WebSocketKeepalive`'s.
    public var webSocketConfiguration: WebSocketServerConfiguration {
        WebSocketServerConfiguration(maxFrameSize: configuration.maximumMessageBytes, autoPing: .disabled, validateUTF8: true)
    }
}
