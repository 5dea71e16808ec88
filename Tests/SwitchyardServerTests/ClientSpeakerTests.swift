import Foundation
import SignalingProtocol
import SwitchyardClient
import Synchronization
import Testing

/// The Swift client and speakers (docs/speakers.md) against a real daemon: its Opus packets carry
/// the RFC 6464 level of the PCM each was encoded from, so the router hears who talks; a session
/// that asked is told, one that did not hears nothing.
@Suite(.serialized) struct ClientSpeakerTests {
    static let roomLoudness = -55.0
    static let speech = try! EncodedAudio(
        pcm: SynthesizedAudio.speech(seconds: 6, loudness: -22, noiseLoudness: roomLoudness, seed: 11), bitrate: 24_000)
    /// Without knocks, so its smoothed level stays at the room's.
    static let room = try! EncodedAudio(pcm: SynthesizedAudio.noise(seconds: 4, loudness: roomLoudness, knocks: false, seed: 12), bitrate: 24_000)

    private func session(_ harness: DaemonHarness, _ role: Role, loop: MediaLoop, speakerEvents: Bool = false) async throws -> Session {
        let token = try await harness.token(session: "client-speakers", role: role)
        return try await Session.connect(
            url: "ws://127.0.0.1:\(harness.port)/v1/ws", sessionId: "client-speakers", token: token, options: SessionOptions(mediaLoop: loop),
            subscribeToSpeakerEvents: speakerEvents)
    }

    private func publish(_ session: Session, _ name: String, _ audio: EncodedAudio, levels: Bool = true) async throws -> Publisher {
        try await session.publish(
            PublisherSettings(name: name, media: try EncodedMedia(settings: .audioOnly, audio: audio), sendsAudioLevels: levels))
    }

    /// Every event of `events` up to the first that `isLast` matches, included; nil when none did
    /// within `timeout`.
    private func events(
        _ events: AsyncStream<SessionClientEvent>, timeout: Duration = .seconds(10), until isLast: @escaping @Sendable (SessionClientEvent) -> Bool
    ) async -> [SessionClientEvent]? {
        let seen = Mutex<[SessionClientEvent]>([])
        let last = await next(events, timeout: timeout) { event in
            seen.withLock { $0.append(event) }
            return isLast(event)
        }
        return last == nil ? nil : seen.withLock { $0 }
    }

    private static func named(_ streamId: String?) -> @Sendable (SessionClientEvent) -> Bool {
        { $0 == .activeSpeakerChanged(streamId: streamId) }
    }

    @Test func aClientTalkingBecomesTheActiveSpeakerForWhoAskedAndNobodyElseHearsOfIt() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        let listener = try await session(harness, .subscriber, loop: loop, speakerEvents: true)
        let bystander = try await session(harness, .subscriber, loop: loop)
        let quietSession = try await session(harness, .publisher, loop: loop)
        let quiet = try await publish(quietSession, "quiet", Self.room)
        // Talks all along, but declares no levels: the router cannot hear it.
        let unheardSession = try await session(harness, .publisher, loop: loop)
        let unheard = try await publish(unheardSession, "no levels", Self.speech, levels: false)
        let talkerSession = try await session(harness, .publisher, loop: loop)
        let talker = try await publish(talkerSession, "talker", Self.room)
        #expect(listener.activeSpeakerStreamId == nil)

        // Both level-carrying streams are metered; the quiet room reads as its -55 dBov (±2 dB).
        let metered = try #require(
            await events(listener.events) { event in
                guard case .audioLevels(let levels) = event else { return false }
                return Set(levels.map(\.streamId)) == [quiet.streamId, talker.streamId]
            })
        guard case .audioLevels(let roomLevels)? = metered.last else { return }
        let quietLevel = try #require(roomLevels.first { $0.streamId == quiet.streamId })
        #expect(quietLevel.level >= 0.001 && quietLevel.level <= 0.003 && !quietLevel.speaking, "\(quietLevel), -55 dBov is 0.0018")

        talker.play(Self.speech)
        let heard = try #require(await events(listener.events, until: Self.named(talker.streamId)), "the talker was never named")
        #expect(listener.activeSpeakerStreamId == talker.streamId)
        let speaking = try #require(
            await events(listener.events) { event in
                if case .audioLevels(let levels) = event { levels.first?.streamId == talker.streamId && levels.first?.speaking == true } else { false }
            })
        guard case .audioLevels(let talking)? = speaking.last else { return }
        // Voiced frames are -16 to -30 dBov (0.03-0.16); the router smooths them.
        #expect(talking[0].level >= 0.02 && talking[0].level <= 0.2, "\(talking[0])")

        // A client joining now and asking learns the speaker from its connect reply.
        let late = try await session(harness, .subscriber, loop: loop, speakerEvents: true)
        #expect(late.activeSpeakerStreamId == talker.streamId)

        // Muted, the talker sends nothing and gives up the floor.
        try await talker.setPublishAudio(false)
        let freed = try #require(await events(listener.events, until: Self.named(nil)), "the floor stayed with the muted talker")
        #expect(listener.activeSpeakerStreamId == nil)
        for event in heard + speaking + freed {
            if case .activeSpeakerChanged(unheard.streamId) = event { Issue.record("a stream without levels was named") }
            if case .audioLevels(let levels) = event, levels.contains(where: { $0.streamId == unheard.streamId }) {
                Issue.record("a stream without levels was metered")
            }
        }

        // Everything the bystander was sent came before this signal; none of it was about speakers.
        try await talkerSession.signal(type: "end", data: "")
        let bystanderHeard = try #require(await events(bystander.events) { $0 == .signalReceived(type: "end", data: "", from: talkerSession.connection?.connectionId) })
        #expect(!bystanderHeard.contains { if case .activeSpeakerChanged = $0 { true } else if case .audioLevels = $0 { true } else { false } }, "\(bystanderHeard)")
        #expect(bystander.activeSpeakerStreamId == nil)

        for client in [listener, bystander, late, quietSession, unheardSession, talkerSession] { await client.disconnect() }
        await loop.stop()
        try await harness.stop()
    }
}
