import MediaControl
import Quality

/// The audio-fallback policy of each side of a transport, and the effects of its actions on media.
/// Evaluated once per receiver report (subscriber side) or per sample interval (publisher side),
/// never per packet.
extension Transport {
    /// Reports closer together than this are folded into one sample. A browser sends a compound with
    /// every NACK, dozens a second on a lossy path, and the delivered rate over a few milliseconds is
    /// noise that would keep resetting the policy's recovery clock.
    static let minimumDownlinkSampleInterval: UInt64 = 250_000_000

    /// The subscriber's receiver reports about this transport's consumers, folded into one sample.
    func downlinkReport(_ interval: ReportInterval, jitterSeconds: Double?, roundTripSeconds: Double?, now: UInt64) {
        guard let since = downlink.lastSampleAt else {
            downlink.lastSampleAt = now
            downlink.bytesAtLastSample = bytesSent
            return
        }
        downlink.pendingInterval = downlink.pendingInterval + interval
        guard now > since, now - since >= Self.minimumDownlinkSampleInterval else { return }
        let reported = downlink.pendingInterval
        downlink.pendingInterval = ReportInterval(packetsExpected: 0, packetsLost: 0)
        let sample = QualitySample(
            intervalSeconds: Double(now - since) / 1e9, packetsExpected: reported.packetsExpected, packetsLost: reported.packetsLost,
            bytes: Int(clamping: bytesSent &- downlink.bytesAtLastSample), jitterSeconds: jitterSeconds,
            roundTripSeconds: roundTripSeconds)
        downlink.lastSampleAt = now
        downlink.bytesAtLastSample = bytesSent
        let probing = downlink.policy.isVideoOff
        if let action = downlink.record(sample, now: now, returnsLower: videoReturnsLower(now: now), probedAtFullRate: probePacer.isAtFullRate) {
            perform(action, side: .subscriber, now: now)
        }
        if probing, downlink.policy.isVideoOff { probePacer.adapt(toReportedLoss: sample.lossFraction) }
        if case .redundant = redundantAudio {
            addedRedundantFrames = worker.configuration.addedAudioRedundancy.frames(toward: downlink.quality)
        }
    }

    /// Timer work: probe padding while the subscriber's video is off, the resend budget at the
    /// downlink's estimate, and the publisher's uplink sample.
    func tickQuality(now: UInt64) {
        if downlink.policy.isVideoOff { probe(now: now) } else { probePacer.reset() }
        let estimate = downlink.quality.availableBitrate
        if estimate.map({ $0 / 8 }) != retransmissionBudget.bytesPerSecond {
            retransmissionBudget.setRate(bitsPerSecond: estimate, now: now)
        }
        guard !producers.isEmpty else { return }
        let interval = UInt64(worker.configuration.audioFallback.publisherSampleInterval.nanoseconds)
        guard let since = uplink.lastSampleAt else {
            uplink.lastSampleAt = now
            uplink.bytesAtLastSample = bytesReceived
            return
        }
        guard now - since >= interval else { return }
        var lost = ReportInterval(packetsExpected: 0, packetsLost: 0)
        var jitter = 0.0
        for producer in producers {
            lost = lost + producer.takeUplinkInterval()
            jitter = max(jitter, producer.jitterSeconds)
        }
        let sample = QualitySample(
            intervalSeconds: Double(now - since) / 1e9, packetsExpected: lost.packetsExpected, packetsLost: lost.packetsLost,
            bytes: Int(clamping: bytesReceived &- uplink.bytesAtLastSample), jitterSeconds: jitter)
        uplink.lastSampleAt = now
        uplink.bytesAtLastSample = bytesReceived
        if let action = uplink.record(sample, now: now) { perform(action, side: .publisher, now: now) }
    }

    /// The app turns one side's policy on or off; off while video is off restores it silently.
    func setAudioFallback(side: AudioFallbackSide, enabled: Bool, now: UInt64) {
        switch side {
        case .subscriber:
            if downlink.setEnabled(enabled) { restoreDownlinkVideo(now: now) }
            updateDownlinkEligibility(now: now)
        case .publisher:
            if uplink.setEnabled(enabled) { setUplinkVideo(suspended: false, now: now) }
        }
    }

    /// Re-checks whether the subscriber-side policy may act: only while some video consumer is off for
    /// nobody's choice and its publisher's video is not itself off for quality.
    func updateDownlinkEligibility(now: UInt64) {
        let eligible = consumersBySSRC.values.contains { consumer in
            consumer.kind == .video && !consumer.isPausedByChoice && !consumer.producer.isSuspended
        }
        guard eligible != downlink.isEligible else { return }
        if downlink.setEligible(eligible) { restoreDownlinkVideo(now: now) }
    }

    private var videoConsumers: some Sequence<Consumer> {
        consumersBySSRC.values.lazy.filter { $0.kind == .video }
    }

    private func perform(_ action: AudioFallbackAction, side: AudioFallbackSide, now: UInt64) {
        let transition: AudioFallbackTransition
        switch action {
        case .warn:
            if side == .subscriber, absorbWarningByLayers(now: now) { return }
            transition = .warning
        case .liftWarning:
            transition = .warningLifted
        case .disableVideo:
            transition = .videoDisabled
            switch side {
            case .subscriber:
                for consumer in videoConsumers { consumer.pause(.quality, now: now) }
            case .publisher:
                setUplinkVideo(suspended: true, now: now)
            }
        case .enableVideo:
            transition = .videoEnabled
            switch side {
            case .subscriber:
                holdLayersAfterReturn(now: now)
                restoreDownlinkVideo(now: now)
            case .publisher: setUplinkVideo(suspended: false, now: now)
            }
        }
        worker.events.yield(.audioFallback(id, side: side, transition))
    }

    private func restoreDownlinkVideo(now: UInt64) {
        probePacer.reset()
        for consumer in videoConsumers { consumer.resume(.quality, now: now) }
    }

    /// Stops or restarts every consumer of this transport's video producers, and lets their
    /// subscribers' policies know whether they have video to judge.
    private func setUplinkVideo(suspended: Bool, now: UInt64) {
        for producer in producers where producer.kind == .video {
            producer.setSuspended(.uplinkQuality, suspended, now: now)
        }
    }

    /// Sends padding on a video consumer at the probe rate, so the subscriber's reports show whether
    /// the path would carry the lowest video.
    private func probe(now: UInt64) {
        guard let consumer = videoConsumers.first(where: { !$0.isPausedByChoice }) else { return }
        let due = probePacer.packetsDue(
            now: now, bitsPerSecond: worker.configuration.audioFallback.probeBitrate, packetBytes: consumer.probePacketBytes,
            addedBytes: addedRedundancyBytes)
        for _ in 0..<due { consumer.sendPadding(now: now) }
    }
}

extension Transport {
    func snapshot() -> TransportStatistics {
        var result = TransportStatistics(transportID: id, downlink: Self.statistics(downlink), uplink: Self.statistics(uplink))
        result.bytesSent = bytesSent
        result.bytesReceived = bytesReceived
        result.kind = webRTC == nil ? "plain" : "webrtc"
        result.srtpProfile = outbound?.profile.rawValue
        result.remoteAddress = remote?.transportAddress
        return result
    }

    private static func statistics(_ monitor: LinkMonitor) -> LinkStatistics {
        let quality = monitor.quality
        return LinkStatistics(
            score: quality.score, lossFraction: quality.loss, jitterSeconds: quality.jitterSeconds,
            roundTripTimeSeconds: quality.roundTripSeconds, deliveredBitrate: quality.deliveredBitrate,
            availableBitrate: quality.availableBitrate, availableBitrateSource: quality.availableBitrateSource,
            audioFallbackState: monitor.fallbackState?.rawValue,
            samples: monitor.estimator.sampleCount)
    }
}
