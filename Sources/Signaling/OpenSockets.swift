import SignalingProtocol
import Synchronization

/// Every client WebSocket that is open, connected to a session or not, so a shutdown can close them
/// all and wait until they are gone.
final class OpenSockets: Sendable {
    private struct State {
        var nextID = 0
        var outboxes: [Int: ClientOutbox] = [:]
        /// Once new sockets are refused: what each is told as it is closed.
        var refusal: (reason: SessionDisconnectedReason, message: String)?
    }

    private let state = Mutex(State())

    /// Registers a socket; once new ones are refused, closes its outbox with the shutdown's word
    /// instead and returns nil.
    func add(_ outbox: ClientOutbox) -> Int? {
        let (id, refusal) = state.withLock { state -> (Int?, (reason: SessionDisconnectedReason, message: String)?) in
            if let refusal = state.refusal { return (nil, refusal) }
            state.nextID += 1
            state.outboxes[state.nextID] = outbox
            return (state.nextID, nil)
        }
        if let refusal { outbox.close(refusal.reason, message: refusal.message) }
        return id
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.outboxes.removeValue(forKey: id) }
    }

    /// Tells every open socket why it is being closed, and refuses new ones with the same word when
    /// `refusingNew` (a draining node of a cluster keeps taking them for a while, to send them to
    /// the session's new node).
    func closeAll(_ reason: SessionDisconnectedReason, message: String, refusingNew: Bool = true) {
        let outboxes = state.withLock { state in
            if refusingNew { state.refusal = (reason, message) }
            return Array(state.outboxes.values)
        }
        for outbox in outboxes { outbox.close(reason, message: message) }
    }

    var count: Int { state.withLock { $0.outboxes.count } }
}
