import Foundation
import HummingbirdWSClient
import Logging
import SignalingProtocol
import Synchronization

/// One WebSocket to the daemon speaking the protocol of docs/protocol.md: requests get ids and
/// their replies are matched back to the caller; events are handed to `onEvent` in arrival order,
/// with their `seq`.
final class SignalingChannel: Sendable {
    private struct State {
        var writer: WebSocketOutboundWriter?
        var pending: [Int: Waiter] = [:]
        var nextID = 1
        var isClosed = false
    }

    /// A request waiting for its reply, and the task that sends it and then times it out.
    private struct Waiter {
        let continuation: CheckedContinuation<Result<RequestResult, SessionError>, Never>
        var sender: Task<Void, Never>?

        func finish(with result: Result<RequestResult, SessionError>) {
            sender?.cancel()
            continuation.resume(returning: result)
        }
    }

    /// The state the reader task shares with callers; a class, since a lock cannot be copied into
    /// the task.
    private final class Shared: Sendable {
        let lock = Mutex(State())
    }

    private let shared = Shared()
    private let session = Mutex<Task<WebSocketCloseFrame?, any Error>?>(nil)
    /// The close frame the server sent, or nil when the connection just dropped.
    let closed: Task<WebSocketCloseFrame?, Never>

    /// Opens the WebSocket at `url`. `onEvent` is called from the channel's reader; `closed`
    /// finishes when the socket does.
    init(
        url: String, pingInterval: Duration, logger: Logger, onEvent: @escaping @Sendable (SessionEvent, UInt64?) -> Void
    ) async throws(SessionError) {
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Bool.self)
        let state = self.shared
        let task = Task {
            defer { readyContinuation.finish() }
            return try await WebSocketClient.connect(
                url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 20, autoPing: .enabled(timePeriod: pingInterval)),
                logger: logger
            ) { inbound, outbound, _ in
                state.lock.withLock { $0.writer = outbound }
                readyContinuation.yield(true)
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        let data = Data(text.utf8)
                        guard let decoded = try? JSONDecoder().decode(ServerMessage.self, from: data) else { continue }
                        switch decoded {
                        case .reply(let id, let result): Self.resume(state, id: id, with: .success(result))
                        case .error(let id, let error):
                            guard let id else { break }
                            if error.code == .sessionOnOtherNode, let location = error.location {
                                Self.resume(state, id: id, with: .failure(.sessionOnOtherNode(url: location)))
                            } else {
                                Self.resume(state, id: id, with: .failure(.refused(code: error.code, message: error.message)))
                            }
                        case .event(let event): onEvent(event, ServerMessage.eventSequence(of: data))
                        }
                    }
                } catch {}
                Self.closeAll(state)
            }
        }
        session.withLock { $0 = task }
        closed = Task {
            let frame = try? await task.value
            Self.closeAll(state)
            return frame ?? nil
        }
        var iterator = ready.makeAsyncIterator()
        guard await iterator.next() == true else {
            let reason: String
            do {
                _ = try await task.value
                reason = "the server closed the connection during the handshake"
            } catch {
                reason = "\(error)"
            }
            throw .unreachable(url: url, reason: reason)
        }
    }

    private static func resume(_ state: Shared, id: Int, with result: Result<RequestResult, SessionError>) {
        state.lock.withLock { $0.pending.removeValue(forKey: id) }?.finish(with: result)
    }

    private static func closeAll(_ state: Shared) {
        let waiting = state.lock.withLock { state in
            state.isClosed = true
            state.writer = nil
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for waiter in waiting { waiter.finish(with: .failure(.connectionClosed)) }
    }

    /// Sends a request and waits for its result.
    func call(_ request: ClientRequest, timeout: Duration = .seconds(10)) async throws(SessionError) -> RequestResult {
        let (id, writer) = shared.lock.withLock { state -> (Int, WebSocketOutboundWriter?) in
            defer { state.nextID += 1 }
            return (state.nextID, state.isClosed ? nil : state.writer)
        }
        guard let writer else { throw .connectionClosed }
        let text = String(decoding: ClientMessage(id: id, request: request).encoded(), as: UTF8.self)
        let state = self.shared
        let result = await withCheckedContinuation { continuation in
            let accepted = state.lock.withLock { state -> Bool in
                guard !state.isClosed else { return false }
                state.pending[id] = Waiter(continuation: continuation)
                return true
            }
            guard accepted else {
                continuation.resume(returning: .failure(.connectionClosed))
                return
            }
            let sender = Task {
                // The timeout runs from the send, not from the write's end: a write can hang for
                // good on a socket whose other side stopped working.
                let write = Task {
                    do {
                        try await writer.write(.text(text))
                    } catch {
                        Self.resume(state, id: id, with: .failure(.connectionClosed))
                    }
                }
                // A reply cancels this wait; only a real timeout gets past it.
                let timedOut = (try? await Task.sleep(for: timeout)) != nil
                write.cancel()
                guard timedOut else { return }
                Self.resume(state, id: id, with: .failure(.timedOut(method: request.method.rawValue)))
            }
            let answered = state.lock.withLock { state -> Bool in
                guard state.pending[id] != nil else { return true }
                state.pending[id]?.sender = sender
                return false
            }
            if answered { sender.cancel() }
        }
        return try result.get()
    }

    /// How long `close` waits for the close handshake before it drops the connection.
    static let closeHandshakeTimeout = Duration.seconds(2)

    /// Closes the WebSocket with a normal closure and waits for it to end; drops it if the server
    /// does not finish the close handshake within `closeHandshakeTimeout`.
    func close() async {
        let writer = shared.lock.withLock { $0.writer }
        let closing = Task { try? await writer?.close(.normalClosure, reason: nil) }
        let deadline = Task {
            try await Task.sleep(for: Self.closeHandshakeTimeout)
            closing.cancel()
            self.drop()
        }
        _ = await closed.value
        deadline.cancel()
    }

    /// Drops the connection without a close handshake, as a failing network would.
    func drop() {
        session.withLock { $0 }?.cancel()
    }
}
