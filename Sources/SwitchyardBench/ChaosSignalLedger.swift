import SwitchyardClient
import Synchronization

/// Every signal a chaos run sent, with whom it was for and how the sender's request ended, so each
/// can be checked against docs/protocol.md: delivered exactly once, or refused; a signal the server
/// took but that never arrived is excused only when its recipient moved to another node (a new
/// connection: what the old one was owed went with its node) around it.
final class ChaosSignalLedger: Sendable {
    enum Outcome: Sendable {
        case pending
        case accepted(at: UInt64)
        case refused(String)
    }

    struct Entry: Sendable {
        var token: String
        var sender: ChaosClient
        var recipients: [ChaosClient]
        var sentAt: UInt64
        var outcome = Outcome.pending
    }

    private let entries = Mutex<[Entry]>([])
    private let nextToken = Mutex(0)

    /// Sends one signal from `sender` to `recipient` (nil: to everyone, checked at `recipients`),
    /// with `padding` bytes after the token, and notes how it ended.
    func send(from sender: ChaosClient, to recipient: ChaosClient?, checkedAt recipients: [ChaosClient], padding: Int = 0) -> Task<Void, Never> {
        let token = nextToken.withLock { next in
            defer { next += 1 }
            return "s\(next)"
        }
        let index = entries.withLock { entries in
            entries.append(Entry(token: token, sender: sender, recipients: recipients, sentAt: MonotonicClock.now()))
            return entries.count - 1
        }
        let to = recipient?.session.connection?.connectionId
        let data = padding > 0 ? token + ":" + String(repeating: "x", count: padding) : token
        return Task {
            let outcome: Outcome
            do {
                try await sender.session.signal(type: "chaos", data: data, to: to, retryAfterReconnect: true)
                outcome = .accepted(at: MonotonicClock.now())
            } catch {
                outcome = .refused("\(error)")
            }
            entries.withLock { $0[index].outcome = outcome }
        }
    }

    var pendingCount: Int { entries.withLock { $0.filter { if case .pending = $0.outcome { true } else { false } }.count } }

    /// Checks every signal against what its recipients received, allowing `excuseWindow`
    /// nanoseconds after the reply for a move that excuses a loss.
    func tally(excuseWindow: UInt64) -> BenchReport.ChaosSignals {
        var tally = BenchReport.ChaosSignals()
        for entry in entries.withLock({ $0 }) {
            tally.sent += 1
            for recipient in entry.recipients {
                let count = recipient.deliveries(of: entry.token)
                if count > 1 {
                    tally.duplicated += 1
                    if tally.examples.count < 10 { tally.examples.append("\(entry.token) \(entry.sender.name) → \(recipient.name) delivered \(count) times: \(recipient.receipts(of: entry.token).joined(separator: "; "))") }
                }
                switch entry.outcome {
                case .accepted(let at):
                    if count >= 1 {
                        tally.delivered += 1
                    } else if recipient.moved(between: entry.sentAt, and: at + excuseWindow)
                        || entry.sender.moved(between: entry.sentAt, and: at + excuseWindow)
                    {
                        tally.lostWithMove += 1
                    } else {
                        tally.lost += 1
                        if tally.examples.count < 10 { tally.examples.append("\(entry.token) \(entry.sender.name) → \(recipient.name) accepted, never delivered") }
                    }
                case .refused(let reason):
                    if count >= 1 {
                        tally.deliveredReplyLost += 1
                    } else {
                        tally.refused += 1
                        tally.refusals[String(reason.prefix(40)), default: 0] += 1
                    }
                case .pending:
                    if count >= 1 {
                        tally.deliveredReplyLost += 1
                    } else {
                        tally.unanswered += 1
                        if tally.examples.count < 10 { tally.examples.append("\(entry.token) \(entry.sender.name) → \(recipient.name) never answered") }
                    }
                }
            }
        }
        return tally
    }
}
