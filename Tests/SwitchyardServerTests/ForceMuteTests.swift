import Foundation
import MediaTestSupport
import SignalingProtocol
import SwitchyardClient
import Testing

/// Force mute (docs/protocol.md#force-mute): a moderator's or the app's backend's mute of one stream,
/// of every stream, and on entry; the router stops forwarding the audio before the request is
/// answered. Over real sockets: the daemon, WebSocket clients, media through plain SRTP transports.
@Suite(.serialized) struct ForceMuteTests {
    /// What each of `clients` hears up to a signal of type `marker`, which `sender` sends to every
    /// connection: what an action sent before it, in order, with nothing left out or left over.
    static func events(of clients: [WebSocketTestClient], through marker: String, from sender: WebSocketTestClient) async throws -> [[SessionEvent]] {
        _ = try await sender.call(.signal(SignalParameters(type: marker, data: "")))
        var heard: [[SessionEvent]] = []
        for client in clients {
            var events: [SessionEvent] = []
            while true {
                let (event, _) = try await client.nextEvent()
                if case .signal(let delivery) = event, delivery.type == marker { break }
                events.append(event)
            }
            heard.append(events)
        }
        return heard
    }

    /// Publishes a TestPeer's audio and video stream and subscribes `viewer` to it; media flows (the
    /// audio too unless `mutedOnEntry`).
    static func publishAndSubscribe(
        _ publisher: WebSocketTestClient, _ viewer: WebSocketTestClient, mutedOnEntry: Bool = false
    ) async throws -> (stream: StreamInfo, publisherPeer: TestPeer, viewerPeer: TestPeer, audioSSRC: UInt32) {
        let publisherPeer = try TestPeer()
        let viewerPeer = try TestPeer()
        guard case .publish(let published) = try await publisher.call(.publish(publisherPeer.publishParameters())) else {
            throw WebSocketTestClient.Failure.timedOut("a publish result")
        }
        try publisherPeer.accept(try #require(published.transport))
        guard case .subscribe(let subscribed) = try await viewer.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: viewerPeer.transportOffer)))
        else { throw WebSocketTestClient.Failure.timedOut("a subscribe result") }
        try viewerPeer.accept(try #require(subscribed.transport))
        try publisherPeer.sendMedia(startingAt: 0, count: 5, keyFrameFirst: true)
        let audioSSRC = try #require(subscribed.audio?.ssrc)
        let first = try await onOwnThread { viewerPeer.receiveRTP(count: mutedOnEntry ? 5 : 10) }
        #expect(first.filter { $0.ssrc != audioSSRC }.count == 5)
        #expect(first.filter { $0.ssrc == audioSSRC }.count == (mutedOnEntry ? 0 : 5))
        return (published.stream, publisherPeer, viewerPeer, audioSSRC)
    }

    @Test func aModeratorsMuteStopsTheAudioBeforeTheAnswerAndThePublisherMayUnmute() async throws {
        let harness = try await DaemonHarness.start()
        let (moderator, moderatorConnect) = try await harness.connect(session: "mute", role: .moderator)
        #expect(moderatorConnect.capabilities.forceMute)
        let (publisher, publisherConnect) = try await harness.connect(session: "mute", role: .publisher)
        #expect(!publisherConnect.capabilities.forceMute)
        let (viewer, _) = try await harness.connect(session: "mute", role: .subscriber)
        let (stream, publisherPeer, viewerPeer, audioSSRC) = try await Self.publishAndSubscribe(publisher, viewer)
        _ = try await Self.events(of: [moderator, publisher, viewer], through: "before", from: moderator)

        _ = try await moderator.call(.forceMuteStream(StreamReference(streamId: stream.streamId)))
        // Sent after the answer: none of this audio may reach the viewer; the video after it does.
        try publisherPeer.sendAudioThenMarker(audioFrom: 5, count: 5, videoSequence: 5)
        let whileMuted = try await viewerPeer.audioBeforeMarker(audioSSRC: audioSSRC)
        #expect(whileMuted.marker, "video goes on")
        #expect(whileMuted.audio == 0)

        var muted = stream
        muted.hasAudio = false
        let change = StreamPropertyChange(stream: muted, changedProperty: .hasAudio, oldValue: .flag(true), newValue: .flag(false), reason: .forceMuted)
        let heard = try await Self.events(of: [moderator, publisher, viewer], through: "after-mute", from: moderator)
        #expect(heard[0] == [.streamPropertyChanged(change)])
        #expect(heard[1] == [.streamPropertyChanged(change), .muteForced(MuteForced(streamId: stream.streamId))])
        #expect(heard[2] == [.streamPropertyChanged(change)])

        // Muting a muted stream again changes nothing and tells nobody.
        _ = try await moderator.call(.forceMuteStream(StreamReference(streamId: stream.streamId)))
        #expect(try await Self.events(of: [moderator, publisher, viewer], through: "again", from: moderator) == [[], [], []])

        // The publisher may turn it on again, as on the reference platform; it is its own change.
        _ = try await publisher.call(.updateStream(StreamUpdate(streamId: stream.streamId, publishAudio: true)))
        let unmuted = StreamPropertyChange(stream: stream, changedProperty: .hasAudio, oldValue: .flag(false), newValue: .flag(true))
        #expect(try await Self.events(of: [viewer], through: "unmuted", from: moderator) == [[.streamPropertyChanged(unmuted)]])
        try publisherPeer.sendAudioThenMarker(audioFrom: 10, count: 5, videoSequence: 6)
        let afterUnmute = try await viewerPeer.audioBeforeMarker(audioSSRC: audioSSRC)
        #expect(afterUnmute.marker && afterUnmute.audio == 5)
        try await harness.stop()
    }

    @Test func muteAllSparesTheExcludedMutesOnEntryAndStopsWhenDisabled() async throws {
        let harness = try await DaemonHarness.start()
        let (moderator, _) = try await harness.connect(session: "mute-all", role: .moderator)
        let (muted, _) = try await harness.connect(session: "mute-all", role: .publisher)
        let (spared, _) = try await harness.connect(session: "mute-all", role: .publisher)
        let (viewer, _) = try await harness.connect(session: "mute-all", role: .subscriber)
        let mutedStream = try await Self.publishAndSubscribe(muted, viewer)
        let sparedStream = try await Self.publishAndSubscribe(spared, viewer)
        let everyone = [moderator, muted, spared, viewer]
        _ = try await Self.events(of: everyone, through: "before", from: moderator)

        let excluded = [sparedStream.stream.streamId, "st_notPublishedYet"]
        _ = try await moderator.call(.forceMuteAll(ForceMuteAllParameters(excludedStreamIds: excluded)))
        try mutedStream.publisherPeer.sendAudioThenMarker(audioFrom: 5, count: 5, videoSequence: 5)
        try sparedStream.publisherPeer.sendAudioThenMarker(audioFrom: 5, count: 5, videoSequence: 5)
        let fromMuted = try await mutedStream.viewerPeer.audioBeforeMarker(audioSSRC: mutedStream.audioSSRC)
        let fromSpared = try await sparedStream.viewerPeer.audioBeforeMarker(audioSSRC: sparedStream.audioSSRC)
        #expect(fromMuted.marker && fromMuted.audio == 0)
        #expect(fromSpared.marker && fromSpared.audio == 5)

        let active = ForceMuteState(active: true, excludedStreamIds: excluded)
        var silenced = mutedStream.stream
        silenced.hasAudio = false
        let change = StreamPropertyChange(
            stream: silenced, changedProperty: .hasAudio, oldValue: .flag(true), newValue: .flag(false), reason: .forceMuted)
        let heard = try await Self.events(of: everyone, through: "muted-all", from: moderator)
        #expect(heard[0] == [.forceMuteChanged(active), .streamPropertyChanged(change)])
        #expect(heard[1] == [.forceMuteChanged(active), .streamPropertyChanged(change), .muteForced(MuteForced(streamId: silenced.streamId))])
        #expect(heard[2] == [.forceMuteChanged(active), .streamPropertyChanged(change)])
        #expect(heard[3] == [.forceMuteChanged(active), .streamPropertyChanged(change)])

        // A client that joins now is told in its connect reply.
        let (_, joinerConnect) = try await harness.connect(session: "mute-all", role: .subscriber)
        #expect(joinerConnect.session.forceMute == active)
        let hasAudio = Dictionary(uniqueKeysWithValues: joinerConnect.session.streams.map { ($0.streamId, $0.hasAudio) })
        #expect(hasAudio == [silenced.streamId: false, sparedStream.stream.streamId: true])
        _ = try await Self.events(of: everyone, through: "joined", from: moderator)

        // A stream published now starts muted: its subscribers get none of its audio until its
        // publisher turns it on.
        let (late, _) = try await harness.connect(session: "mute-all", role: .publisher)
        let lateStream = try await Self.publishAndSubscribe(late, viewer, mutedOnEntry: true)
        #expect(!lateStream.stream.hasAudio)
        #expect(try await Self.events(of: [late], through: "on-entry", from: moderator) == [[.muteForced(MuteForced(streamId: lateStream.stream.streamId))]])
        guard case .streamCreated(let created) = try await viewer.event(.streamCreated) else { return }
        #expect(!created.stream.hasAudio)
        _ = try await late.call(.updateStream(StreamUpdate(streamId: lateStream.stream.streamId, publishAudio: true)))
        try lateStream.publisherPeer.sendAudioThenMarker(audioFrom: 5, count: 5, videoSequence: 5)
        let fromLate = try await lateStream.viewerPeer.audioBeforeMarker(audioSSRC: lateStream.audioSSRC)
        #expect(fromLate.marker && fromLate.audio == 5)
        _ = try await Self.events(of: everyone + [late], through: "late-unmuted", from: moderator)

        // Disabled: nobody is unmuted, and a stream published now keeps its audio.
        _ = try await moderator.call(.disableForceMute)
        #expect(try await Self.events(of: everyone, through: "disabled", from: moderator) == Array(repeating: [.forceMuteChanged(.inactive)], count: 4))
        _ = try await moderator.call(.disableForceMute)
        #expect(try await Self.events(of: everyone, through: "disabled-again", from: moderator) == Array(repeating: [], count: 4))
        let (after, afterConnect) = try await harness.connect(session: "mute-all", role: .publisher)
        #expect(afterConnect.session.forceMute == .inactive)
        #expect(afterConnect.session.streams.first { $0.streamId == silenced.streamId }?.hasAudio == false)
        guard case .publish(let unmutedPublish) = try await after.call(.publish(try TestPeer().publishParameters())) else { return }
        #expect(unmutedPublish.stream.hasAudio)
        #expect(try await Self.events(of: [after], through: "after", from: moderator) == [[]])
        try await harness.stop()
    }

    @Test func onlyModeratorsForceMuteAndTheirRequestsAreChecked() async throws {
        let harness = try await DaemonHarness.start()
        let (moderator, _) = try await harness.connect(session: "mute-roles", role: .moderator)
        let (publisher, _) = try await harness.connect(session: "mute-roles", role: .publisher)
        let (viewer, _) = try await harness.connect(session: "mute-roles", role: .subscriber)
        guard case .publish(let published) = try await publisher.call(.publish(try TestPeer().publishParameters())) else { return }
        let streamId = published.stream.streamId
        _ = try await Self.events(of: [publisher], through: "before", from: moderator)

        for (client, role) in [(publisher, "publisher"), (viewer, "subscriber")] {
            #expect(
                try await client.refusal(.forceMuteStream(StreamReference(streamId: streamId)))
                    == SignalingError(.forbidden, "role \(role) cannot force mute; only a moderator can"))
            #expect(try await client.refusal(.forceMuteAll(ForceMuteAllParameters()))?.code == .forbidden)
            #expect(
                try await client.refusal(.disableForceMute)
                    == SignalingError(.forbidden, "role \(role) cannot disable force mute; only a moderator can"))
        }
        #expect(
            try await moderator.refusal(.forceMuteStream(StreamReference(streamId: "st_missing")))
                == SignalingError(.notFound, "no stream st_missing in session mute-roles"))
        let tooMany = (0...1000).map { "st_\($0)" }
        #expect(
            try await moderator.refusal(.forceMuteAll(ForceMuteAllParameters(excludedStreamIds: tooMany)))
                == .invalidParams("params.excludedStreamIds", "lists 1001 streams; the limit is 1000"))
        #expect(
            try await moderator.refusal(.forceMuteAll(ForceMuteAllParameters(excludedStreamIds: ["st_ok", "not an id"])))
                == .invalidParams("params.excludedStreamIds[1]", "is not a stream id: must be 1 to 128 characters of A-Z a-z 0-9 - _"))
        try await moderator.sendText(#"{"v":1,"id":90,"method":"forceMuteAll","params":{"excludedStreamIds":[7]}}"#)
        guard case .error(let id, let error) = try await moderator.message(where: { if case .error = $0 { true } else { false } }) else { return }
        #expect(id == 90 && error == SignalingError(.invalidParams, "params.excludedStreamIds[0]: expected a string"))
        // Refused requests changed nothing: the stream still has its audio, and nobody heard a word.
        #expect(try await Self.events(of: [publisher], through: "refused", from: moderator) == [[]])

        // A stream without audio, or one its publisher muted, is left alone without an error.
        _ = try await publisher.call(.updateStream(StreamUpdate(streamId: streamId, publishAudio: false)))
        _ = try await Self.events(of: [publisher], through: "self-muted", from: moderator)
        _ = try await moderator.call(.forceMuteStream(StreamReference(streamId: streamId)))
        var videoOnly = try TestPeer().publishParameters()
        videoOnly.audio = nil
        guard case .publish(let silent) = try await publisher.call(.publish(videoOnly)) else { return }
        _ = try await moderator.call(.forceMuteStream(StreamReference(streamId: silent.stream.streamId)))
        #expect(try await Self.events(of: [publisher], through: "left-alone", from: moderator) == [[]])
        try await harness.stop()
    }

    /// The Swift client: a moderator's three calls, the publisher's `muteForced` (it stops sending
    /// audio, and may turn it on again), the session's force-mute state from the connect reply and
    /// `forceMuteChanged`, and a stream muted as it is published.
    @Test func theSwiftClientForceMutesAndItsPublisherFollows() async throws {
        let harness = try await DaemonHarness.start()
        let loop = try MediaLoop()
        func session(_ role: Role) async throws -> Session {
            try await Session.connect(
                url: "ws://127.0.0.1:\(harness.port)/v1/ws", sessionId: "client-mute", token: try await harness.token(session: "client-mute", role: role),
                options: SessionOptions(mediaLoop: loop))
        }
        func audioSent(by publisher: Publisher) async -> UInt64 { await publisher.statistics().audio.packetsSent }
        /// Whether `publisher` sends audio: its count grows within two seconds. One that does not
        /// send has its count checked over 300 ms, the audio loop's frames being 20 ms apart.
        func sendsAudio(_ publisher: Publisher, expected: Bool) async throws -> Bool {
            let before = await audioSent(by: publisher)
            for _ in 0..<(expected ? 20 : 3) {
                try await Task.sleep(for: .milliseconds(100))
                if await audioSent(by: publisher) > before { return true }
            }
            return false
        }
        let moderator = try await session(.moderator)
        let alice = try await session(.publisher)
        let publisher = try await alice.publish(PublisherSettings(name: "camera", media: ClientEndToEndTests.media))
        #expect(try await sendsAudio(publisher, expected: true))

        #expect(await failureCode { try await alice.forceMuteStream(streamId: publisher.streamId) } == .forbidden)
        try await moderator.forceMuteStream(streamId: publisher.streamId)
        #expect(await next(publisher.events) { $0 == .muteForced } != nil)
        #expect(await next(alice.events) { $0 == .muteForced(streamId: publisher.streamId) } != nil)
        #expect(alice.streams.first { $0.streamId == publisher.streamId }?.hasAudio == false)
        #expect(try await !sendsAudio(publisher, expected: false))
        try await publisher.setPublishAudio(true)
        #expect(try await sendsAudio(publisher, expected: true))

        try await moderator.forceMuteAll(excluding: [publisher.streamId])
        let active = ForceMuteState(active: true, excludedStreamIds: [publisher.streamId])
        #expect(await next(alice.events) { $0 == .forceMuteChanged(active) } != nil)
        #expect(alice.forceMute == active)
        #expect(try await session(.subscriber).forceMute == active)
        let second = try await alice.publish(PublisherSettings(name: "second", media: ClientEndToEndTests.media))
        #expect(!second.stream.hasAudio)
        #expect(await next(alice.events) { $0 == .muteForced(streamId: second.streamId) } != nil)
        #expect(try await !sendsAudio(second, expected: false))

        try await moderator.disableForceMute()
        #expect(await next(alice.events) { $0 == .forceMuteChanged(.inactive) } != nil)
        #expect(alice.forceMute == .inactive)
        await alice.disconnect()
        await moderator.disconnect()
        await loop.stop()
        try await harness.stop()
    }

    private func failureCode(_ body: () async throws -> Void) async -> SignalingErrorCode? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? SessionError)?.refusalCode
        }
    }

    @Test func theBackendMutesOneStreamOrEveryStreamOverREST() async throws {
        let harness = try await DaemonHarness.start()
        let rest = try await harness.restToken()
        let (publisher, _) = try await harness.connect(session: "rest-mute", role: .publisher)
        let (viewer, _) = try await harness.connect(session: "rest-mute", role: .subscriber)
        let stream = try await Self.publishAndSubscribe(publisher, viewer)
        _ = try await Self.events(of: [publisher, viewer], through: "before", from: publisher)
        let streamPath = "/v1/sessions/rest-mute/streams/\(stream.stream.streamId)/mute"

        #expect(try await harness.http("POST", streamPath, token: nil).status == 401)
        #expect(try await harness.http("POST", streamPath, token: rest).status == 204)
        try stream.publisherPeer.sendAudioThenMarker(audioFrom: 5, count: 5, videoSequence: 5)
        let whileMuted = try await stream.viewerPeer.audioBeforeMarker(audioSSRC: stream.audioSSRC)
        #expect(whileMuted.marker && whileMuted.audio == 0)
        var silenced = stream.stream
        silenced.hasAudio = false
        let change = StreamPropertyChange(stream: silenced, changedProperty: .hasAudio, oldValue: .flag(true), newValue: .flag(false), reason: .forceMuted)
        let heard = try await Self.events(of: [publisher, viewer], through: "muted", from: publisher)
        #expect(heard == [[.streamPropertyChanged(change), .muteForced(MuteForced(streamId: silenced.streamId))], [.streamPropertyChanged(change)]])

        let missingStream = try await harness.http("POST", "/v1/sessions/rest-mute/streams/st_missing/mute", token: rest)
        #expect(missingStream.status == 404)
        #expect(try await harness.http("POST", "/v1/sessions/no-such-session/streams/st_x/mute", token: rest).status == 404)
        #expect(try await harness.http("POST", "/v1/sessions/no-such-session/mute", token: rest, body: #"{"active":true}"#).status == 404)

        for (body, message) in [
            ("{}", "body.active: required field is missing"),
            (#"{"active":"yes"}"#, "body.active: expected a boolean"),
            (#"{"active":true,"excludedStreamIds":[1]}"#, "body.excludedStreamIds[0]: expected a string"),
            (#"{"active":true,"excludedStreamIds":["has space"]}"#, "body.excludedStreamIds[0]: is not a stream id: must be 1 to 128 characters of A-Z a-z 0-9 - _"),
            (#"{"active":false,"excludedStreamIds":[]}"#, "body.excludedStreamIds: only goes with active true"),
            ("{", "body: not valid JSON"),
        ] {
            let refused = try await harness.http("POST", "/v1/sessions/rest-mute/mute", token: rest, body: body)
            #expect(refused.status == 400, "\(body)")
            let error = try JSONDecoder().decode(SignalingError.self, from: refused.body)
            #expect(error == SignalingError(.invalidParams, message), "\(body)")
        }

        let excluded = #"{"active":true,"excludedStreamIds":["st_spared"]}"#
        #expect(try await harness.http("POST", "/v1/sessions/rest-mute/mute", token: rest, body: excluded).status == 204)
        let active = ForceMuteState(active: true, excludedStreamIds: ["st_spared"])
        #expect(try await Self.events(of: [publisher, viewer], through: "all", from: publisher) == [[.forceMuteChanged(active)], [.forceMuteChanged(active)]])
        let snapshot = try await harness.http("GET", "/v1/sessions/rest-mute", token: rest)
        #expect(try JSONDecoder().decode(SessionSnapshot.self, from: snapshot.body).forceMute == active)
        #expect(try await harness.http("POST", "/v1/sessions/rest-mute/mute", token: rest, body: #"{"active":false}"#).status == 204)
        #expect(
            try await Self.events(of: [publisher, viewer], through: "off", from: publisher)
                == [[.forceMuteChanged(.inactive)], [.forceMuteChanged(.inactive)]])
        try await harness.stop()
    }
}
