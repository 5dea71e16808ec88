import MediaControl
import Quality

extension Router {
    /// Chooses the dominant speaker, and the loudest audio when only the loudest is forwarded, from
    /// the levels the audio producers metered; reports levels at a bounded rate. At home only: the
    /// producers live there.
    func tickSpeakers(now: UInt64) {
        guard isHome else { return }
        speakers.candidates.removeAll(keepingCapacity: true)
        for producer in producers.values where producer.options.audioLevelID != nil && !producer.suspension.contains(.muted) {
            speakers.candidates.append(SpeakerActivity(speaker: producer.id, meter: producer.levels, now: now))
        }
        if let change = speakers.dominant.evaluate(speakers.candidates) {
            worker.events.yield(.dominantSpeakerChanged(id, change))
        }
        if let count = speakers.forwardLoudest {
            let loudest = LoudestSpeakers(
                count: count, candidates: speakers.candidates, dominant: speakers.dominant.dominant, previouslyForwarded: speakers.forwarded)
            speakers.forwarded = loudest.forwarded
            for producer in producers.values where producer.options.audioLevelID != nil {
                producer.loudestAdmission = loudest.admissionLoudness
                producer.yieldsToLouder = !loudest.forwarded.contains(producer.id)
            }
        }
        if now - speakers.levelsReportedAt >= UInt64(AudioLevelReport.interval.nanoseconds) {
            speakers.levelsReportedAt = now
            reportLevels(now: now)
        }
    }

    /// Forwards only the `count` loudest audio producers (nil: every one).
    func setForwardLoudest(_ count: Int?, now: UInt64) {
        speakers.forwardLoudest = count
        speakers.forwarded = []
        guard count == nil else { return }
        for producer in producers.values { producer.forwardRegardlessOfLoudness(now: now) }
    }

    private func reportLevels(now: UInt64) {
        var levels: [ProducerAudioLevel] = []
        for candidate in speakers.candidates {
            guard let producer = producers[candidate.speaker] else { continue }
            let level = (producer.levels.amplitude(now: now) * 1000).rounded() / 1000
            guard level > 0 else { continue }
            levels.append(
                ProducerAudioLevel(
                    producerID: candidate.speaker, level: level,
                    speaking: candidate.shortActivity >= DominantSpeakerSelector<ProducerID>.takeoverActivity))
        }
        levels.sort { ($0.level, $1.producerID.rawValue) > ($1.level, $0.producerID.rawValue) }
        levels = Array(levels.prefix(AudioLevelReport.maximumStreams))
        guard levels != speakers.reportedLevels else { return }
        speakers.reportedLevels = levels
        worker.events.yield(.audioLevels(id, levels))
    }
}
