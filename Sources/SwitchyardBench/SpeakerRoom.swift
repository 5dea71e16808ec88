import SwitchyardClient

/// One room of the speakers scenario: every participant publishes audio and subscribes to everyone
/// else's, and hears speaker events; the last one is the listener whose events are timed. A room
/// that is not running is muted, so the daemon carries one room's media at a time.
final class SpeakerRoom: Sendable {
    struct Participant: Sendable {
        let label: String
        let session: Session
        let publisher: Publisher
        let voice: SpeakerVoice
    }

    let name: String
    let participants: [Participant]
    let subscribers: [Subscriber]
    private let listenerLog: TimedEventLog<SessionClientEvent>

    /// `participants` must not be empty.
    init(name: String, participants: [Participant], subscribers: [Subscriber]) {
        self.name = name
        self.participants = participants
        self.subscribers = subscribers
        listenerLog = TimedEventLog(participants[participants.count - 1].session.events)
    }

    /// Unmutes or mutes every publisher; each plays its room noise from now on.
    func setLive(_ live: Bool) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for participant in participants {
                participant.publisher.play(participant.voice.room)
                group.addTask { try await participant.publisher.setPublishAudio(live) }
            }
            try await group.waitForAll()
        }
    }

    /// Every `activeSpeakerChanged` the listener heard at or after `start`, with when.
    func speakerChanges(since start: UInt64) -> [SpeakerChange] {
        listenerLog.events(since: start).compactMap { entry in
            guard case .activeSpeakerChanged(let streamId) = entry.event else { return nil }
            return SpeakerChange(at: entry.at, streamId: streamId)
        }
    }

    /// The streams every `audioLevels` report the listener heard at or after `start` marked as
    /// speaking, with when.
    func speakingReports(since start: UInt64) -> [SpeakingReport] {
        listenerLog.events(since: start).compactMap { entry in
            guard case .audioLevels(let levels) = entry.event else { return nil }
            return SpeakingReport(at: entry.at, speaking: Set(levels.filter(\.speaking).map(\.streamId)))
        }
    }

    /// Audio packets and payload bytes all the room's subscriptions have received so far.
    func audioReceived() async -> (packets: UInt64, bytes: UInt64) {
        await Subscriber.snapshot(subscribers, takingLatency: false).reduce((0, 0)) { total, snapshot in
            (total.0 + snapshot.media.audio.packetsReceived, total.1 + snapshot.media.audio.bytesReceived)
        }
    }

    /// Participant labels by stream id.
    var labels: [String: String] {
        Dictionary(participants.map { ($0.publisher.streamId, $0.label) }) { first, _ in first }
    }
}

/// A change of the dominant speaker as a listener heard it.
struct SpeakerChange: Sendable {
    var at: UInt64
    var streamId: String?
}

/// The streams one `audioLevels` report marked as speaking, and when the listener heard it.
struct SpeakingReport: Sendable {
    var at: UInt64
    var speaking: Set<String>
}
