import SwitchyardClient
import Synchronization

/// A publisher the bench watches: its quality events with their times.
final class TrackedPublisher: Sendable {
    private final class EventLog: Sendable {
        let entries = Mutex<[(at: UInt64, event: PublisherEvent)]>([])
    }

    private let log = EventLog()
    private let watcher: Task<Void, Never>

    init(publisher: Publisher) {
        let log = self.log
        let events = publisher.events
        watcher = Task {
            for await event in events { log.entries.withLock { $0.append((MonotonicClock.now(), event)) } }
        }
    }

    deinit {
        watcher.cancel()
    }

    /// Warnings, lifts, and disables/enables for reason quality, after `start`.
    func qualityEvents(since start: UInt64) -> [(at: UInt64, event: PublisherEvent)] {
        log.entries.withLock {
            $0.filter { entry in
                guard entry.at >= start else { return false }
                switch entry.event {
                case .publisherVideoDisableWarning, .publisherVideoDisableWarningLifted: return true
                case .publisherVideoDisabled(let reason), .publisherVideoEnabled(let reason): return reason == .quality
                case .streamDestroyed: return false
                }
            }
        }
    }

    static func name(of event: PublisherEvent) -> String {
        switch event {
        case .publisherVideoDisableWarning: "publisherVideoDisableWarning"
        case .publisherVideoDisableWarningLifted: "publisherVideoDisableWarningLifted"
        case .publisherVideoDisabled(let reason): "publisherVideoDisabled(\(reason.rawValue))"
        case .publisherVideoEnabled(let reason): "publisherVideoEnabled(\(reason.rawValue))"
        case .streamDestroyed: "streamDestroyed"
        }
    }
}
