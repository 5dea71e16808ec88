import Foundation
import HummingbirdWSClient
import Logging
import SignalingProtocol
import Synchronization

/// A client of the signaling WebSocket for tests: sends requests, waits for their replies, and
/// keeps every other message in an inbox that tests search with a deadline.
final class WebSocketTestClient: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case timedOut(String)
        case refused(SignalingError)

        var description: String {
            switch self {
            case .timedOut(let what): "timed out waiting for \(what)"
            case .refused(let error): "refused: \(error.code.rawValue): \(error.message)"
            }
        }
    }

    /// A message and, for an event, its `seq`.
    struct Received: Sendable {
        var message: ServerMessage
        var sequence: UInt64?
    }

    private actor Inbox {
        var messages: [Received] = []
        var isClosed = false

        func append(_ message: Received) { messages.append(message) }
        func close() { isClosed = true }

        func take(where predicate: @Sendable (ServerMessage) -> Bool) -> Received? {
            guard let index = messages.firstIndex(where: { predicate($0.message) }) else { return nil }
            return messages.remove(at: index)
        }
    }

    private let inbox = Inbox()
    /// The writer of the open socket, set once the handshake is done.
    private final class WriterBox: Sendable {
        let writer = Mutex<WebSocketOutboundWriter?>(nil)
    }

    private let outbound = WriterBox()
    private let nextID = Mutex(1)
    private let session: Task<WebSocketCloseFrame?, any Error>

    init(url: String) async throws {
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Bool.self)
        let inbox = self.inbox
        let outboundBox = self.outbound
        session = Task {
            defer { readyContinuation.finish() }
            return try await WebSocketClient.connect(
                url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 20), logger: Logger(label: "test-client")
            ) { inboundStream, outboundWriter, _ in
                outboundBox.writer.withLock { $0 = outboundWriter }
                readyContinuation.yield(true)
                do {
                    for try await message in inboundStream.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message,
                            let decoded = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8))
                        else { continue }
                        await inbox.append(Received(message: decoded, sequence: ServerMessage.eventSequence(of: Data(text.utf8))))
                    }
                } catch {}
                await inbox.close()
            }
        }
        let opened = await Self.first(within: .seconds(10)) {
            var iterator = ready.makeAsyncIterator()
            return await iterator.next() == true
        }
        guard opened == true else {
            session.cancel()
            if opened == false { _ = try await session.value }
            throw Failure.timedOut("the WebSocket to open")
        }
    }

    /// `work`'s result, or nil once `timeout` has passed. Returns at the deadline even if `work`
    /// ignores cancellation (a task group would wait for it), leaving it to finish on its own.
    private static func first<Value: Sendable>(
        within timeout: Duration, _ work: @escaping @Sendable () async -> Value
    ) async -> Value? {
        await withCheckedContinuation { continuation in
            let once = ResumedOnce(continuation)
            let worker = Task { once.resume(await work()) }
            Task {
                try? await Task.sleep(for: timeout)
                worker.cancel()
                once.resume(nil)
            }
        }
    }

    static func open(port: Int, host: String = "127.0.0.1") async throws -> WebSocketTestClient {
        try await WebSocketTestClient(url: "ws://\(host):\(port)/v1/ws")
    }

    /// Opens a WebSocket and connects to `sessionId` with `token`.
    static func connected(port: Int, host: String = "127.0.0.1", sessionId: String, token: String) async throws -> (WebSocketTestClient, ConnectResult) {
        let client = try await open(port: port, host: host)
        guard case .connect(let result) = try await client.call(.connect(ConnectParameters(sessionId: sessionId, token: token))) else {
            throw Failure.timedOut("a connect result")
        }
        return (client, result)
    }

    func sendText(_ text: String) async throws {
        try await outbound.writer.withLock { $0 }?.write(.text(text))
    }

    func sendBinary(_ bytes: [UInt8]) async throws {
        try await outbound.writer.withLock { $0 }?.write(.binary(.init(bytes: bytes)))
    }

    /// Sends a request and returns the reply or error with its id.
    func send(_ request: ClientRequest, timeout: Duration = .seconds(5)) async throws -> ServerMessage {
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        try await sendText(String(decoding: ClientMessage(id: id, request: request).encoded(), as: UTF8.self))
        return try await message(timeout: timeout, "the reply to \(request.method.rawValue)") { message in
            switch message {
            case .reply(let replyID, _): replyID == id
            case .error(let errorID, _): errorID == id
            case .event: false
            }
        }
    }

    /// Sends a request and returns its result, throwing the error reply.
    func call(_ request: ClientRequest) async throws -> RequestResult {
        switch try await send(request) {
        case .reply(_, let result): return result
        case .error(_, let error): throw Failure.refused(error)
        case .event: throw Failure.timedOut("a reply")
        }
    }

    /// The error a request is refused with; nil if it succeeded.
    func refusal(_ request: ClientRequest) async throws -> SignalingError? {
        if case .error(_, let error) = try await send(request) { return error }
        return nil
    }

    func event(_ name: SessionEvent.Name, timeout: Duration = .seconds(5)) async throws -> SessionEvent {
        let message = try await message(timeout: timeout, "event \(name.rawValue)") { message in
            if case .event(let event) = message { return event.name == name }
            return false
        }
        guard case .event(let event) = message else { throw Failure.timedOut("event \(name.rawValue)") }
        return event
    }

    /// Whether an event arrives within `window`; for asserting that one does not.
    func receives(_ name: SessionEvent.Name, within window: Duration) async -> Bool {
        (try? await event(name, timeout: window)) != nil
    }

    /// The next message matching `predicate`, polling the inbox until `timeout`.
    func message(
        timeout: Duration = .seconds(5), _ what: String = "a message", where predicate: @escaping @Sendable (ServerMessage) -> Bool
    ) async throws -> ServerMessage {
        try await received(timeout: timeout, what, where: predicate).message
    }

    /// The next event, whatever its name, with its `seq`.
    func nextEvent(timeout: Duration = .seconds(5)) async throws -> (event: SessionEvent, sequence: UInt64?) {
        let received = try await received(timeout: timeout, "an event") { if case .event = $0 { true } else { false } }
        guard case .event(let event) = received.message else { throw Failure.timedOut("an event") }
        return (event, received.sequence)
    }

    /// The next message matching `predicate`, with its `seq`.
    func received(
        timeout: Duration = .seconds(5), _ what: String = "a message", where predicate: @escaping @Sendable (ServerMessage) -> Bool
    ) async throws -> Received {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let message = await inbox.take(where: predicate) { return message }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw Failure.timedOut(what)
    }

    /// Waits for the server to close the socket and returns its close frame. At the timeout the
    /// socket is dropped and the wait fails, so a server that never closes fails the test instead of
    /// hanging it.
    func closeFrame(timeout: Duration = .seconds(10)) async throws -> WebSocketCloseFrame? {
        let session = self.session
        guard let result = await Self.first(within: timeout, { await session.result }) else {
            session.cancel()
            throw Failure.timedOut("the socket to close")
        }
        return try result.get()
    }

    /// Ends the TCP connection without a close handshake, as a failing network would.
    func drop() {
        session.cancel()
    }

    func close() async {
        try? await outbound.writer.withLock { $0 }?.close(.normalClosure, reason: nil)
        _ = try? await closeFrame(timeout: .seconds(2))
    }
}

/// A continuation that the first of several racing tasks resumes; the others find it taken.
private final class ResumedOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value?, Never>?>

    init(_ continuation: CheckedContinuation<Value?, Never>) { self.continuation = Mutex(continuation) }

    func resume(_ value: Value?) { continuation.withLock { $0.take() }?.resume(returning: value) }
}
