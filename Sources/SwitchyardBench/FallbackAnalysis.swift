import SwitchyardClient

/// Turns the subscribers' quality events into the fallback figures: from the start of the
/// impairment to the first warning and the first disable, from its end to the enable, and any
/// event on a clean subscriber.
struct FallbackAnalysis {
    let schedule: ImpairmentSchedule
    let start: UInt64
    /// The top layer's width when the publisher sends simulcast layers, nil for one encoding.
    var topWidth: Int? = nil
    /// Seconds measured, to scale full-quality cycles to five minutes.
    var measuredSeconds: Double = 0

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
        analyseCleanSpells(subscribers.filter(\.isImpaired), into: &result)
        return result
    }

    /// Each clean spell after an impaired one: which impaired subscribers had video off for quality
    /// as it began (or lost it within its first seconds, as the smoothed score lags the link), and
    /// how soon each got it back; with simulcast, on which layer, and how often full quality came back.
    private func analyseCleanSpells(_ impaired: [TrackedSubscriber], into result: inout BenchReport.Fallback) {
        result.simulcast = topWidth != nil
        let spells = schedule.degradations.enumerated().compactMap { index, degradation in
            degradation.end.map { end in (start: end, end: schedule.degradations.dropFirst(index + 1).first?.start) }
        }
        result.cleanSpells = spells.map { BenchReport.CleanSpell(startSeconds: $0.start, endSeconds: $0.end) }
        var cycles: [Int] = []
        for subscriber in impaired {
            let events = subscriber.qualityEvents(since: start).map { (seconds: Double($0.at - start) / 1e9, event: $0.event) }
            let layers = subscriber.layerChanges(since: start).map { (seconds: Double($0.at - start) / 1e9, layer: $0.change.layer) }
            var backAfter: [Double?] = []
            for (index, spell) in spells.enumerated() {
                let lastDisable = events.last { $0.event == .subscriberVideoDisabled(reason: .quality) && $0.seconds < spell.start + Self.lagAllowance }
                let enabledBefore = lastDisable.map { disable in
                    events.contains { $0.event == .subscriberVideoEnabled(reason: .quality) && $0.seconds > disable.seconds && $0.seconds < spell.start }
                }
                guard let disable = lastDisable, enabledBefore == false else {
                    backAfter.append(nil)
                    continue
                }
                result.cleanSpells[index].subscribersWithVideoOff += 1
                let back = events.first {
                    $0.event == .subscriberVideoEnabled(reason: .quality) && $0.seconds > disable.seconds && $0.seconds < (spell.end ?? .infinity)
                }
                backAfter.append(back.map { $0.seconds - spell.start })
                guard let back else { continue }
                result.cleanSpells[index].subscribersBack += 1
                result.cleanSpells[index].videoBackAfterSeconds = max(result.cleanSpells[index].videoBackAfterSeconds ?? 0, back.seconds - spell.start)
                if topWidth != nil, let layer = layers.first(where: { $0.seconds >= back.seconds && $0.layer != nil })?.layer {
                    result.cleanSpells[index].layersOnReturn.append("\(layer.width)x\(layer.height)")
                }
            }
            if let row = result.subscribers.firstIndex(where: { $0.subscriber == subscriber.label }) {
                result.subscribers[row].videoBackAfterSeconds = backAfter
                if let topWidth {
                    let warning = events.first { $0.event == .subscriberVideoDisableWarning }?.seconds ?? .infinity
                    let impairedFrom = schedule.firstDegradation?.start ?? 0
                    result.subscribers[row].steppedDownBeforeWarning = layers.contains {
                        $0.seconds >= impairedFrom && $0.seconds < warning && ($0.layer?.width ?? topWidth) < topWidth
                    }
                    let regained = Self.regains(of: layers.map { $0.layer?.width == topWidth })
                    result.subscribers[row].fullQualityCycles = regained
                    cycles.append(regained)
                }
            }
        }
        if let most = cycles.max() {
            result.fullQualityCycles = most
            result.fullQualityCyclesPerFiveMinutes = measuredSeconds > 0 ? Double(most) * 300 / measuredSeconds : nil
        }
    }

    /// A disable this soon after a spell turned clean still belongs to the impaired spell before it:
    /// the score is smoothed over the last reports.
    static let lagAllowance = 3.0

    /// How many times a state that was lost came back: `false → true` transitions after the first
    /// `true → false` one.
    static func regains(of states: [Bool]) -> Int {
        var lost = false
        var regained = 0
        var previous: Bool?
        for state in states where state != previous {
            if previous == true, !state { lost = true }
            if previous == false, state, lost { regained += 1 }
            previous = state
        }
        return regained
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
