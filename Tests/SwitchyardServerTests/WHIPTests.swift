import Foundation
import SignalingProtocol
import Testing

/// WHIP over real HTTP: a POSTed offer becomes a stream the session sees, DELETE ends it, and every
/// refusal has its status and a message naming what was wrong.
@Suite(.serialized) struct WHIPTests {
    private func errorMessage(_ body: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String) ?? String(decoding: body, as: UTF8.self)
    }

    @Test func anOfferPublishesAStreamTheSessionSeesAndDeleteEndsIt() async throws {
        let daemon = try await DaemonHarness.start()
        #expect(try await daemon.http("POST", "/v1/sessions", token: try await daemon.restToken(), body: #"{"sessionId":"studio"}"#).status == 201)
        let (watcher, _) = try await daemon.connect(session: "studio", role: .subscriber)
        let token = try await daemon.token(session: "studio", role: .publisher, data: "OBS")
        let created = try await daemon.http(
            "POST", "/v1/whip/studio?name=Stage%20camera", token: token, body: WebRTCSignalingTests.publisherOffer(),
            contentType: "application/sdp")
        #expect(created.status == 201, "\(errorMessage(created.body))")
        #expect(created.headers["content-type"] == "application/sdp")
        #expect(created.headers["access-control-allow-origin"] == "*")
        let location = try #require(created.headers["location"])
        #expect(location.hasPrefix("/v1/whip/studio/st_"))
        #expect(created.headers["etag"] != nil)
        let answer = String(decoding: created.body, as: UTF8.self)
        #expect(answer.hasPrefix("v=0\r\n"))
        #expect(answer.contains("a=recvonly"))
        guard case .streamCreated(let stream) = try await watcher.event(.streamCreated) else { return }
        #expect(stream.stream.name == "Stage camera")
        #expect(stream.stream.hasAudio && stream.stream.hasVideo)
        #expect(location == "/v1/whip/studio/\(stream.stream.streamId)")
        #expect(stream.stream.connection.data == "OBS")

        #expect(try await daemon.http("DELETE", location, token: try await daemon.token(session: "studio", role: .subscriber), body: nil, contentType: nil).status == 403)
        #expect(try await daemon.http("DELETE", location, token: token, body: nil, contentType: nil).status == 200)
        guard case .streamDestroyed(let destroyed) = try await watcher.event(.streamDestroyed) else { return }
        #expect(destroyed.reason == .clientDisconnected)
        guard case .connectionDestroyed(let left) = try await watcher.event(.connectionDestroyed) else { return }
        #expect(left.connection.connectionId == stream.stream.connection.connectionId)
        #expect(try await daemon.http("DELETE", location, token: token, body: nil, contentType: nil).status == 404)
        await watcher.close()
        try await daemon.stop()
    }

    @Test func aModeratorsUnpublishTakesTheWHIPPublisherOutOfTheSession() async throws {
        let daemon = try await DaemonHarness.start()
        let rest = try await daemon.restToken()
        #expect(try await daemon.http("POST", "/v1/sessions", token: rest, body: #"{"sessionId":"moderated"}"#).status == 201)
        let (watcher, _) = try await daemon.connect(session: "moderated", role: .subscriber)
        let token = try await daemon.token(session: "moderated", role: .publisher)
        let created = try await daemon.http(
            "POST", "/v1/whip/moderated", token: token, body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        let location = try #require(created.headers["location"])
        let streamId = String(location.split(separator: "/").last!)
        #expect(try await daemon.http("DELETE", "/v1/sessions/moderated/streams/\(streamId)", token: rest).status == 204)
        guard case .connectionDestroyed(let left) = try await watcher.event(.connectionDestroyed) else { return }
        #expect(left.reason == .forceDisconnected)
        #expect(await daemon.daemon.signaling.directory.snapshot(of: "moderated")?.connections.count == 1)
        await watcher.close()
        try await daemon.stop()
    }

    @Test func aPublisherWhoseMediaNeverConnectsLeavesWithItsStream() async throws {
        let daemon = try await DaemonHarness.start { $0.media.webRTCConnectTimeout = .milliseconds(500) }
        #expect(try await daemon.http("POST", "/v1/sessions", token: try await daemon.restToken(), body: #"{"sessionId":"silent"}"#).status == 201)
        let (watcher, _) = try await daemon.connect(session: "silent", role: .subscriber)
        let created = try await daemon.http(
            "POST", "/v1/whip/silent", token: try await daemon.token(session: "silent", role: .publisher),
            body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        // On a loaded machine the 500 ms can pass before the answer: then the POST itself is refused.
        if created.status == 201 {
            guard case .streamDestroyed(let destroyed) = try await watcher.event(.streamDestroyed) else { return }
            #expect(destroyed.reason == .mediaFailed)
            guard case .connectionDestroyed(let left) = try await watcher.event(.connectionDestroyed) else { return }
            #expect(left.reason == .networkDisconnected)
        } else {
            #expect(created.status == 502, "\(errorMessage(created.body))")
            #expect(errorMessage(created.body).contains("did not connect within"))
        }
        #expect(await daemon.daemon.signaling.directory.snapshot(of: "silent")?.connections.count == 1)
        await watcher.close()
        try await daemon.stop()
    }

    /// A media port range used up is a capacity limit, refused alike over WHIP (429) and `publish`
    /// (`limitReached`), with the same message.
    @Test func usedUpMediaPortsAreALimitOverWHIPAsOverPublish() async throws {
        let daemon = try await DaemonHarness.start { $0.media.portRange = $0.media.portRange.lowerBound...$0.media.portRange.lowerBound }
        let port = daemon.configuration.media.portRange.lowerBound
        #expect(try await daemon.http("POST", "/v1/sessions", token: try await daemon.restToken(), body: #"{"sessionId":"ports"}"#).status == 201)
        let token = try await daemon.token(session: "ports", role: .publisher)
        let taken = try await daemon.http("POST", "/v1/whip/ports", token: token, body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        #expect(taken.status == 201, "\(errorMessage(taken.body))")
        let refused = try await daemon.http("POST", "/v1/whip/ports", token: token, body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        #expect(refused.status == 429)
        #expect((try? JSONSerialization.jsonObject(with: refused.body) as? [String: Any])?["code"] as? String == "limitReached")
        #expect(errorMessage(refused.body) == "no free media port in \(port)-\(port)")
        let (client, _) = try await daemon.connect(session: "ports", role: .publisher)
        let overWebSocket = try await client.refusal(.publish(PublishParameters(sdpOffer: WebRTCSignalingTests.publisherOffer())))
        #expect(overWebSocket == SignalingError(.limitReached, "no free media port in \(port)-\(port)"))
        await client.close()
        try await daemon.stop()
    }

    @Test func everyRefusalHasItsStatusAndNamesWhatWasWrong() async throws {
        let daemon = try await DaemonHarness.start { $0.signaling.limits.connectionsPerSession = 2 }
        #expect(try await daemon.http("POST", "/v1/sessions", token: try await daemon.restToken(), body: #"{"sessionId":"refusals"}"#).status == 201)
        let publisher = try await daemon.token(session: "refusals", role: .publisher)
        let offer = WebRTCSignalingTests.publisherOffer()
        func post(_ path: String = "/v1/whip/refusals", token: String?, body: String? = offer, type: String? = "application/sdp") async throws
            -> (status: Int, headers: [String: String], body: Data)
        {
            try await daemon.http("POST", path, token: token, body: body, contentType: type)
        }

        let anonymous = try await post(token: nil)
        #expect(anonymous.status == 401)
        #expect(errorMessage(anonymous.body).contains("Authorization: Bearer"))
        #expect(anonymous.headers["access-control-allow-origin"] == "*")
        #expect(try await post(token: "not.a.token").status == 401)
        let viewer = try await post(token: try await daemon.token(session: "refusals", role: .subscriber))
        #expect(viewer.status == 403)
        #expect(errorMessage(viewer.body) == "role subscriber cannot publish")
        let elsewhere = try await post(token: try await daemon.token(session: "other", role: .publisher))
        #expect(elsewhere.status == 403)
        #expect(errorMessage(elsewhere.body) == "the token is for session other, not refusals")
        let unknown = try await post("/v1/whip/nowhere", token: try await daemon.token(session: "nowhere", role: .publisher))
        #expect(unknown.status == 404)
        #expect(errorMessage(unknown.body) == "no session nowhere")
        let json = try await post(token: publisher, type: "application/json")
        #expect(json.status == 415)
        #expect(errorMessage(json.body) == "Content-Type: must be application/sdp, not \"application/json\"")
        let garbage = try await post(token: publisher, body: "v=0\r\nhello\r\n")
        #expect(garbage.status == 400)
        #expect(errorMessage(garbage.body).hasPrefix("body: line 2"), "\(errorMessage(garbage.body))")
        let h264 = try await post(token: publisher, body: WebRTCSignalingTests.publisherOffer(videoCodecs: [(100, "H264")]))
        #expect(h264.status == 422)
        #expect(errorMessage(h264.body).hasPrefix("body: line 18 (m=video 9 UDP/TLS/RTP/SAVPF 100): no codec Switchyard forwards"), "\(errorMessage(h264.body))")
        #expect(errorMessage(h264.body).hasSuffix("offered: H264"), "\(errorMessage(h264.body))")
        let tooLarge = try await post(token: publisher, body: offer + String(repeating: "a=x\r\n", count: 20_000))
        #expect(tooLarge.status == 413)

        let patched = try await daemon.http("PATCH", "/v1/whip/refusals/st_x", token: publisher, body: "a=end-of-candidates\r\n", contentType: "application/trickle-ice-sdpfrag")
        #expect(patched.status == 405)
        #expect(patched.headers["allow"] == "DELETE, OPTIONS")
        let options = try await daemon.http("OPTIONS", "/v1/whip/refusals", token: nil, body: nil, contentType: nil)
        #expect(options.status == 204)
        #expect(options.headers["accept-post"] == "application/sdp")
        #expect(options.headers["access-control-allow-methods"]?.contains("POST") == true)
        #expect(try await daemon.http("DELETE", "/v1/whip/refusals/st_none", token: publisher, body: nil, contentType: nil).status == 404)

        // Refusals left nobody behind: two publishers fit the limit of two connections, a third does not.
        #expect(try await post(token: publisher).status == 201)
        #expect(try await post(token: publisher).status == 201)
        let full = try await post(token: publisher)
        #expect(full.status == 429)
        #expect(errorMessage(full.body).contains("already has 2 connections"))
        #expect(await daemon.daemon.signaling.directory.snapshot(of: "refusals")?.streams.count == 2)
        try await daemon.stop()
    }
}

/// WHEP over real HTTP: the router answers a player's offer in the player's payload types, the
/// session sees the player come and go, and every refusal has its status.
@Suite(.serialized) struct WHEPTests {
    static func playerOffer(video: Bool = true, audio: Bool = true, videoCodec: String = "VP8", videoFormatParameters: String? = nil) -> String {
        let fingerprint = (0..<32).map { _ in "CD" }.joined(separator: ":")
        let mids = (audio ? ["a"] : []) + (video ? ["v"] : [])
        var lines = ["v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE \(mids.joined(separator: " "))"]
        let transport = [
            "c=IN IP4 0.0.0.0", "a=ice-ufrag:play", "a=ice-pwd:0123456789abcdefghijkl", "a=fingerprint:sha-256 \(fingerprint)",
            "a=setup:actpass", "a=rtcp-mux", "a=recvonly",
        ]
        if audio {
            lines += ["m=audio 9 UDP/TLS/RTP/SAVPF 109"] + transport + [
                "a=mid:a", "a=rtpmap:109 opus/48000/2", "a=extmap:5 \(transportWideURI)", "a=rtcp-fb:109 transport-cc",
            ]
        }
        if video {
            lines += ["m=video 9 UDP/TLS/RTP/SAVPF 120 121"] + transport + [
                "a=mid:v", "a=rtpmap:120 \(videoCodec)/90000", "a=rtpmap:121 rtx/90000", "a=fmtp:121 apt=120",
            ] + (videoFormatParameters.map { ["a=fmtp:120 \($0)"] } ?? []) + [
                "a=rtcp-fb:120 nack", "a=rtcp-fb:120 nack pli", "a=rtcp-fb:120 transport-cc", "a=extmap:5 \(transportWideURI)",
            ]
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static let transportWideURI = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    private func errorMessage(_ body: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String) ?? String(decoding: body, as: UTF8.self)
    }

    @Test func theRouterAnswersInThePlayersPayloadTypesAndDeleteEndsThePlayer() async throws {
        let daemon = try await DaemonHarness.start()
        let (publisher, _) = try await daemon.connect(session: "theatre", role: .publisher)
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(sdpOffer: WebRTCSignalingTests.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let streamId = published.stream.streamId
        let token = try await daemon.token(session: "theatre", role: .subscriber, data: "player")
        let created = try await daemon.http(
            "POST", "/v1/whep/theatre/\(streamId)", token: token, body: Self.playerOffer(), contentType: "application/sdp")
        #expect(created.status == 201, "\(errorMessage(created.body))")
        #expect(created.headers["content-type"] == "application/sdp")
        #expect(created.headers["access-control-allow-origin"] == "*")
        let location = try #require(created.headers["location"])
        #expect(location.hasPrefix("/v1/whep/theatre/\(streamId)/sb_"))
        let answer = String(decoding: created.body, as: UTF8.self)
        for line in [
            "a=group:BUNDLE a v", "a=rtpmap:109 opus/48000/2", "a=mid:a", "a=rtpmap:120 VP8/90000", "a=rtpmap:121 rtx/90000", "a=fmtp:121 apt=120",
            "a=rtcp-fb:120 nack pli", "a=mid:v", "a=sendonly", "a=setup:passive", "a=extmap:5 \(Self.transportWideURI)", "a=ice-lite",
        ] {
            #expect(answer.contains(line + "\r\n"), "the answer lacks \(line): \(answer)")
        }
        #expect(answer.contains(" UDP/TLS/RTP/SAVPF 109\r\n") && answer.contains(" UDP/TLS/RTP/SAVPF 120 121\r\n"))
        #expect(!answer.contains("ccm fir"), "feedback the player did not offer is not answered")
        guard case .connectionCreated(let joined) = try await publisher.event(.connectionCreated) else { return }
        #expect(joined.connection.data == "player")
        let subscriberId = String(location.split(separator: "/").last!)
        let statistics = try await daemon.http("GET", "/v1/sessions/theatre/subscribers/\(subscriberId)/stats", token: try await daemon.restToken())
        #expect(statistics.status == 200)

        #expect(try await daemon.http("DELETE", location, token: token, body: nil, contentType: nil).status == 200)
        guard case .connectionDestroyed(let left) = try await publisher.event(.connectionDestroyed) else { return }
        #expect(left.connection.connectionId == joined.connection.connectionId)
        #expect(try await daemon.http("DELETE", location, token: token, body: nil, contentType: nil).status == 404)
        await publisher.close()
        try await daemon.stop()
    }

    @Test func thePlayerLeavesWhenTheStreamEnds() async throws {
        let daemon = try await DaemonHarness.start()
        let (publisher, _) = try await daemon.connect(session: "ending", role: .publisher)
        let (watcher, _) = try await daemon.connect(session: "ending", role: .subscriber)
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(sdpOffer: WebRTCSignalingTests.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let created = try await daemon.http(
            "POST", "/v1/whep/ending/\(published.stream.streamId)", token: try await daemon.token(session: "ending", role: .subscriber),
            body: Self.playerOffer(audio: false), contentType: "application/sdp")
        #expect(created.status == 201, "\(errorMessage(created.body))")
        #expect(!String(decoding: created.body, as: UTF8.self).contains("m=audio"))
        guard case .connectionCreated(let player) = try await watcher.event(.connectionCreated) else { return }
        _ = try await publisher.call(.unpublish(StreamReference(streamId: published.stream.streamId)))
        guard case .connectionDestroyed(let left) = try await watcher.event(.connectionDestroyed) else { return }
        #expect(left.connection.connectionId == player.connection.connectionId)
        await publisher.close()
        await watcher.close()
        try await daemon.stop()
    }

    @Test func aPlayerWhoseMediaNeverConnectsLeaves() async throws {
        // The publisher's media never connects either: its stream goes after the same 2 s, which also
        // ends the player; either way the player's connection must go and leave nothing behind.
        let daemon = try await DaemonHarness.start { $0.media.webRTCConnectTimeout = .seconds(2) }
        let (publisher, _) = try await daemon.connect(session: "mute", role: .publisher)
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(sdpOffer: WebRTCSignalingTests.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let created = try await daemon.http(
            "POST", "/v1/whep/mute/\(published.stream.streamId)", token: try await daemon.token(session: "mute", role: .subscriber),
            body: Self.playerOffer(), contentType: "application/sdp")
        if created.status == 201 {
            guard case .connectionCreated = try await publisher.event(.connectionCreated) else { return }
            guard case .connectionDestroyed(let left) = try await publisher.event(.connectionDestroyed) else { return }
            #expect(left.reason == .clientDisconnected)
        } else {
            // Refused when a media connection failed before the answer (a loaded machine).
            #expect(created.status == 502 || created.status == 404, "\(errorMessage(created.body))")
        }
        #expect(await daemon.daemon.signaling.directory.snapshot(of: "mute")?.connections.count == 1)
        await publisher.close()
        try await daemon.stop()
    }

    @Test func everyRefusalHasItsStatusAndNamesWhatWasWrong() async throws {
        let daemon = try await DaemonHarness.start()
        let (publisher, _) = try await daemon.connect(session: "refused", role: .publisher)
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(sdpOffer: WebRTCSignalingTests.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let path = "/v1/whep/refused/\(published.stream.streamId)"
        let viewer = try await daemon.token(session: "refused", role: .subscriber)
        func post(_ path: String, token: String?, body: String = WHEPTests.playerOffer()) async throws -> (status: Int, headers: [String: String], body: Data) {
            try await daemon.http("POST", path, token: token, body: body, contentType: "application/sdp")
        }
        #expect(try await post(path, token: nil).status == 401)
        let unknownStream = try await post("/v1/whep/refused/st_none", token: viewer)
        #expect(unknownStream.status == 404)
        #expect(errorMessage(unknownStream.body) == "no stream st_none in session refused")
        let h264 = try await post(path, token: viewer, body: Self.playerOffer(videoCodec: "H264"))
        #expect(h264.status == 422)
        #expect(errorMessage(h264.body).contains("no codec this stream can be sent in (VP8); offered: H264"), "\(errorMessage(h264.body))")
        let sending = try await post(path, token: viewer, body: Self.playerOffer().replacingOccurrences(of: "a=recvonly", with: "a=sendonly"))
        #expect(sending.status == 422)
        #expect(errorMessage(sending.body).contains("no audio or video m-section that receives"), "\(errorMessage(sending.body))")
        let passive = try await post(path, token: viewer, body: Self.playerOffer().replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive"))
        #expect(passive.status == 422)
        #expect(errorMessage(passive.body).contains("a=setup:passive"), "\(errorMessage(passive.body))")
        let patched = try await daemon.http("PATCH", "\(path)/sb_x", token: viewer, body: "a=end-of-candidates\r\n", contentType: "application/trickle-ice-sdpfrag")
        #expect(patched.status == 405)
        let options = try await daemon.http("OPTIONS", path, token: nil, body: nil, contentType: nil)
        #expect(options.headers["accept-post"] == "application/sdp")
        #expect(try await daemon.http("DELETE", "\(path)/sb_none", token: viewer, body: nil, contentType: nil).status == 404)
        // Nothing was left behind by the refusals: the publisher is alone.
        #expect(await daemon.daemon.signaling.directory.snapshot(of: "refused")?.connections.count == 1)
        await publisher.close()
        try await daemon.stop()
    }
}
