import Foundation
import Glibc
import MediaTestSupport
import SignalingProtocol
import Testing

/// Speakers in signaling (docs/speakers.md): who asks hears who speaks, a muted stream gives up the
/// floor, a session can forward only its loudest audio, and bad settings are named. Over real
/// sockets: the daemon, WebSocket clients, plain publishers whose Opus packets carry RFC 6464 levels.
@Suite(.serialized) struct SpeakerEventsTests {
    static let levelExtension: UInt8 = 3

    /// A plain publisher of audio with levels (and video, for markers).
    static func publishWithLevels(_ publisher: WebSocketTestClient) async throws -> (StreamInfo, TestPeer) {
        let peer = try TestPeer()
        var parameters = peer.publishParameters()
        parameters.audio?.audioLevelId = levelExtension
        guard case .publish(let published) = try await publisher.call(.publish(parameters)) else {
            throw WebSocketTestClient.Failure.timedOut("a publish result")
        }
        try peer.accept(try #require(published.transport))
        return (published.stream, peer)
    }

    /// 20 ms audio packets, 100 ms of silence then 300 ms of speech per 400 ms, from `index` on.
    static func talk(_ peer: TestPeer, from index: Int, count: Int, speaking: Bool = true) async throws {
        try await onOwnThread {
            for number in index..<(index + count) {
                let level: UInt8 = speaking && number % 20 >= 5 ? 30 : 127
                try peer.sendRTP(
                    payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: number), timestamp: UInt32(number * 960),
                    ssrc: TestPeer.audioSSRC, payload: [0x78] + Array(repeating: 0, count: 60), audioLevel: (levelExtension, level))
                usleep(20_000)
            }
        }
    }

    /// The events `client` heard until `done` says enough (at most `limit` of them, 5 s each).
    static func events(of client: WebSocketTestClient, until done: (SessionEvent) -> Bool, limit: Int = 200) async throws -> [SessionEvent] {
        var heard: [SessionEvent] = []
        for _ in 0..<limit {
            let (event, _) = try await client.nextEvent()
            heard.append(event)
            if done(event) { return heard }
        }
        return heard
    }

    @Test func whoAskedHearsTheActiveSpeakerAndLevelsAndAMutedSpeakerGivesUpTheFloor() async throws {
        let harness = try await DaemonHarness.start()
        let token = try await harness.token(session: "speakers", role: .subscriber)
        let listener = try await WebSocketTestClient.open(port: harness.port, host: harness.configuration.host)
        guard case .connect(let joined) = try await listener.call(
            .connect(ConnectParameters(sessionId: "speakers", token: token, subscribeToSpeakerEvents: true)))
        else { throw WebSocketTestClient.Failure.timedOut("a connect result") }
        #expect(joined.session.activeSpeakerStreamId == nil)
        let (bystander, _) = try await harness.connect(session: "speakers", role: .subscriber)
        let (publisher, _) = try await harness.connect(session: "speakers", role: .publisher)
        let (stream, peer) = try await Self.publishWithLevels(publisher)

        // The events queue up at the client while the publisher talks.
        try await Self.talk(peer, from: 0, count: 100)
        let heard = try await Self.events(of: listener) { $0 == .activeSpeakerChanged(ActiveSpeakerChange(streamId: stream.streamId)) }
        #expect(heard.last == .activeSpeakerChanged(ActiveSpeakerChange(streamId: stream.streamId)), "never named: \(heard)")
        let levels = try await Self.events(of: listener) { event in
            if case .audioLevels(let report) = event { report.levels.first?.streamId == stream.streamId } else { false }
        }
        guard case .audioLevels(let report)? = levels.last else { Issue.record("no level report: \(levels)"); return }
        #expect(report.levels.count == 1 && report.levels[0].level > 0 && report.levels[0].level <= 1)

        // A client joining now learns who speaks from its connect reply.
        let (_, late) = try await harness.connect(session: "speakers", role: .subscriber)
        #expect(late.session.activeSpeakerStreamId == stream.streamId)

        // Muted, the stream gives up the floor at once, as it stops forwarding.
        _ = try await publisher.call(.updateStream(StreamUpdate(streamId: stream.streamId, publishAudio: false)))
        try await Self.talk(peer, from: 100, count: 25)
        let freed = try await Self.events(of: listener) { $0 == .activeSpeakerChanged(ActiveSpeakerChange(streamId: nil)) }
        #expect(freed.last == .activeSpeakerChanged(ActiveSpeakerChange(streamId: nil)), "kept the floor: \(freed)")

        // Someone who did not ask heard none of it.
        _ = try await publisher.call(.signal(SignalParameters(type: "end", data: "")))
        let bystanderHeard = try await Self.events(of: bystander) { if case .signal = $0 { true } else { false } }
        #expect(!bystanderHeard.contains { [.activeSpeakerChanged, .audioLevels].contains($0.name) }, "\(bystanderHeard)")
        try await harness.stop()
    }

    @Test func aSessionForwardingOnlyTheLoudestHoldsBackASilentStreamAndBadSettingsAreNamed() async throws {
        let harness = try await DaemonHarness.start()
        let rest = try await harness.restToken()
        let created = try await harness.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"loudest","audio":{"forwardLoudest":1}}"#)
        #expect(created.status == 201)
        let read = try await harness.http("GET", "/v1/sessions/loudest", token: rest)
        let session = try JSONDecoder().decode(SessionSnapshot.self, from: read.body)
        #expect(session.audio == SessionAudioSettings(forwardLoudest: 1))

        let (publisher, _) = try await harness.connect(session: "loudest", role: .publisher)
        let (viewer, _) = try await harness.connect(session: "loudest", role: .subscriber)
        let (stream, peer) = try await Self.publishWithLevels(publisher)
        let viewerPeer = try TestPeer()
        guard case .subscribe(let subscribed) = try await viewer.call(
            .subscribe(SubscribeParameters(streamId: stream.streamId, transport: viewerPeer.transportOffer)))
        else { throw WebSocketTestClient.Failure.timedOut("a subscribe result") }
        try viewerPeer.accept(try #require(subscribed.transport))
        let audioSSRC = try #require(subscribed.audio?.ssrc)
        // Nobody speaks: after the router's next look the silent stream is held back, video goes on.
        try peer.sendRTP(
            payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: TestPeer.videoSSRC, payload: VP8TestPayload.make(index: 0, keyFrame: true, size: 400))
        try await Self.talk(peer, from: 0, count: 10, speaking: false)
        _ = try await onOwnThread { viewerPeer.receivePackets(for: 100) }
        try await Self.talk(peer, from: 10, count: 10, speaking: false)
        try peer.sendRTP(
            payloadType: 96, sequenceNumber: 1, timestamp: 3000, ssrc: TestPeer.videoSSRC,
            payload: VP8TestPayload.make(index: TestPeer.markerIndex, keyFrame: false, size: 400))
        let silent = try await viewerPeer.audioBeforeMarker(audioSSRC: audioSSRC)
        #expect(silent.marker && silent.audio == 0, "a silent stream was forwarded in a forwardLoudest session: \(silent)")
        // It speaks: it comes through at the start of its talk spurt.
        try await Self.talk(peer, from: 20, count: 20)
        let speaking = try await onOwnThread { viewerPeer.receivePackets(for: 200) }
        #expect(speaking.filter { if case .rtp(_, _, audioSSRC, _, _) = $0 { true } else { false } }.count >= 10)

        for (body, field) in [
            (#"{"audio":{"forwardLoudest":0}}"#, "body.audio.forwardLoudest"), (#"{"audio":{"forwardLoudest":101}}"#, "body.audio.forwardLoudest"),
            (#"{"audio":{"forwardLoudest":"three"}}"#, "body.audio.forwardLoudest"),
        ] {
            let refused = try await harness.http("POST", "/v1/sessions", token: rest, body: body)
            #expect(refused.status == 400)
            #expect(String(decoding: refused.body, as: UTF8.self).contains(field), "\(body): \(String(decoding: refused.body, as: UTF8.self))")
        }
        for (id, track, field) in [(UInt8(0), "audio", "params.audio.audioLevelId"), (15, "audio", "params.audio.audioLevelId"), (1, "video", "params.video.audioLevelId")] {
            var parameters = try TestPeer().publishParameters()
            if track == "audio" { parameters.audio?.audioLevelId = id } else { parameters.video?.audioLevelId = id }
            let answer = try await publisher.send(.publish(parameters))
            guard case .error(_, let error) = answer else { Issue.record("\(field) \(id) accepted"); continue }
            #expect(error.code == .invalidParams && error.message.contains(field), "\(error)")
        }
        try await harness.stop()
    }
}
