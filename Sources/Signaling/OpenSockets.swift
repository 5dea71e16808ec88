import SignalingProtocol
import Synchronization

/// Every client WebSocket that is open, connected to a session or not, so a shutdown can close them
/// all and wait until they are gone.
final class OpenSockets: Sendable {
    private struct State {
        var nextID = 0
        var outboxes: [Int: ClientOutbox] = [:]
        var closing = false
    }

    private let state = Mutex(State())

    /// Registers a socket; nil once shutdown has begun.
    func add(_ outbox: ClientOutbox) -> Int? {
        state.withLock { state in
            guard !state.closing else { return nil }
            state.nextID += 1
            state.outboxes[state.nextID] = outbox
            return state.nextID
        }
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.outboxes.removeValue(forKey: id) }
    }

    /// Tells every open socket why it is being closed, and refuses new ones when `refusingNew` (a
    /// draining node of a cluster keeps taking them, to send them to the session's new node).
    func closeAll(_ reason: SessionDisconnectedReason, message: String, refusingNew: Bool = true) {
        let outboxes = state.withLock { state in
            state.closing = refusingNew
            return Array(state.outboxes.values)
        }
        for outbox in outboxes { outbox.close(reason, message: message) }
    }

    var count: Int { state.withLock { $0.outboxes.count } }
}
