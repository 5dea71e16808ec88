import SwitchyardClient
import Synchronization

/// Every event of one stream with the monotonic time it arrived, collected by a task of its own
/// until the log is dropped.
final class TimedEventLog<Event: Sendable>: Sendable {
    private final class Entries: Sendable {
        let list = Mutex<[(at: UInt64, event: Event)]>([])
    }

    private let entries = Entries()
    private let watcher: Task<Void, Never>

    init(_ events: AsyncStream<Event>) {
        let entries = self.entries
        watcher = Task {
            for await event in events { entries.list.withLock { $0.append((MonotonicClock.now(), event)) } }
        }
    }

    deinit {
        watcher.cancel()
    }

    /// The events that arrived at or after `start` and satisfy `isIncluded`, in order.
    func events(since start: UInt64, where isIncluded: (Event) -> Bool = { _ in true }) -> [(at: UInt64, event: Event)] {
        entries.list.withLock { $0.filter { $0.at >= start && isIncluded($0.event) } }
    }
}
