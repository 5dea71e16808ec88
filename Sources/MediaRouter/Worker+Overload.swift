import MediaControl

/// Overload shedding on the worker (`OverloadShedding`): the governor's actions carried out, the
/// forwarding rate measured, and the admission of new subscribers.
extension Worker {
    /// Measures the forwarding rate and the busy share, and lets the governor judge the waits seen,
    /// once per evaluation interval.
    func evaluateOverload(now: UInt64) {
        guard let sample = overloadSample else {
            overloadSample = (now, packetsSent, busyNanoseconds)
            return
        }
        guard now - sample.at >= OverloadGovernor.evaluationInterval else { return }
        let seconds = Double(now - sample.at) / 1e9
        let rate = Double(packetsSent &- sample.packetsSent) / seconds
        // About a second of memory at 100 ms samples.
        forwardedPacketsPerSecond += (rate - forwardedPacketsPerSecond) * 0.1
        let busyShare = Double(busyNanoseconds &- sample.busy) / 1e9 / seconds
        overloadSample = (now, packetsSent, busyNanoseconds)
        // Closed transports leave the list here, rather than on the close path.
        videoShed.removeAll { $0.router?.transports[$0.id] !== $0 }
        // What a whole core would forward at the cost per packet measured now, and the share of
        // it the worker may fill when it turns video back on.
        let capacity = busyShare > 0.05 ? forwardedPacketsPerSecond / busyShare : .infinity
        let ceiling = capacity * configuration.overloadShedding.restoreBelowBusyShare
        var projected = forwardedPacketsPerSecond
        // Counted every evaluation, listed only for a step off: most evaluations allocate nothing.
        var candidates = 0
        for router in routers.values {
            for transport in router.transports.values where transport.isSheddingCandidate { candidates += 1 }
        }
        let action = overload.evaluate(
            now: now, busyShare: busyShare, hasRoom: videoShed.last.map { projected + $0.videoPacketRate <= ceiling } ?? false,
            subscribers: candidates + videoShed.count, shed: videoShed.count)
        switch action {
        case .shed(let count)?:
            // The newest subscribers first: those who joined last lose least of a call they were in.
            let newestFirst = routers.values.flatMap { $0.transports.values.filter(\.isSheddingCandidate) }
                .sorted { $0.id.rawValue > $1.id.rawValue }
            for transport in newestFirst.prefix(count) {
                transport.setVideoShed(true, now: now)
                videoShed.append(transport)
            }
        case .restore(let count)?:
            // The last turned off (the oldest subscribers) first, as many as have room.
            for _ in 0..<count {
                guard let next = videoShed.last, projected + next.videoPacketRate <= ceiling else { break }
                projected += next.videoPacketRate
                videoShed.removeLast().setVideoShed(false, now: now)
            }
        case nil:
            break
        }
    }

    /// Whether the worker sheds, or is about to: it resends nothing then.
    var isSheddingLoad: Bool { overload.isShedding(shed: videoShed.count) }

    /// Why a new consumer of `producer` is refused here, or nil to admit it: when the worker's
    /// forwarding with what the producer's busiest encoding sends would pass its budget. A worker
    /// that sheds still admits (the newest subscriber is the first whose video a further step turns
    /// off): its backlog may be a crowd's joins, which refusing them would only prolong.
    func admissionRefusal(forConsumerOf producer: Producer, on transport: Transport) -> MediaControlError? {
        transport.isRelayLeg ? nil : admissionRefusal(adding: producer.packetRateOfBusiestEncoding)
    }

    /// Why a subscriber adding `added` packets per second is refused here, or nil to admit it.
    func admissionRefusal(adding added: Double) -> MediaControlError? {
        let shedding = configuration.overloadShedding
        let budget = Double(shedding.forwardingBudget)
        guard shedding.enabled, budget > 0, forwardedPacketsPerSecond + added > budget else { return nil }
        return .overloaded(
            worker: index,
            reason: "it forwards \(Int(forwardedPacketsPerSecond)) packets/s and this subscriber would add \(Int(added)), past its budget of \(shedding.forwardingBudget) (media.overload.forwardingBudget)")
    }
}
