import NIOCore
import Signaling

/// The first handler behind the socket (and TLS) of every admitted HTTP connection. It holds the
/// connection to the limits no parser downstream enforces before the request is known:
/// - the first request's head must arrive within `headerTimeout` (else 408) and be well formed
///   (else 400, or 505 for another HTTP version), no larger than `maximumHeaderBytes` and with at
///   most `maximumHeaderFields` fields (else 431); each answer closes the connection;
/// - once the connection is a WebSocket, a client frame that is not masked fails it with 1002;
/// - a peer that leaves the server's writes queued for `writeStallTimeout` is reset;
/// - when the connection ends, its place in `admission` is given back.
/// Later requests on a kept-alive connection are held to the same sizes by NIO's parser (400) and to
/// `idleTimeout` by Hummingbird.
final class HTTPConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum Phase {
        case notStarted
        case firstHead(HTTPRequestHeadScanner)
        /// The client asked for a WebSocket; its frames are checked from the first byte after the
        /// head, and a violation counts once the server's 101 confirms the upgrade.
        case upgradeRequested(WebSocketClientFrameCheck, sawUnmaskedFrame: Bool)
        case webSocket(WebSocketClientFrameCheck)
        case http
        case closing
    }

    private let limits: HTTPServerLimits
    private let admission: HTTPConnectionAdmission
    private var phase = Phase.notStarted
    private var admittedAddress: String?
    private var headTimer: Scheduled<Void>?
    private var stallTimer: Scheduled<Void>?

    init(limits: HTTPServerLimits, admission: HTTPConnectionAdmission, address: String) {
        self.limits = limits
        self.admission = admission
        admittedAddress = address
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimers()
        if let address = admittedAddress {
            admittedAddress = nil
            admission.release(address)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch phase {
        case .notStarted, .http:
            break
        case .closing:
            return
        case .firstHead(var scanner):
            switch scanner.scan(buffer.readableBytesView) {
            case .needMore:
                phase = .firstHead(scanner)
            case .reject(let rejection):
                refuse(context, rejection.response)
                return
            case .complete(let consumed, let upgradesToWebSocket):
                headTimer?.cancel()
                headTimer = nil
                if upgradesToWebSocket {
                    var check = WebSocketClientFrameCheck()
                    let unmasked = check.scan(buffer.readableBytesView.dropFirst(consumed)) == .unmaskedFrame
                    phase = .upgradeRequested(check, sawUnmaskedFrame: unmasked)
                    if unmasked {
                        context.fireChannelRead(wrapInboundOut(buffer.getSlice(at: buffer.readerIndex, length: consumed)!))
                        return
                    }
                } else {
                    phase = .http
                }
            }
        case .upgradeRequested(var check, let sawUnmaskedFrame):
            // Nothing after an unmasked frame reaches the WebSocket layer.
            guard !sawUnmaskedFrame else { return }
            let unmasked = check.scan(buffer.readableBytesView) == .unmaskedFrame
            phase = .upgradeRequested(check, sawUnmaskedFrame: unmasked)
            if unmasked { return }
        case .webSocket(var check):
            guard check.scan(buffer.readableBytesView) == .acceptable else {
                failWebSocket(context)
                return
            }
            phase = .webSocket(check)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .upgradeRequested(let check, let sawUnmaskedFrame) = phase, case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            if buffer.readableBytesView.starts(with: "HTTP/1.1 101 ".utf8) {
                context.write(data, promise: promise)
                if sawUnmaskedFrame {
                    failWebSocket(context)
                } else {
                    phase = .webSocket(check)
                }
                return
            }
            guard !sawUnmaskedFrame else {
                // Not upgraded, and what the client sent after its request was dropped: end here.
                phase = .closing
                let channel = context.channel
                context.writeAndFlush(data).whenComplete { result in
                    promise?.completeWith(result)
                    channel.close(promise: nil)
                }
                return
            }
            phase = .http
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil {
            let channel = context.channel
            stallTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .init(limits.writeStallTimeout)) {
                if !channel.isWritable { channel.abort() }
            }
        }
        context.fireChannelWritabilityChanged()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard case .notStarted = phase else { return }
        phase = .firstHead(HTTPRequestHeadScanner(maximumBytes: limits.maximumHeaderBytes, maximumFields: limits.maximumHeaderFields))
        headTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .init(limits.headerTimeout)) { [weak self] in
            guard let self, case .firstHead = self.phase else { return }
            self.refuse(context, HTTPRequestHeadScanner.Rejection.headTimedOut.response)
        }
    }

    /// A complete response that says `text` and asks the client to close.
    static func plainResponse(status: String, text: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        let body = text + "\n"
        return allocator.buffer(
            string: "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n" + body)
    }

    /// Answers with `status` and a one-line text, then closes; nothing more is read. The HTTP
    /// handlers behind learn that the input ended, so they end the connection as a client's leaving
    /// rather than as an error.
    private func refuse(_ context: ChannelHandlerContext, _ response: (status: String, text: String)) {
        phase = .closing
        stopTimers()
        let channel = context.channel
        let buffer = Self.plainResponse(status: response.status, text: response.text, allocator: channel.allocator)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))).whenComplete { _ in channel.close(promise: nil) }
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    /// Sends a close frame with 1002 (protocol error) and closes; nothing more is read.
    private func failWebSocket(_ context: ChannelHandlerContext) {
        phase = .closing
        stopTimers()
        let reason = "client frames must be masked"
        var frame = context.channel.allocator.buffer(capacity: 4 + reason.utf8.count)
        frame.writeInteger(UInt8(0x88))
        frame.writeInteger(UInt8(2 + reason.utf8.count))
        frame.writeInteger(UInt16(1002))
        frame.writeString(reason)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(frame))).whenComplete { _ in channel.close(promise: nil) }
    }

    private func stopTimers() {
        headTimer?.cancel()
        headTimer = nil
        stallTimer?.cancel()
        stallTimer = nil
    }
}
