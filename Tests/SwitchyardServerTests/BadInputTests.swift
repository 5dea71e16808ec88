import Foundation
import SignalingProtocol
import Testing

/// Bad input over a real WebSocket: each gets a clear error, and a bystander in the same session
/// keeps working.
@Suite(.serialized) struct BadInputTests {
    /// Checks that a bystander still gets answers and events.
    private func bystanderStillWorks(_ bystander: WebSocketTestClient) async throws {
        _ = try await bystander.call(.signal(SignalParameters(type: "ping", data: "still here")))
        guard case .signal(let delivery) = try await bystander.event(.signal) else { return }
        #expect(delivery.data == "still here")
    }

    @Test func malformedMessagesGetErrorsNamingTheProblem() async throws {
        let harness = try await DaemonHarness.start()
        let (bystander, _) = try await harness.connect(session: "bad", role: .publisher)
        let (client, _) = try await harness.connect(session: "bad", role: .publisher)

        try await client.sendText("{ this is not json")
        guard case .error(nil, let notJSON) = try await client.message(where: { if case .error = $0 { true } else { false } }) else { return }
        #expect(notJSON.code == .malformedMessage)

        try await client.sendText(#"{"v":1,"id":77,"method":"fly","params":{}}"#)
        guard case .error(77, let unknown) = try await client.message(where: { if case .error(77, _) = $0 { true } else { false } }) else { return }
        #expect(unknown.code == .unknownMethod)

        try await client.sendText(#"{"v":1,"id":78,"method":"signal","params":{"type":5,"data":"x"}}"#)
        guard case .error(78, let wrongType) = try await client.message(where: { if case .error(78, _) = $0 { true } else { false } }) else { return }
        #expect(wrongType == SignalingError(.invalidParams, "params.type: expected a string"))

        try await client.sendBinary([1, 2, 3])
        guard case .error(nil, let binary) = try await client.message(where: { if case .error = $0 { true } else { false } }) else { return }
        #expect(binary.code == .malformedMessage)

        #expect(try await client.refusal(.connect(ConnectParameters(sessionId: "bad", token: "x")))?.code == .alreadyConnected)
        try await bystanderStillWorks(bystander)
        try await harness.stop()
    }

    @Test func badTokensAreRefusedAndTheSocketStaysUsable() async throws {
        let harness = try await DaemonHarness.start()
        let client = try await WebSocketTestClient.open(port: harness.port)
        #expect(try await client.refusal(.signal(SignalParameters(type: "t", data: "")))?.code == .notConnected)

        let otherSession = try await harness.token(session: "elsewhere", role: .publisher)
        let wrongSession = try await client.refusal(.connect(ConnectParameters(sessionId: "here", token: otherSession)))
        #expect(wrongSession == SignalingError(.invalidToken, "token is for session \"elsewhere\", not \"here\""))

        let expired = try await harness.daemon.signaling.tokens.mintClientToken(
            sessionId: "here", role: .publisher, lifetime: 10, now: Date().addingTimeInterval(-3600))
        #expect(try await client.refusal(.connect(ConnectParameters(sessionId: "here", token: expired)))?.code == .tokenExpired)
        #expect(try await client.refusal(.connect(ConnectParameters(sessionId: "here", token: "a.b.c")))?.code == .invalidToken)

        let good = try await harness.token(session: "here", role: .publisher)
        guard case .connect(let result) = try await client.call(.connect(ConnectParameters(sessionId: "here", token: good))) else { return }
        #expect(result.session.connectionCount == 1)
        try await harness.stop()
    }

    @Test func aFrameOverTheLimitClosesOnlyThatConnection() async throws {
        let harness = try await DaemonHarness.start()
        let (bystander, _) = try await harness.connect(session: "big", role: .publisher)
        let (client, _) = try await harness.connect(session: "big", role: .publisher)
        try await client.sendText(String(repeating: "x", count: harness.configuration.signaling.maximumMessageBytes + 1))
        #expect(try await client.closeFrame()?.closeCode == .messageTooLarge)
        guard case .connectionDestroyed(let destroyed) = try await bystander.event(.connectionDestroyed) else { return }
        #expect(destroyed.reason == .networkDisconnected)
        try await bystanderStillWorks(bystander)
        try await harness.stop()
    }

    @Test func aFloodIsRateLimitedThenDisconnected() async throws {
        let harness = try await DaemonHarness.start { configuration in
            configuration.signaling.messagesPerSecond = 1
            configuration.signaling.messageBurst = 5
            configuration.signaling.rateViolationsBeforeDisconnect = 20
        }
        let (bystander, _) = try await harness.connect(session: "flood", role: .publisher)
        let (flooder, _) = try await harness.connect(session: "flood", role: .publisher)
        for _ in 0..<40 {
            try? await flooder.sendText(String(decoding: ClientMessage(id: 1000, request: .signal(SignalParameters(to: "c_none", type: "t", data: ""))).encoded(), as: UTF8.self))
        }
        guard case .sessionDisconnected(let disconnection) = try await flooder.event(.sessionDisconnected) else { return }
        #expect(disconnection.reason == .rateLimitExceeded)
        #expect(try await flooder.closeFrame()?.closeCode == .policyViolation)
        // Every refused message is answered, the one that ends the connection too.
        var refused = 0
        while (try? await flooder.message(timeout: .milliseconds(100), where: { message in
            if case .error(nil, let error) = message { error.code == .rateLimited } else { false }
        })) != nil {
            refused += 1
        }
        #expect(refused == 20)
        guard case .connectionDestroyed(let destroyed) = try await bystander.event(.connectionDestroyed) else { return }
        #expect(destroyed.reason == .forceDisconnected)
        try await harness.stop()
    }

    @Test func aSocketThatNeverConnectsIsClosed() async throws {
        let harness = try await DaemonHarness.start { $0.signaling.connectTimeout = .seconds(1) }
        let client = try await WebSocketTestClient.open(port: harness.port)
        guard case .sessionDisconnected(let disconnection) = try await client.event(.sessionDisconnected, timeout: .seconds(5)) else { return }
        #expect(disconnection.reason == .connectTimeout)
        #expect(try await client.closeFrame()?.closeCode == .policyViolation)
        try await harness.stop()
    }

    @Test func aRefusedConnectLeavesTheSocketOnItsDeadline() async throws {
        let harness = try await DaemonHarness.start { $0.signaling.connectTimeout = .seconds(1) }
        let client = try await WebSocketTestClient.open(port: harness.port)
        let refusal = try await client.refusal(.connect(ConnectParameters(sessionId: "deadline", token: "not-a-token")))
        #expect(refusal?.code == .invalidToken)
        guard case .sessionDisconnected(let disconnection) = try await client.event(.sessionDisconnected, timeout: .seconds(5)) else { return }
        #expect(disconnection.reason == .connectTimeout)
        try await harness.stop()
    }

    @Test func badTransportParametersAreRefusedByTheMediaPlane() async throws {
        let harness = try await DaemonHarness.start()
        let (client, _) = try await harness.connect(session: "media-bad", role: .publisher)
        let badProfile = PublishParameters(
            audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1),
            transport: TransportOffer(srtp: SRTPKeying(profile: "ROT13", key: "inline:AAAA")))
        #expect(
            try await client.refusal(.publish(badProfile)) == .invalidParams(
                "params.transport.srtp.profile",
                "unknown SRTP profile \"ROT13\"; expected one of AEAD_AES_128_GCM, AEAD_AES_256_GCM, AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32"))
        let badKey = PublishParameters(
            audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1),
            transport: TransportOffer(srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:AAAA")))
        #expect(try await client.refusal(.publish(badKey))?.message.hasPrefix("params.transport.srtp.key: ") == true)
        let badAddress = PublishParameters(
            audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1),
            transport: TransportOffer(
                remote: EndpointAddress(host: "example.com", port: 5000),
                srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:" + String(repeating: "A", count: 38) + "==")))
        #expect(try await client.refusal(.publish(badAddress)) == .invalidParams("params.transport.remote.host", "\"example.com\" is not an IPv4 address"))
        for id: UInt8 in [0, 15] {
            let badExtension = PublishParameters(
                audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1),
                transport: TransportOffer(
                    srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:" + String(repeating: "A", count: 38) + "=="),
                    transportWideSequenceExtensionId: id))
            #expect(
                try await client.refusal(.publish(badExtension)) == .invalidParams(
                    "params.transport.transportWideSequenceExtensionId", "must be a one-byte header extension id (1-14), not \(id)"))
        }
        let videoAsAudio = PublishParameters(
            audio: TrackDescription(codec: .vp8, payloadType: 96, ssrc: 1),
            transport: TransportOffer(srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:AAAA")))
        #expect(try await client.refusal(.publish(videoAsAudio)) == SignalingError(.invalidParams, "params.audio.codec: must be opus, not vp8"))
        let staticPayloadType = PublishParameters(
            audio: TrackDescription(codec: .opus, payloadType: 0, ssrc: 1),
            transport: TransportOffer(srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:AAAA")))
        #expect(try await client.refusal(.publish(staticPayloadType))?.message == "params.audio.payloadType: must be a dynamic payload type (96-127), not 0")
        let keying = SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:" + String(repeating: "A", count: 38) + "==")
        let redRefusals: [(audio: TrackDescription?, video: TrackDescription?, transportRed: UInt8?, message: String)] = [
            (TrackDescription(codec: .opus, payloadType: 111, ssrc: 1, redPayloadType: 0), nil, nil,
             "params.audio.redPayloadType: must be a dynamic payload type (35-63 or 96-127), not 0"),
            (TrackDescription(codec: .opus, payloadType: 111, ssrc: 1, redPayloadType: 111), nil, nil,
             "params.audio.redPayloadType: must differ from the Opus payloadType 111"),
            (nil, TrackDescription(codec: .vp8, payloadType: 96, ssrc: 2, redPayloadType: 63), nil,
             "params.video.redPayloadType: only an Opus track carries RED (RFC 2198)"),
            (TrackDescription(codec: .opus, payloadType: 111, ssrc: 1), nil, 200,
             "params.transport.redPayloadType: must be a dynamic payload type (35-63 or 96-127), not 200"),
        ]
        for refusal in redRefusals {
            let parameters = PublishParameters(
                audio: refusal.audio, video: refusal.video, transport: TransportOffer(srtp: keying, redPayloadType: refusal.transportRed))
            #expect(try await client.refusal(.publish(parameters))?.message == refusal.message)
        }
        try await harness.stop()
    }
}
