import NIOCore
import SignalingProtocol
import Synchronization

/// The events of one connection across the WebSockets it uses. Each event gets the connection's next
/// sequence number (`seq`) and is kept in a log bounded in messages and bytes, so a client whose
/// socket dropped can reconnect and receive what it missed, in order, none twice. While a socket is
/// attached, each event also goes straight to its outbox, and the log keeps only what a socket that
/// died unnoticed could have swallowed (`retainedWhileConnected`); so a connection holds little in
/// steady state, and up to the limits only while it is away.
final class ConnectionEvents: Sendable {
    /// Why a socket cannot take over from where the client says it stopped.
    enum ResumeFailure: Error, Equatable {
        /// Events after `lastSeen` up to `firstKept - 1` fell out of the log.
        case eventsNoLongerKept(lastSeen: UInt64, firstKept: UInt64)
        /// The client claims an event the server never sent.
        case unknownEvent(lastSeen: UInt64, lastSent: UInt64)
    }

    /// A logged event keeps the text every connection shares; its own `seq` goes in on replay.
    private struct Logged {
        var sequence: UInt64
        var event: EncodedEvent
        var at: ContinuousClock.Instant
    }

    private struct State {
        var lastSent: UInt64 = 0
        var log = CircularBuffer<Logged>()
        var loggedBytes = 0
        /// The oldest sequence number still in the log, or the next one when the log is empty.
        var firstKept: UInt64 = 1
        var outbox: ClientOutbox?
    }

    private let limits: ReconnectionSettings
    private let state: Mutex<State>
    private let clock: @Sendable () -> ContinuousClock.Instant

    /// `limits` says how many of the latest events are kept for a reconnecting client.
    init(limits: ReconnectionSettings, outbox: ClientOutbox, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.limits = limits
        self.clock = clock
        state = Mutex(State(outbox: outbox))
    }

    /// Numbers, logs and, when a socket is attached, sends `event`.
    func send(_ event: SessionEvent) {
        send(EncodedEvent(event))
    }

    /// Numbers, logs and, when a socket is attached, sends an event encoded once for many connections.
    func send(_ event: EncodedEvent) {
        state.withLock { state in
            state.lastSent += 1
            let now = clock()
            state.log.append(Logged(sequence: state.lastSent, event: event, at: now))
            state.loggedBytes += event.sharedBytes
            let attached = state.outbox != nil
            while let oldest = state.log.first,
                state.log.count > limits.replayMessages || state.loggedBytes > limits.replayBytes
                    || (attached && now - oldest.at > limits.retainedWhileConnected)
            {
                state.log.removeFirst()
                state.loggedBytes -= oldest.event.sharedBytes
            }
            state.firstKept = state.log.first?.sequence ?? state.lastSent + 1
            state.outbox?.send(encodedEvent: event.text(sequence: state.lastSent))
        }
    }

    /// Sends an already encoded event without a `seq` to the attached socket, if any, and keeps
    /// nothing: for events stale by the time a client could reconnect (`audioLevels`).
    func sendUnlogged(encodedEvent text: String) {
        state.withLock { $0.outbox }?.send(encodedEvent: text)
    }

    /// Tells the attached socket's client why, then ends its outbox.
    func close(_ reason: SessionDisconnectedReason, message: String) {
        state.withLock { $0.outbox.take() }?.close(reason, message: message)
    }

    /// Ends the attached socket's outbox without a word.
    func finish() {
        state.withLock { $0.outbox.take() }?.finish()
    }

    /// Resets the attached socket's connection, as a failing network would (the fault-injection aid);
    /// the socket's end then detaches it as usual.
    func abortSocket() {
        state.withLock { $0.outbox }?.abortSocket()
    }

    /// Detaches `outbox` if it is the attached one; false when another socket took over already.
    func detach(_ outbox: ClientOutbox) -> Bool {
        state.withLock { state in
            guard state.outbox?.identity == outbox.identity else { return false }
            state.outbox = nil
            return true
        }
    }

    /// Whether a client that saw events up to `lastSeen` can be given every later one.
    func canResume(after lastSeen: UInt64) throws(ResumeFailure) {
        let (lastSent, firstKept) = state.withLock { ($0.lastSent, $0.firstKept) }
        guard lastSeen <= lastSent else { throw .unknownEvent(lastSeen: lastSeen, lastSent: lastSent) }
        guard lastSeen + 1 >= firstKept else { throw .eventsNoLongerKept(lastSeen: lastSeen, firstKept: firstKept) }
    }

    /// Attaches `outbox` in place of the current socket's: sends it `first` (the reply to
    /// `reconnect`), then every event after `lastSeen`, then the new ones as they come. Returns the
    /// outbox it replaced, if any. Call `canResume(after:)` first, in the same actor turn.
    func attach(_ outbox: ClientOutbox, first: ServerMessage, after lastSeen: UInt64) -> ClientOutbox? {
        state.withLock { state in
            let replaced = state.outbox
            state.outbox = outbox
            outbox.send(first)
            for logged in state.log where logged.sequence > lastSeen {
                outbox.send(encodedEvent: logged.event.text(sequence: logged.sequence))
            }
            return replaced
        }
    }

    /// Events and bytes held for a reconnecting client right now.
    var held: (messages: Int, bytes: Int) { state.withLock { ($0.log.count, $0.loggedBytes) } }
}
