/// What overload shedding did in a `fanout --overload` run, from the daemon's metrics at the start
/// and end of the measurement and the subscribers' events.
struct OverloadAnalysis {
    /// The sum of every sample of `name` (whatever its labels) whose labels contain `label`.
    static func total(_ metrics: [String: Double], _ name: String, label: String = "") -> Double {
        metrics.reduce(0) { sum, sample in
            sample.key.hasPrefix(name + "{") && (label.isEmpty || sample.key.contains(label)) ? sum + sample.value : sum
        }
    }

    static func analyse(
        metricsStart: [String: Double], metricsEnd: [String: Double], seconds: Double, publisherPacketsSent: UInt64,
        subscribers: [TrackedSubscriber], allSubscribers: Int, workers: [BenchReport.WorkerShare], refusedAtJoin: Int
    ) -> BenchReport.Overload {
        func delta(_ name: String, label: String = "") -> Double {
            max(0, total(metricsEnd, name, label: label) - total(metricsStart, name, label: label))
        }
        var overload = BenchReport.Overload()
        overload.offeredPacketsPerSecond = Double(publisherPacketsSent) / seconds * Double(allSubscribers)
        overload.forwardedPacketsPerSecond = delta("switchyard_media_worker_packets_sent_total") / seconds
        if overload.offeredPacketsPerSecond > 0 {
            overload.forwardedShare = overload.forwardedPacketsPerSecond / overload.offeredPacketsPerSecond
        }
        if let busiest = workers.max(by: { $0.busyPercent < $1.busyPercent }), busiest.busyPercent > 0 {
            let capacity = busiest.packetsSentPerSecond / (min(busiest.busyPercent, 100) / 100)
            overload.capacityPacketsPerSecond = capacity
            overload.offeredShareOfCapacity = overload.offeredPacketsPerSecond / Double(max(workers.count, 1)) / capacity
        }
        overload.latePackets = UInt64(delta("switchyard_media_drops_total", label: "reason=\"overloadLate\""))
        overload.subscribersShedAtEnd = Int(total(metricsEnd, "switchyard_media_worker_video_shed_subscribers"))
        overload.sampled = subscribers.count
        overload.sampledEverShed = subscribers.filter(\.wasShedForOverload).count
        overload.sheddingSteps = UInt64(delta("switchyard_media_worker_overload_steps_total", label: "direction=\"videoOff\""))
        overload.restoringSteps = UInt64(delta("switchyard_media_worker_overload_steps_total", label: "direction=\"videoOn\""))
        overload.refusedAtJoin = refusedAtJoin
        return overload
    }
}
