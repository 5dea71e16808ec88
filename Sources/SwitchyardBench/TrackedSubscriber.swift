import SwitchyardClient
import Synchronization

/// A subscriber the bench watches: its quality events with their times, and what it measured at the
/// start of the measurement, for deltas.
final class TrackedSubscriber: Sendable {
    let label: String
    let subscriber: Subscriber
    let isImpaired: Bool
    private final class EventLog: Sendable {
        let entries = Mutex<[(at: UInt64, event: SubscriberEvent)]>([])
    }

    private let log = EventLog()
    private let watcher: Task<Void, Never>

    init(label: String, subscriber: Subscriber, isImpaired: Bool) {
        self.label = label
        self.subscriber = subscriber
        self.isImpaired = isImpaired
        let log = self.log
        let events = subscriber.events
        watcher = Task {
            for await event in events { log.entries.withLock { $0.append((MonotonicClock.now(), event)) } }
        }
    }

    deinit {
        watcher.cancel()
    }

    /// Quality events (warnings, and disables/enables for reason quality) after `start`.
    func qualityEvents(since start: UInt64) -> [(at: UInt64, event: SubscriberEvent)] {
        log.entries.withLock { $0.filter { $0.at >= start && Self.isQuality($0.event) } }
    }

    /// The video state at `time`: on, warned, off (quality) or paused (another reason).
    func state(at time: UInt64) -> String {
        var warned = false
        var disabledFor: Set<String> = []
        for entry in log.entries.withLock({ $0 }) where entry.at <= time {
            switch entry.event {
            case .subscriberVideoDisableWarning: warned = true
            case .subscriberVideoDisableWarningLifted: warned = false
            case .subscriberVideoDisabled(let reason):
                disabledFor.insert(reason.rawValue)
                warned = false
            case .subscriberVideoEnabled(let reason): disabledFor.remove(reason.rawValue)
            case .subscriberDidDisconnectFromStream: disabledFor.insert("ended")
            }
        }
        if disabledFor.contains("quality") { return "off" }
        if !disabledFor.isEmpty { return "paused" }
        return warned ? "warned" : "on"
    }

    static func isQuality(_ event: SubscriberEvent) -> Bool {
        switch event {
        case .subscriberVideoDisableWarning, .subscriberVideoDisableWarningLifted: true
        case .subscriberVideoDisabled(let reason), .subscriberVideoEnabled(let reason): reason == .quality
        case .subscriberDidDisconnectFromStream: false
        }
    }

    static func name(of event: SubscriberEvent) -> String {
        switch event {
        case .subscriberVideoDisableWarning: "videoDisableWarning"
        case .subscriberVideoDisableWarningLifted: "videoDisableWarningLifted"
        case .subscriberVideoDisabled(let reason): "videoDisabled(\(reason.rawValue))"
        case .subscriberVideoEnabled(let reason): "videoEnabled(\(reason.rawValue))"
        case .subscriberDidDisconnectFromStream: "subscriberDidDisconnectFromStream"
        }
    }
}
