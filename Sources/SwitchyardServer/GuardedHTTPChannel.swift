import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP (and WebSocket upgrade) child channel behind two checks on every connection:
/// admission (at most `maximumConnections` open, and `maximumConnectionsPerAddress` from one
/// address; one more gets 503 and is closed before any HTTP handler exists for it), then an
/// `HTTPConnectionGuard` in front of the HTTP handlers, behind TLS when TLS wraps this channel.
struct GuardedHTTPChannel<Inner: ServerChildChannel>: ServerChildChannel {
    enum Value: ServerChildChannelValue {
        case admitted(Inner.Value)
        case refused(any Channel, HTTPConnectionAdmission.Refusal)

        var channel: any Channel {
            switch self {
            case .admitted(let value): value.channel
            case .refused(let channel, _): channel
            }
        }
    }

    /// Each connection keeps its last receive buffer for the next read. NIO's default starts at
    /// 2 KiB; a signaling connection's messages are a few hundred bytes, and an idle one of a
    /// broadcast's thousands would keep 2 KiB for nothing. Larger reads grow it as before.
    static var receiveBuffers: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)
    }

    let inner: Inner
    let limits: HTTPServerLimits
    let admission: HTTPConnectionAdmission

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        if let refusal = admission.admit(address) {
            return channel.eventLoop.makeSucceededFuture(.refused(channel, refusal))
        }
        do {
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffers)
            try channel.pipeline.syncOperations.addHandler(HTTPConnectionGuard(limits: limits, admission: admission, address: address))
        } catch {
            admission.release(address)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).map { .admitted($0) }
    }

    func handle(value: Value, logger: Logger) async {
        switch value {
        case .admitted(let value):
            await inner.handle(value: value, logger: logger)
        case .refused(let channel, let refusal):
            await Self.refuse(channel, refusal, logger: logger)
        }
    }

    /// Apart from `handle`, so that the frame an admitted connection's task keeps for its whole
    /// life does not hold what a refusal needs.
    @inline(never)
    private static func refuse(_ channel: any Channel, _ refusal: HTTPConnectionAdmission.Refusal, logger: Logger) async {
        logger.debug("connection refused", metadata: ["refusal": "\(refusal)"])
        let text =
            switch refusal {
            case .serverFull(let limit): "the server has \(limit) connections open, its limit; try again later"
            case .addressFull(let limit): "\(limit) connections are open from your address, its limit"
            }
        let response = HTTPConnectionGuard.plainResponse(status: "503 Service Unavailable", text: text, allocator: channel.allocator)
        try? await channel.writeAndFlush(response)
        try? await channel.close()
    }
}
