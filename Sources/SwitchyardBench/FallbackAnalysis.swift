import SwitchyardClient

/// Turns the subscribers' quality events into the fallback figures: from the start of the
/// impairment to the first warning and the first disable, from its end to the enable, and any
/// event on a clean subscriber.
struct FallbackAnalysis {
    let schedule: ImpairmentSchedule
    let start: UInt64

    func analyse(_ subscribers: [TrackedSubscriber]) -> BenchReport.Fallback {
        let degradation = schedule.firstDegradation ?? (start: 0, end: nil)
        var result = BenchReport.Fallback(
            schedule: schedule.description, impairmentStartSeconds: degradation.start, impairmentEndSeconds: degradation.end)
        for subscriber in subscribers {
            let events = subscriber.qualityEvents(since: start).map { (seconds: Double($0.at - start) / 1e9, event: $0.event) }
            var entry = BenchReport.SubscriberFallback(subscriber: subscriber.label, impaired: subscriber.isImpaired)
            entry.transitions = events.count
            entry.events = events.map { BenchReport.TimedEvent(seconds: $0.seconds, event: TrackedSubscriber.name(of: $0.event)) }
            if subscriber.isImpaired {
                entry.warningAfterSeconds = events.first { $0.event == .subscriberVideoDisableWarning && $0.seconds >= degradation.start }
                    .map { $0.seconds - degradation.start }
                entry.disabledAfterSeconds = events.first { $0.event == .subscriberVideoDisabled(reason: .quality) && $0.seconds >= degradation.start }
                    .map { $0.seconds - degradation.start }
                if let end = degradation.end {
                    entry.enabledAfterRecoverySeconds = events.first { $0.event == .subscriberVideoEnabled(reason: .quality) && $0.seconds >= end }
                        .map { $0.seconds - end }
                }
                result.transitions += events.count
            } else {
                result.cleanSubscriberEvents += events.count
            }
            result.subscribers.append(entry)
        }
        let impaired = result.subscribers.filter(\.impaired)
        result.warningAfterSeconds = Self.worst(impaired.map(\.warningAfterSeconds))
        result.disabledAfterSeconds = Self.worst(impaired.map(\.disabledAfterSeconds))
        result.enabledAfterRecoverySeconds = Self.worst(impaired.map(\.enabledAfterRecoverySeconds))
        return result
    }

    /// The largest timing, or nil when any subscriber never got there.
    private static func worst(_ timings: [Double?]) -> Double? {
        guard !timings.isEmpty, timings.allSatisfy({ $0 != nil }) else { return nil }
        return timings.compactMap { $0 }.max()
    }

    /// The publisher side: the publisher's warning, disable and enable, and whether every subscriber
    /// followed it (video disabled, then enabled, for quality).
    func analysePublisherSide(_ publisher: TrackedPublisher?, _ subscribers: [TrackedSubscriber]) -> BenchReport.Fallback {
        let degradation = schedule.firstDegradation ?? (start: 0, end: nil)
        var result = BenchReport.Fallback(
            side: "publisher", schedule: schedule.description, impairmentStartSeconds: degradation.start,
            impairmentEndSeconds: degradation.end)
        let events = (publisher?.qualityEvents(since: start) ?? []).map { (seconds: Double($0.at - start) / 1e9, event: $0.event) }
        var entry = BenchReport.PublisherFallback()
        entry.transitions = events.count
        entry.events = events.map { BenchReport.TimedEvent(seconds: $0.seconds, event: TrackedPublisher.name(of: $0.event)) }
        entry.warningAfterSeconds = events.first { $0.event == .publisherVideoDisableWarning && $0.seconds >= degradation.start }
            .map { $0.seconds - degradation.start }
        entry.disabledAfterSeconds = events.first { $0.event == .publisherVideoDisabled(reason: .quality) && $0.seconds >= degradation.start }
            .map { $0.seconds - degradation.start }
        if let end = degradation.end {
            entry.enabledAfterRecoverySeconds = events.first { $0.event == .publisherVideoEnabled(reason: .quality) && $0.seconds >= end }
                .map { $0.seconds - end }
        }
        result.publisher = entry
        result.warningAfterSeconds = entry.warningAfterSeconds
        result.disabledAfterSeconds = entry.disabledAfterSeconds
        result.enabledAfterRecoverySeconds = entry.enabledAfterRecoverySeconds
        result.transitions = entry.transitions
        var following = 0
        for subscriber in subscribers {
            let seen = subscriber.qualityEvents(since: start)
            var row = BenchReport.SubscriberFallback(subscriber: subscriber.label, impaired: false)
            row.transitions = seen.count
            row.events = seen.map { BenchReport.TimedEvent(seconds: Double($0.at - start) / 1e9, event: TrackedSubscriber.name(of: $0.event)) }
            if seen.map(\.event) == [.subscriberVideoDisabled(reason: .quality), .subscriberVideoEnabled(reason: .quality)] { following += 1 }
            result.subscribers.append(row)
        }
        result.subscribersFollowingPublisher = following
        return result
    }
}
