import Synchronization

/// The requests a silent receiver has read and not answered: each handler waits here until the run
/// ends. A daemon gives up on an attempt after its request timeout and tries again on a new
/// connection, so over a long run the held ones pile up; past `bound` the oldest is let go (its
/// daemon stopped waiting for it long ago), so the receiver's own memory stays bounded too.
final class HeldWebhookRequests: Sendable {
    struct Counts: Sendable {
        /// Requests held so far, the most held at once, and those let go early to stay within the bound.
        var held = 0
        var heldAtMost = 0
        var releasedEarly = 0
    }

    let bound: Int
    private let state: Mutex<State>

    private struct State {
        var waiting: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextId = 0
        /// Once the run ended, nothing more is held.
        var ended = false
        var counts = Counts()
    }

    init(bound: Int) {
        self.bound = bound
        state = Mutex(State())
    }

    var counts: Counts { state.withLock { $0.counts } }

    /// Waits until the run ends, this request is the oldest past the bound, or its task is cancelled.
    func hold() async {
        let id = state.withLock { state in
            defer { state.nextId += 1 }
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let released: [CheckedContinuation<Void, Never>] = state.withLock { state in
                    // Checked under the lock the cancellation handler takes, so a cancellation
                    // either finds this request waiting or is seen here.
                    guard !state.ended, !Task.isCancelled else { return [continuation] }
                    state.waiting.append((id, continuation))
                    state.counts.held += 1
                    state.counts.heldAtMost = max(state.counts.heldAtMost, state.waiting.count)
                    guard state.waiting.count > bound else { return [] }
                    state.counts.releasedEarly += 1
                    return [state.waiting.removeFirst().continuation]
                }
                for waiter in released { waiter.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
            }
            cancelled?.resume()
        }
    }

    /// The run ended: lets every held request go, and holds none from now on.
    func releaseAll() {
        let released = state.withLock { state in
            state.ended = true
            defer { state.waiting.removeAll() }
            return state.waiting.map(\.continuation)
        }
        for waiter in released { waiter.resume() }
    }
}
