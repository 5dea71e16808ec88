import SwitchyardClient

/// A publisher the bench watches: its quality events with their times.
final class TrackedPublisher: Sendable {
    private let log: TimedEventLog<PublisherEvent>

    init(publisher: Publisher) {
        log = TimedEventLog(publisher.events)
    }

    /// Warnings, lifts, and disables/enables for reason quality, after `start`.
    func qualityEvents(since start: UInt64) -> [(at: UInt64, event: PublisherEvent)] {
        log.events(since: start) { event in
            switch event {
            case .publisherVideoDisableWarning, .publisherVideoDisableWarningLifted: true
            case .publisherVideoDisabled(let reason), .publisherVideoEnabled(let reason): reason == .quality
            case .streamDestroyed, .publisherDidDisconnect, .publisherDidReconnect, .streamMoved, .muteForced: false
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
        case .publisherDidDisconnect: "publisherDisconnected"
        case .publisherDidReconnect: "publisherReconnected"
        case .streamMoved: "streamMoved"
        case .muteForced: "muteForced"
        }
    }
}
