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
        #expect(errorMessage(json.body).contains("Content-Type is \"application/json\""))
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
