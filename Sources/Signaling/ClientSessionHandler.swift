import Foundation
import HummingbirdWebSocket
import Logging
import NIOCore
import SignalingProtocol

private let processStart = ContinuousClock.now

/// Runs one client's WebSocket: decodes each message, answers every request in order, writes the
/// events the directory sends, enforces the connect timeout and the rate limit, and removes the
/// connection from its session when the socket goes away.
public struct ClientSessionHandler: Sendable {
    let directory: SessionDirectory
    let sockets: OpenSockets
    let tokens: TokenAuthority
    let configuration: SignalingConfiguration
    let wallClock: @Sendable () -> Date
    let monotonicClock: @Sendable () -> Duration

    init(
        directory: SessionDirectory, sockets: OpenSockets, tokens: TokenAuthority, configuration: SignalingConfiguration,
        wallClock: @escaping @Sendable () -> Date = Date.init,
        monotonicClock: (@Sendable () -> Duration)? = nil
    ) {
        self.directory = directory
        self.sockets = sockets
        self.tokens = tokens
        self.configuration = configuration
        self.wallClock = wallClock
        self.monotonicClock = monotonicClock ?? { processStart.duration(to: .now) }
    }

    /// Where this client is, once `connect` succeeded.
    private struct Identity: Sendable {
        var sessionId: String
        var connectionId: String
    }

    /// Serves one WebSocket until either side ends it. Rethrows what ended the inbound side (a
    /// message over the size limit, a protocol violation, invalid UTF-8), so the WebSocket layer
    /// closes with the code that names it (1009, 1002, 1007) rather than a normal closure.
    public func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, channel: any Channel, logger: Logger) async throws {
        try await WebSocketKeepalive.install(on: channel, every: configuration.pingInterval)
        let outbox = ClientOutbox(
            limits: configuration.backlog, holdsUntilReleased: true,
            onOverflow: {
                logger.info("client fell too far behind; connection cut off", metadata: ["limit": "\(configuration.backlog)"])
                channel.abort()
            },
            abort: { channel.abort() })
        // Timers on the channel's event loop rather than tasks: a task holds a slab of memory from
        // its start to its end, and these two would have stayed as long as the connection.
        let releaseUnheard = channel.eventLoop.scheduleTask(in: TimeAmount(Self.firstWordWait)) { outbox.release() }
        defer { releaseUnheard.cancel() }
        guard let socketID = sockets.add(outbox) else {
            await answerDuringShutdown(inbound: inbound, outbound: outbound, outbox: outbox)
            return
        }
        defer { sockets.remove(socketID) }
        var socket = newSocketState(outbox, on: channel.eventLoop)
        let writer = OutboxWriter(outbox, to: outbound)
        var inboundFailure: (any Error)?
        do {
            for try await message in inbound.messages(maxSize: configuration.maximumMessageBytes) {
                outbox.release()
                let (leaving, after) = await receiveInItsOwnTask(message, socket: socket, outbox: outbox, logger: logger)
                socket = after
                if leaving { break }
            }
        } catch {
            inboundFailure = error
        }
        await close(socket, outbox: outbox, writer: writer, failure: inboundFailure, logger: logger)
        if let inboundFailure { throw inboundFailure }
    }

    // The connection's task keeps the largest frame it ever held for its whole life (see
    // `receiveInItsOwnTask`), so what runs only before or after the reading loop is apart from it.

    /// A socket opened during a shutdown: the outbox holds the shutdown's word, and the close after it.
    @inline(never)
    private func answerDuringShutdown(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, outbox: ClientOutbox) async {
        let firstMessage = Task {
            var messages = inbound.messages(maxSize: configuration.maximumMessageBytes).makeAsyncIterator()
            _ = try await messages.next()
            outbox.release()
        }
        await OutboxWriter(outbox, to: outbound).ended()
        firstMessage.cancel()
    }

    private func newSocketState(_ outbox: ClientOutbox, on eventLoop: any EventLoop) -> SocketState {
        let connectDeadline = NIODeadline.now() + TimeAmount(configuration.connectTimeout)
        return SocketState(
            limiter: MessageRateLimiter(
                rate: configuration.messagesPerSecond, burst: configuration.messageBurst,
                violationsBeforeDisconnect: configuration.rateViolationsBeforeDisconnect),
            eventLoop: eventLoop, connectDeadline: connectDeadline,
            timeout: closeUnconnected(outbox, on: eventLoop, at: connectDeadline))
    }

    /// The socket's reading ended: its connection (if any) loses it, and what the outbox still
    /// holds goes out before the socket closes.
    @inline(never)
    private func close(_ socket: SocketState, outbox: ClientOutbox, writer: OutboxWriter, failure: (any Error)?, logger: Logger) async {
        if let failure { logger.debug("websocket ended", metadata: ["error": "\(failure)"]) }
        socket.timeout.cancel()
        outbox.release()
        if let identity = socket.identity {
            await directory.connectionLost(sessionId: identity.sessionId, connectionId: identity.connectionId, socket: outbox)
        }
        outbox.finish()
        await writer.ended()
    }

    /// What one socket's reading loop carries from message to message.
    private struct SocketState: Sendable {
        var limiter: MessageRateLimiter
        var identity: Identity?
        var refusedReconnects = 0
        let eventLoop: any EventLoop
        let connectDeadline: NIODeadline
        var timeout: Scheduled<Void>
    }

    /// Takes one message in a child task of its own. Swift's task allocator keeps the most a task's
    /// async frames ever held until the task ends, and a request's frames are large (a decoded
    /// request, a case per method): taken in the connection's long-lived task, they stayed for the
    /// connection's whole life, most of what a signaling-only connection cost (docs/capacity.md). A
    /// child task gives them back once the message is answered. Not inlined, so that the task group
    /// is not part of the reading loop's frame either. Returns whether the socket stops reading,
    /// and the socket's state as the message left it.
    @inline(never)
    private func receiveInItsOwnTask(
        _ message: WebSocketMessage, socket: SocketState, outbox: ClientOutbox, logger: Logger
    ) async -> (leaving: Bool, socket: SocketState) {
        await withTaskGroup(of: (Bool, SocketState).self) { request in
            request.addTask {
                var socket = socket
                let leaving = await receive(message, socket: &socket, outbox: outbox, logger: logger)
                return (leaving, socket)
            }
            return await request.next() ?? (true, socket)
        }
    }

    /// Takes one message: rate-limits it, decodes it and answers it. Returns true when the socket
    /// stops reading.
    private func receive(_ message: WebSocketMessage, socket: inout SocketState, outbox: ClientOutbox, logger: Logger) async -> Bool {
        switch socket.limiter.admit(now: monotonicClock()) {
        case .accept:
            break
        case .refuse:
            outbox.send(.error(id: nil, rateLimitedError))
            return false
        case .disconnect:
            // This message is refused like the ones before it, and answered like them.
            outbox.send(.error(id: nil, rateLimitedError))
            let reason = "kept sending over \(configuration.messagesPerSecond) messages per second"
            if let identity = socket.identity {
                await directory.disconnect(
                    sessionId: identity.sessionId, connectionId: identity.connectionId, reason: .forceDisconnected,
                    closing: (.rateLimitExceeded, reason))
            } else {
                outbox.close(.rateLimitExceeded, message: reason)
            }
            return true
        }
        guard case .text(let text) = message else {
            outbox.send(.error(id: nil, SignalingError(.malformedMessage, "binary messages are not accepted; send JSON text")))
            return false
        }
        switch ClientMessage.decode(Data(text.utf8)) {
        case .failure(let rejection):
            outbox.send(.error(id: rejection.id, rejection.error))
            return false
        case .success(let request):
            // A connect that arrived in time is answered however long it takes; one that is
            // refused leaves the socket on the deadline it had.
            let isFirstConnect = [.connect, .reconnect].contains(request.request.method) && socket.identity == nil
            if isFirstConnect { socket.timeout.cancel() }
            let leaving = await handle(request, identity: &socket.identity, refusedReconnects: &socket.refusedReconnects, outbox: outbox, logger: logger)
            if isFirstConnect, socket.identity == nil {
                socket.timeout = closeUnconnected(outbox, on: socket.eventLoop, at: socket.connectDeadline)
            }
            return leaving
        }
    }

    /// Closes a socket that has not connected by `deadline`.
    private func closeUnconnected(_ outbox: ClientOutbox, on eventLoop: any EventLoop, at deadline: NIODeadline) -> Scheduled<Void> {
        let connectTimeout = configuration.connectTimeout
        return eventLoop.scheduleTask(deadline: deadline) {
            outbox.close(.connectTimeout, message: "no connect request within \(connectTimeout)")
        }
    }

    /// How long a new socket's first word waits for the client to speak first (see
    /// `ClientOutbox.release()`); a client sends `connect` at once, so only a silent one waits.
    static let firstWordWait = Duration.seconds(1)

    /// Wrong secrets or unknown connections one socket may present before it is closed; with secrets
    /// of 256 random bits, this only keeps a guesser from holding a socket busy.
    static let refusedReconnectsPerSocket = 3

    private var rateLimitedError: SignalingError {
        SignalingError(.rateLimited, "more than \(configuration.messagesPerSecond) messages per second; slow down")
    }

    /// Answers one request. Returns true when the client is leaving.
    private func handle(
        _ message: ClientMessage, identity: inout Identity?, refusedReconnects: inout Int, outbox: ClientOutbox, logger: Logger
    ) async -> Bool {
        let id = message.id
        guard let current = identity else {
            do throws(SignalingError) {
                switch message.request {
                case .connect(let parameters):
                    let grant = try await verify(parameters)
                    try await requireHere(grant.sessionId, placing: true)
                    let result: ConnectResult
                    do {
                        result = try await directory.connect(
                            grant: grant, outbox: outbox, speakerEvents: parameters.subscribeToSpeakerEvents == true,
                            connectionEventsSuppressed: parameters.connectionEventsSuppressed == true || grant.connectionEventsSuppressed)
                    } catch {
                        // A drain closed the session after it was found here: in a cluster it goes on
                        // at the node placement names now, and the client is sent there.
                        if await directory.closedBecause != nil { try await requireHere(grant.sessionId, placing: true) }
                        throw error
                    }
                    identity = Identity(sessionId: grant.sessionId, connectionId: result.connection.connectionId)
                    outbox.send(.reply(id: id, .connect(result)))
                case .reconnect(let parameters):
                    // Through a load balancer a client may come back at another node than its own.
                    try await requireHere(parameters.sessionId, placing: false)
                    try await directory.reconnect(parameters, socket: outbox, replyID: id)
                    identity = Identity(sessionId: parameters.sessionId, connectionId: parameters.connectionId)
                default:
                    throw SignalingError(.notConnected, "the first request must be connect or reconnect")
                }
            } catch {
                outbox.send(.error(id: id, error))
                if message.request.method == .reconnect, [.invalidToken, .notFound].contains(error.code) {
                    refusedReconnects += 1
                    if refusedReconnects >= Self.refusedReconnectsPerSocket {
                        outbox.close(.rateLimitExceeded, message: "\(refusedReconnects) reconnects refused on this WebSocket")
                        return true
                    }
                }
            }
            return false
        }
        let sessionId = current.sessionId
        let connectionId = current.connectionId
        do throws(SignalingError) {
            let result: RequestResult
            switch message.request {
            case .connect, .reconnect:
                throw SignalingError(.alreadyConnected, "this WebSocket is already connected as \(connectionId)")
            case .publish(let parameters):
                result = .publish(try await directory.publish(sessionId: sessionId, connectionId: connectionId, parameters: parameters))
            case .unpublish(let reference):
                try await directory.unpublish(sessionId: sessionId, connectionId: connectionId, streamId: reference.streamId)
                result = .empty(.unpublish)
            case .updateStream(let update):
                try await directory.updateStream(sessionId: sessionId, connectionId: connectionId, update: update)
                result = .empty(.updateStream)
            case .subscribe(let parameters):
                result = .subscribe(try await directory.subscribe(sessionId: sessionId, connectionId: connectionId, parameters: parameters))
            case .unsubscribe(let reference):
                try await directory.unsubscribe(sessionId: sessionId, connectionId: connectionId, subscriberId: reference.subscriberId)
                result = .empty(.unsubscribe)
            case .updateSubscriber(let update):
                try await directory.updateSubscriber(sessionId: sessionId, connectionId: connectionId, update: update)
                result = .empty(.updateSubscriber)
            case .signal(let parameters):
                try await directory.signal(sessionId: sessionId, from: .connection(connectionId), parameters: parameters)
                result = .empty(.signal)
            case .getStats(let reference):
                result = .getStats(try await directory.statistics(sessionId: sessionId, connectionId: connectionId, subscriberId: reference.subscriberId))
            case .getPublisherStats(let reference):
                result = .getPublisherStats(
                    try await directory.publisherStatistics(sessionId: sessionId, connectionId: connectionId, streamId: reference.streamId))
            case .forceDisconnect(let reference):
                try await directory.forceDisconnect(sessionId: sessionId, by: .connection(connectionId), connectionId: reference.connectionId)
                result = .empty(.forceDisconnect)
            case .forceUnpublish(let reference):
                try await directory.forceUnpublish(sessionId: sessionId, by: .connection(connectionId), streamId: reference.streamId)
                result = .empty(.forceUnpublish)
            case .forceMuteStream(let reference):
                try await directory.forceMuteStream(sessionId: sessionId, by: .connection(connectionId), streamId: reference.streamId)
                result = .empty(.forceMuteStream)
            case .forceMuteAll(let parameters):
                try await directory.forceMuteAll(
                    sessionId: sessionId, by: .connection(connectionId), excludedStreamIds: parameters.excludedStreamIds ?? [])
                result = .empty(.forceMuteAll)
            case .disableForceMute:
                try await directory.disableForceMute(sessionId: sessionId, by: .connection(connectionId))
                result = .empty(.disableForceMute)
            case .startArchive(let parameters):
                result = .startArchive(try await directory.startArchive(sessionId: sessionId, by: .connection(connectionId), request: parameters))
            case .stopArchive(let reference):
                result = .stopArchive(try await directory.stopArchive(sessionId: sessionId, by: .connection(connectionId), archiveId: reference.archiveId))
            case .answerSubscriber(let answer):
                try await directory.answerSubscriber(sessionId: sessionId, connectionId: connectionId, answer: answer)
                result = .empty(.answerSubscriber)
            case .restartIce(let parameters):
                result = .restartIce(try await directory.restartICE(sessionId: sessionId, connectionId: connectionId, parameters: parameters))
            case .disconnect:
                outbox.send(.reply(id: id, .empty(.disconnect)))
                await directory.disconnect(
                    sessionId: sessionId, connectionId: connectionId, reason: .clientDisconnected,
                    closing: (.clientDisconnected, "disconnected at the client's request"))
                identity = nil
                return true
            }
            outbox.send(.reply(id: id, result))
        } catch {
            outbox.send(.error(id: id, error))
        }
        return false
    }

    /// In a cluster, refuses a `connect` (placing the session first when `placing`) or a
    /// `reconnect` to a session another node serves, naming that node's URL; a session this node
    /// already holds needs no database.
    private func requireHere(_ sessionId: String, placing: Bool) async throws(SignalingError) {
        if case .node(let node) = try await directory.location(of: sessionId, placing: placing) {
            throw SignalingError(
                .sessionOnOtherNode, "session \(sessionId) is served by node \(node.nodeId); connect to \(node.signalingURL)",
                location: node.signalingURL)
        }
    }

    private func verify(_ parameters: ConnectParameters) async throws(SignalingError) -> ClientGrant {
        let grant: ClientGrant
        do {
            grant = try await tokens.verifyClientToken(parameters.token, now: wallClock())
        } catch {
            throw SignalingError(error.code, error.description)
        }
        guard grant.sessionId == parameters.sessionId else {
            let error = TokenError.wrongSession(tokenSession: grant.sessionId, requested: parameters.sessionId)
            throw SignalingError(error.code, error.description)
        }
        return grant
    }
}
