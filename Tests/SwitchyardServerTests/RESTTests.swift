import Foundation
import SignalingProtocol
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The REST API and the health and metrics endpoints, over real HTTP.
@Suite(.serialized) struct RESTTests {
    private func call(
        _ harness: DaemonHarness, _ method: String, _ path: String, token: String?, body: String? = nil
    ) async throws -> (status: Int, body: Data) {
        try await harness.http(method, path, token: token, body: body)
    }

    private func errorMessage(_ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String
    }

    private func errorCode(_ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["code"] as? String
    }

    @Test func theDaemonServesItsBrowserClientAndDevelopmentTokensOnlyOnDevelopmentCredentials() async throws {
        let harness = try await DaemonHarness.start()
        let page = try await call(harness, "GET", "/", token: nil)
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("demo.js"))
        let library = try await call(harness, "GET", "/switchyard.js", token: nil)
        #expect(library.status == 200)
        #expect(String(decoding: library.body, as: UTF8.self).contains("export class Session"))
        let minted = try await call(harness, "GET", "/v1/dev/token?sessionId=lobby&role=subscriber&data=name%3DAda", token: nil)
        #expect(minted.status == 200)
        let token = try #require((try JSONSerialization.jsonObject(with: minted.body) as? [String: String])?["token"])
        let grant = try await harness.daemon.signaling.tokens.verifyClientToken(token, now: Date())
        #expect(grant.sessionId == "lobby")
        #expect(grant.role == .subscriber)
        let badRole = try await call(harness, "GET", "/v1/dev/token?role=admin", token: nil)
        #expect(badRole.status == 400)
        #expect(String(decoding: badRole.body, as: UTF8.self).contains("query.role: \\\"admin\\\" is not one of"))
        try await harness.stop()

        let production = try await DaemonHarness.start {
            $0.apiKey = "production-key"
            $0.apiSecret = "a-production-secret-of-at-least-32-bytes"
        }
        #expect(try await call(production, "GET", "/v1/dev/token?sessionId=lobby", token: nil).status == 404)
        #expect(try await call(production, "GET", "/", token: nil).status == 200)
        try await production.stop()
    }

    @Test func theBackendCreatesInspectsSignalsAndModerates() async throws {
        let harness = try await DaemonHarness.start()
        let rest = try await harness.restToken()

        let created = try await call(harness, "POST", "/v1/sessions", token: rest, body: #"{"sessionId":"town-hall"}"#)
        #expect(created.status == 201)
        #expect(String(decoding: created.body, as: UTF8.self) == #"{"sessionId":"town-hall"}"#)
        let generated = try await call(harness, "POST", "/v1/sessions", token: rest)
        #expect(generated.status == 201)

        let (alice, aliceConnect) = try await harness.connect(session: "town-hall", role: .publisher, data: "alice")
        let snapshot = try await call(harness, "GET", "/v1/sessions/town-hall", token: rest)
        #expect(snapshot.status == 200)
        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: snapshot.body)
        #expect(decoded.connectionCount == 1 && decoded.connections.first?.data == "alice")

        #expect(try await call(harness, "POST", "/v1/sessions/town-hall/signal", token: rest, body: #"{"type":"notice","data":"hi"}"#).status == 204)
        guard case .signal(let delivery) = try await alice.event(.signal) else { return }
        #expect(delivery == SignalDelivery(from: nil, type: "notice", data: "hi"))

        let connectionPath = "/v1/sessions/town-hall/connections/\(aliceConnect.connection.connectionId)"
        #expect(try await call(harness, "POST", connectionPath + "/signal", token: rest, body: #"{"type":"dm","data":"you"}"#).status == 204)
        _ = try await alice.event(.signal)
        #expect(try await call(harness, "DELETE", connectionPath, token: rest).status == 204)
        guard case .sessionDisconnected(let disconnection) = try await alice.event(.sessionDisconnected) else { return }
        #expect(disconnection == SessionDisconnection(reason: .forceDisconnected, message: "disconnected by the application"))
        #expect(try await call(harness, "DELETE", connectionPath, token: rest).status == 404)
        #expect(try await call(harness, "GET", "/v1/sessions/town-hall", token: rest).status == 200)
        try await harness.stop()
    }

    /// An app backend that resends a signal (its answer timed out) under the same `signalId` has it
    /// delivered once, both answered 204; the ids are the backend's own, apart from the clients'.
    @Test func aRESTSignalResentUnderItsSignalIdIsDeliveredOnce() async throws {
        let harness = try await DaemonHarness.start { $0.signaling.reconnection.grace = .seconds(30) }
        let rest = try await harness.restToken()
        let (alice, _) = try await harness.connect(session: "retried", role: .publisher)
        let body = #"{"type":"notice","data":"once","signalId":"rest-sig-1"}"#
        #expect(try await call(harness, "POST", "/v1/sessions/retried/signal", token: rest, body: body).status == 204)
        #expect(try await call(harness, "POST", "/v1/sessions/retried/signal", token: rest, body: body).status == 204)
        // A client may use the same id for a signal of its own.
        #expect(try await alice.call(.signal(SignalParameters(type: "notice", data: "mine", signalId: "rest-sig-1"))) == .empty(.signal))
        // Signals reach a connection in order: whatever comes after "once" shows whether it came twice.
        var received: [String] = []
        for _ in 0..<2 {
            guard case .signal(let delivery) = try await alice.event(.signal) else { return }
            received.append(delivery.data)
        }
        #expect(received == ["once", "mine"])
        let badId = try await call(harness, "POST", "/v1/sessions/retried/signal", token: rest, body: #"{"type":"a","data":"b","signalId":"no spaces"}"#)
        #expect(badId.status == 400)
        #expect(errorMessage(badId.body)?.hasPrefix("body.signalId: contains") == true, "\(errorMessage(badId.body) ?? "")")
        try await harness.stop()
    }

    @Test func requestsWithoutAValidRESTTokenAreRefused() async throws {
        let harness = try await DaemonHarness.start()
        let missing = try await call(harness, "GET", "/v1/sessions/x", token: nil)
        #expect(missing.status == 401 && errorCode(missing.body) == "invalidToken")
        let clientToken = try await harness.token(session: "x", role: .moderator)
        let wrongKind = try await call(harness, "GET", "/v1/sessions/x", token: clientToken)
        #expect(wrongKind.status == 401)
        #expect(String(decoding: wrongKind.body, as: UTF8.self).contains("not a REST (ist project) token"))
        let expired = try await harness.daemon.signaling.tokens.mintRESTToken(lifetime: 60, now: Date().addingTimeInterval(-600))
        let expiredReply = try await call(harness, "GET", "/v1/sessions/x", token: expired)
        #expect(expiredReply.status == 401 && errorCode(expiredReply.body) == "tokenExpired")
        try await harness.stop()
    }

    @Test func badBodiesAndUnknownIdsAreNamed() async throws {
        let harness = try await DaemonHarness.start()
        let rest = try await harness.restToken()
        let notJSON = try await call(harness, "POST", "/v1/sessions", token: rest, body: "{oops")
        #expect(notJSON.status == 400 && errorCode(notJSON.body) == "invalidParams")
        #expect(errorMessage(notJSON.body) == "body: not valid JSON")
        let badId = try await call(harness, "POST", "/v1/sessions", token: rest, body: #"{"sessionId":"has spaces"}"#)
        #expect(badId.status == 400)
        #expect(errorMessage(badId.body) == "body.sessionId: must be 1 to 128 characters of A-Z a-z 0-9 - _")
        let missingField = try await call(harness, "POST", "/v1/sessions/x/signal", token: rest, body: #"{"data":"no type"}"#)
        #expect(missingField.status == 400)
        #expect(errorMessage(missingField.body) == "body.type: required field is missing")
        #expect(String(decoding: missingField.body, as: UTF8.self).contains("type: required field is missing"))
        let twice = try await call(harness, "POST", "/v1/sessions/x/signal", token: rest, body: #"{"type":"a","data":"b","type":"c"}"#)
        #expect(twice.status == 400)
        #expect(errorMessage(twice.body) == #"body: key "type" appears twice in one object"#)
        let brokenUnread = try await call(harness, "POST", "/v1/sessions/x/signal", token: rest, body: #"{"type":"a","data":"b","note":"\q"}"#)
        #expect(errorMessage(brokenUnread.body) == "body: not valid JSON")
        #expect(try await call(harness, "GET", "/v1/sessions/never-made", token: rest).status == 404)
        #expect(try await call(harness, "DELETE", "/v1/sessions/never-made/streams/st_1", token: rest).status == 404)
        let tooLong = try await call(harness, "POST", "/v1/sessions", token: rest, body: String(repeating: " ", count: 70_000))
        #expect(tooLong.status == 400)
        try await harness.stop()
    }

    @Test func healthAndMetricsNeedNoToken() async throws {
        let harness = try await DaemonHarness.start()
        let (_, _) = try await harness.connect(session: "metrics", role: .publisher)
        let health = try await call(harness, "GET", "/health", token: nil)
        #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#)
        let metrics = String(decoding: try await call(harness, "GET", "/metrics", token: nil).body, as: UTF8.self)
        #expect(metrics.contains("switchyard_connections 1"))
        #expect(metrics.contains("switchyard_sessions 1"))
        #expect(metrics.contains("switchyard_websockets 1"))
        #expect(metrics.contains("switchyard_http_connections ") && !metrics.contains("switchyard_http_connections 0"))
        #expect(metrics.contains("switchyard_media_packets_received_total"))
        #expect(metrics.contains(#"switchyard_audio_fallback_events_total{kind="videoDisabled"} 0"#))
        #expect(metrics.contains("switchyard_build_info{srtp="))
        // The harness runs one worker; loopback takes segmented sends.
        #expect(metrics.contains("switchyard_media_workers 1"))
        #expect(metrics.contains("switchyard_media_workers_segmenting_sends 1"))
        // Each worker's load and relaying, labelled with its index.
        #expect(metrics.contains(#"switchyard_media_worker_consumers{worker="0"} 0"#))
        #expect(metrics.contains(#"switchyard_media_worker_relay_messages_total{worker="0",direction="out"} 0"#))
        #expect(metrics.contains(#"switchyard_media_worker_busy_seconds_total{worker="0"}"#))
        try await harness.stop()
    }
}
