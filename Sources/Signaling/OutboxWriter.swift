import HummingbirdWebSocket
import SignalingProtocol
import Synchronization

/// Writes one socket's outbox to its WebSocket, in a task that runs only while the outbox holds
/// something. A writer task waiting for the next message would keep, for the connection's whole
/// life, the slabs Swift's task allocator gave its frames (the WebSocket layer's write path is
/// several KiB of them); a viewer of a broadcast hears a message a second at most, so between
/// messages it holds no task at all.
///
/// When the outbox ends and the server had a last word, closes the socket with the code that
/// matches it; otherwise leaves the close to the WebSocket layer, which answers the client's close
/// or closes with the code of what ended the connection.
final class OutboxWriter: Sendable {
    /// The close code of a socket another one reconnected in place of (4000-4999 are for applications).
    static let replacedCloseCode: UInt16 = 4000

    private struct State {
        var lastWord: SessionDisconnectedReason?
        var ended = false
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let outbox: ClientOutbox
    private let outbound: WebSocketOutboundWriter
    private let state = Mutex(State())

    /// Starts writing what `outbox` holds, now and whenever it holds more.
    init(_ outbox: ClientOutbox, to outbound: WebSocketOutboundWriter) {
        self.outbox = outbox
        self.outbound = outbound
        outbox.whenTakeable { [self] in wake() }
    }

    /// Returns once the outbox has ended and everything in it was written (or writing failed).
    func ended() async {
        await withCheckedContinuation { continuation in
            let endedAlready = state.withLock { state in
                if !state.ended { state.endWaiters.append(continuation) }
                return state.ended
            }
            if endedAlready { continuation.resume() }
        }
    }

    private func wake() {
        Task.detached { await self.writeWhatIsHeld() }
    }

    private func writeWhatIsHeld() async {
        while case .some(let taken) = outbox.take() {
            guard let entries = taken else {
                await close()
                return
            }
            for entry in entries {
                do {
                    try await outbound.write(.text(entry.text))
                } catch {
                    // The socket is gone: nothing more can be written.
                    finishEnding()
                    return
                }
                outbox.wrote(entry)
                if let lastWord = entry.lastWord { state.withLock { $0.lastWord = lastWord } }
            }
        }
        outbox.whenTakeable { [self] in wake() }
    }

    private func close() async {
        let lastWord = state.withLock { $0.lastWord }
        switch lastWord {
        case .serverShutdown: try? await outbound.close(.goingAway, reason: "server shutdown")
        case .nodeDraining: try? await outbound.close(.goingAway, reason: "node draining")
        case .rateLimitExceeded, .connectTimeout: try? await outbound.close(.policyViolation, reason: lastWord?.rawValue)
        case .clientDisconnected, .forceDisconnected: try? await outbound.close(.normalClosure, reason: nil)
        case .replaced: try? await outbound.close(.unknown(Self.replacedCloseCode), reason: "replaced")
        case nil: break
        }
        finishEnding()
    }

    private func finishEnding() {
        let waiters = state.withLock { state in
            state.ended = true
            defer { state.endWaiters = [] }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
