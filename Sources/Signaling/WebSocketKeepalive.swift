import NIOCore
import NIOWebSocket

/// Keeps a client WebSocket alive and finds a dead peer: every `interval` it sends a ping, and
/// closes the connection with 1001 ("Ping timeout") when the peer has not answered the last ping
/// with a pong by the time the next is due. A handler on an event-loop timer rather than the
/// WebSocket library's pinger, which is a task per connection: Swift's task allocator keeps what a
/// task's frames ever held until the task ends, about 3 KiB for each connection's whole life
/// (docs/capacity.md). It stops once either side has sent a close frame.
final class WebSocketKeepalive: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let interval: TimeAmount
    private var nextPing: Scheduled<Void>?
    private var awaitingPong = false
    private var isClosing = false

    init(interval: TimeAmount) {
        self.interval = interval
    }

    /// Puts a keepalive after `channel`'s WebSocket frame decoder, so that it sees the peer's pongs
    /// before the WebSocket library takes them.
    static func install(on channel: any Channel, every interval: Duration) async throws {
        try await channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            try pipeline.addHandler(WebSocketKeepalive(interval: TimeAmount(interval)), position: .after(decoder))
        }.get()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        schedulePing(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        nextPing?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        nextPing?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data).opcode {
        case .pong: awaitingPong = false
        case .connectionClose: stop()
        default: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { stop() }
        context.write(data, promise: promise)
    }

    private func stop() {
        isClosing = true
        nextPing?.cancel()
    }

    private func schedulePing(_ context: ChannelHandlerContext) {
        guard !isClosing else { return }
        nextPing = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            pingDue(context)
        }
    }

    private func pingDue(_ context: ChannelHandlerContext) {
        guard !isClosing, context.channel.isActive else { return }
        if awaitingPong {
            var reason = context.channel.allocator.buffer(capacity: 14)
            reason.write(webSocketErrorCode: .goingAway)
            reason.writeString("Ping timeout")
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: reason)), promise: nil)
            context.close(promise: nil)
            return
        }
        awaitingPong = true
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
        schedulePing(context)
    }
}
