import SignalingProtocol
import SwitchyardClient

/// A subscriber the bench watches: its label, whether its network is impaired, its preferred
/// resolution, and its video events with their times.
final class TrackedSubscriber: Sendable {
    let label: String
    let subscriber: Subscriber
    let isImpaired: Bool
    let preference: VideoDimensions?
    private let log: TimedEventLog<SubscriberEvent>

    init(label: String, subscriber: Subscriber, isImpaired: Bool, preference: VideoDimensions? = nil) {
        self.label = label
        self.subscriber = subscriber
        self.isImpaired = isImpaired
        self.preference = preference
        log = TimedEventLog(subscriber.events)
    }

    /// The simulcast layer changes (`videoLayerChanged`) after `start`.
    func layerChanges(since start: UInt64) -> [(at: UInt64, change: SubscriberLayerChange)] {
        log.events(since: start).compactMap { entry in
            guard case .subscriberVideoLayerChanged(let change) = entry.event else { return nil }
            return (entry.at, change)
        }
    }

    /// Quality events (warnings, and disables/enables for reason quality) after `start`.
    func qualityEvents(since start: UInt64) -> [(at: UInt64, event: SubscriberEvent)] {
        log.events(since: start, where: Self.isQuality)
    }

    /// The video state at `time`: on, warned, off (quality) or paused (another reason).
    func state(at time: UInt64) -> String {
        var warned = false
        var disabledFor: Set<String> = []
        for entry in log.events(since: 0) where entry.at <= time {
            switch entry.event {
            case .subscriberVideoDisableWarning: warned = true
            case .subscriberVideoDisableWarningLifted: warned = false
            case .subscriberVideoDisabled(let reason):
                disabledFor.insert(reason.rawValue)
                warned = false
            case .subscriberVideoEnabled(let reason): disabledFor.remove(reason.rawValue)
            case .subscriberDidEnd: disabledFor.insert("ended")
            case .subscriberDidDisconnectFromStream, .subscriberDidReconnectToStream, .subscriberVideoLayerChanged: break
            }
        }
        if disabledFor.contains("quality") { return "off" }
        if disabledFor.contains("overload") { return "shed" }
        if !disabledFor.isEmpty { return "paused" }
        return warned ? "warned" : "on"
    }

    /// Whether overload shedding turned this subscriber's video off at any time.
    var wasShedForOverload: Bool {
        !log.events(since: 0, where: { $0 == .subscriberVideoDisabled(reason: .overload) }).isEmpty
    }

    static func isQuality(_ event: SubscriberEvent) -> Bool {
        switch event {
        case .subscriberVideoDisableWarning, .subscriberVideoDisableWarningLifted: true
        case .subscriberVideoDisabled(let reason), .subscriberVideoEnabled(let reason): reason == .quality
        case .subscriberDidEnd, .subscriberDidDisconnectFromStream, .subscriberDidReconnectToStream, .subscriberVideoLayerChanged: false
        }
    }

    static func name(of event: SubscriberEvent) -> String {
        switch event {
        case .subscriberVideoDisableWarning: "videoDisableWarning"
        case .subscriberVideoDisableWarningLifted: "videoDisableWarningLifted"
        case .subscriberVideoDisabled(let reason): "videoDisabled(\(reason.rawValue))"
        case .subscriberVideoEnabled(let reason): "videoEnabled(\(reason.rawValue))"
        case .subscriberDidEnd: "subscriberDidEnd"
        case .subscriberDidDisconnectFromStream: "subscriberDisconnected"
        case .subscriberDidReconnectToStream: "subscriberReconnected"
        case .subscriberVideoLayerChanged(let change):
            "videoLayerChanged(\(change.layer.map { "\($0.width)x\($0.height)" } ?? "none") → \(change.targetLayer.width)x\(change.targetLayer.height), \(change.reason))"
        }
    }
}
