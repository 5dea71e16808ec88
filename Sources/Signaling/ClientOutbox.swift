import Synchronization
import SignalingProtocol

/// A connection's outgoing messages, in order, already encoded. The WebSocket writer drains it; the
/// directory and the request handler fill it. Bounded in messages and in bytes, counting what the
/// writer has taken but not yet handed to the socket: a client that stops reading overflows it, and
/// then everything it held is dropped at once and `onOverflow` cuts the connection off (its writes
/// are stuck behind a full socket, so a close frame could not reach it anyway).
public struct ClientOutbox: Sendable {
    /// How far behind a client may fall.
    public struct Limits: Equatable, Sendable {
        public var messages: Int
        public var bytes: Int

        public init(messages: Int = 4096, bytes: Int = 4 << 20) {
            self.messages = messages
            self.bytes = bytes
        }
    }

    /// One encoded message, with the reason it gives when it is the server's last word.
    public struct Entry: Equatable, Sendable {
        public var text: String
        public var lastWord: SessionDisconnectedReason?
    }

    private final class Storage: Sendable {
        struct State {
            var pending: [Entry] = []
            /// Messages and bytes queued or taken by the writer and not yet written.
            var heldMessages = 0
            var heldBytes = 0
            var finished = false
            var overflowed = false
            /// Whether the writer may take messages yet (see `release()`).
            var released: Bool
            /// Called once when something can be taken, or the outbox ended.
            var waiter: (@Sendable () -> Void)?

            /// Whether `take()` would return something now (messages, or the end).
            var isTakeable: Bool { overflowed || released && (!pending.isEmpty || finished) }
        }

        let limits: Limits
        let onOverflow: @Sendable () -> Void
        let abort: @Sendable () -> Void
        let state: Mutex<State>

        init(limits: Limits, holdsUntilReleased: Bool, onOverflow: @escaping @Sendable () -> Void, abort: @escaping @Sendable () -> Void) {
            self.limits = limits
            self.onOverflow = onOverflow
            self.abort = abort
            state = Mutex(State(released: !holdsUntilReleased))
        }
    }

    private let storage: Storage

    /// `abort` ends the socket's TCP connection at once, as a failing network would. An outbox that
    /// `holdsUntilReleased` keeps what is sent from the writer until `release()`.
    public init(
        limits: Limits = Limits(), holdsUntilReleased: Bool = false, onOverflow: @escaping @Sendable () -> Void = {},
        abort: @escaping @Sendable () -> Void = {}
    ) {
        storage = Storage(limits: limits, holdsUntilReleased: holdsUntilReleased, onOverflow: onOverflow, abort: abort)
    }

    /// Lets the writer take what is held, and everything after it. A new socket's first word waits
    /// for the client's first message (or a timeout): some WebSocket clients, among them the
    /// swift-websocket one `SwitchyardClient` uses, lose frames that arrive in the same read as the
    /// `101` response, as a refusal sent at once during a shutdown would.
    public func release() {
        let waiter = storage.state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.released else { return nil }
            state.released = true
            return state.isTakeable ? state.waiter.take() : nil
        }
        waiter?()
    }

    public func send(_ message: ServerMessage) {
        let lastWord: SessionDisconnectedReason? =
            if case .event(.sessionDisconnected(let disconnection)) = message { disconnection.reason } else { nil }
        enqueue(Entry(text: String(decoding: message.encoded(), as: UTF8.self), lastWord: lastWord), thenFinish: false)
    }

    public func send(_ event: SessionEvent) {
        send(.event(event))
    }

    /// Sends an event already encoded (with its `seq`) by the connection's `ConnectionEvents`.
    func send(encodedEvent text: String) {
        enqueue(Entry(text: text, lastWord: nil), thenFinish: false)
    }

    /// Resets the socket's TCP connection without a word (the fault-injection aid).
    func abortSocket() {
        storage.abort()
    }

    /// Tells one socket's outbox from another's.
    var identity: ObjectIdentifier { ObjectIdentifier(storage) }

    /// Tells the client why, then ends the outbox; the writer closes the WebSocket after it.
    public func close(_ reason: SessionDisconnectedReason, message: String) {
        let event = ServerMessage.event(.sessionDisconnected(SessionDisconnection(reason: reason, message: message)))
        enqueue(Entry(text: String(decoding: event.encoded(), as: UTF8.self), lastWord: reason), thenFinish: true)
    }

    /// Ends the outbox without a word: the socket is gone, or closes for a reason of its own.
    public func finish() {
        let waiter = storage.state.withLock { state in
            state.finished = true
            return state.isTakeable ? state.waiter.take() : nil
        }
        waiter?()
    }

    /// Whether the client fell too far behind and was cut off.
    public var overflowed: Bool { storage.state.withLock { $0.overflowed } }

    /// Messages and bytes held for the client right now.
    public var held: (messages: Int, bytes: Int) { storage.state.withLock { ($0.heldMessages, $0.heldBytes) } }

    /// The next messages to write, oldest first, waiting until there are some and the outbox is
    /// released; nil once the outbox has ended and everything was taken, or at once after an
    /// overflow. One consumer only.
    func next() async -> [Entry]? {
        while true {
            if let taken = take() { return taken }
            await withCheckedContinuation { continuation in whenTakeable { continuation.resume() } }
        }
    }

    /// What `next()` would return now, without waiting: nil when there is nothing to take yet.
    func take() -> [Entry]?? {
        storage.state.withLock { state in
            guard state.isTakeable else { return .none }
            guard !state.overflowed, !state.pending.isEmpty else { return .some(nil) }
            defer { state.pending.removeAll(keepingCapacity: false) }
            return .some(state.pending)
        }
    }

    /// Calls `wake` once, as soon as `take()` has something (now, if it has): how a writer that is
    /// not running hears of the next message. One at a time.
    func whenTakeable(_ wake: @escaping @Sendable () -> Void) {
        let wakeNow = storage.state.withLock { state in
            guard !state.isTakeable else { return true }
            state.waiter = wake
            return false
        }
        if wakeNow { wake() }
    }

    /// The writer handed one taken message to the socket.
    func wrote(_ entry: Entry) {
        storage.state.withLock { state in
            guard !state.overflowed else { return }
            state.heldMessages -= 1
            state.heldBytes -= entry.text.utf8.count
        }
    }

    private func enqueue(_ entry: Entry, thenFinish: Bool) {
        let size = entry.text.utf8.count
        let limits = storage.limits
        let (waiter, overflowedNow): ((@Sendable () -> Void)?, Bool) = storage.state.withLock { state in
            guard !state.finished, !state.overflowed else { return (nil, false) }
            guard state.heldMessages < limits.messages, state.heldBytes + size <= limits.bytes else {
                state.overflowed = true
                state.pending = []
                state.heldMessages = 0
                state.heldBytes = 0
                return (state.waiter.take(), true)
            }
            state.pending.append(entry)
            state.heldMessages += 1
            state.heldBytes += size
            if thenFinish { state.finished = true }
            return (state.isTakeable ? state.waiter.take() : nil, false)
        }
        waiter?()
        if overflowedNow { storage.onOverflow() }
    }
}
