import Foundation
import SignalingProtocol
import Testing

/// WebRTC over the signaling protocol: SDP offers and answers refused with the line they name, the
/// router's subscriber offer, ICE restarts, and a media connection that never comes up.
@Suite struct WebRTCSignalingTests {
    /// A browser-like publisher offer: BUNDLE, rtcp-mux, ICE credentials, a fingerprint, and the
    /// video section's codecs as given.
    static func publisherOffer(videoCodecs: [(payloadType: Int, name: String)] = [(96, "VP8")], videoFormatParameters: [Int: String] = [:]) -> String {
        let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")
        var lines = [
            "v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=ice-ufrag:EsAw", "a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y",
            "a=fingerprint:sha-256 \(fingerprint)", "a=setup:actpass", "a=mid:0", "a=sendonly", "a=rtcp-mux",
            "a=rtpmap:111 opus/48000/2", "a=fmtp:111 minptime=10;useinbandfec=1", "a=ssrc:1001 cname:test",
        ]
        lines += [
            "m=video 9 UDP/TLS/RTP/SAVPF \(videoCodecs.map { String($0.payloadType) }.joined(separator: " "))", "c=IN IP4 0.0.0.0",
            "a=ice-ufrag:EsAw", "a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y", "a=fingerprint:sha-256 \(fingerprint)", "a=setup:actpass",
            "a=mid:1", "a=sendonly", "a=rtcp-mux",
        ]
        lines += videoCodecs.map { "a=rtpmap:\($0.payloadType) \($0.name)/90000" }
        lines += videoFormatParameters.sorted { $0.key < $1.key }.map { "a=fmtp:\($0.key) \($0.value)" }
        lines += ["a=rtcp-fb:\(videoCodecs[0].payloadType) nack pli", "a=ssrc:2001 cname:test"]
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    @Test func anOfferWithNoCodecWeForwardIsRefusedNamingItsLineAndOthersStillPublish() async throws {
        let daemon = try await DaemonHarness.start()
        let (first, _) = try await daemon.connect(session: "sdp", role: .publisher)
        let (second, _) = try await daemon.connect(session: "sdp", role: .publisher)
        let refusal = try await first.refusal(.publish(PublishParameters(sdpOffer: Self.publisherOffer(videoCodecs: [(100, "H264"), (98, "VP9")]))))
        #expect(refusal?.code == .invalidParams)
        #expect(refusal?.message.contains("line 18 (m=video 9 UDP/TLS/RTP/SAVPF 100 98)") == true, "\(refusal?.message ?? "")")
        #expect(refusal?.message.contains("H264, VP9") == true)
        let garbage = try await first.refusal(.publish(PublishParameters(sdpOffer: "hello")))
        #expect(garbage?.code == .invalidParams)
        #expect(garbage?.message.hasPrefix("params.sdpOffer: line 1") == true, "\(garbage?.message ?? "")")
        guard case .publish(let published) = try await second.call(.publish(PublishParameters(name: "cam", sdpOffer: Self.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let answer = try #require(published.sdpAnswer)
        #expect(published.transport == nil)
        #expect(answer.contains("a=ice-lite\r\n"))
        #expect(answer.contains("a=setup:passive\r\n"))
        #expect(answer.contains("typ host"))
        // ICE-TCP is on by default: the worker's TCP port as a passive candidate after the UDP one.
        let tcpPort = try #require(daemon.daemon.iceTCPPorts.first)
        #expect(answer.contains(" 1 tcp 2124414975 127.0.0.1 \(tcpPort) typ host tcptype passive\r\n"), "\(answer)")
        let udpLine = try #require(answer.range(of: " 1 udp "))
        #expect(udpLine.lowerBound < answer.range(of: " 1 tcp ")!.lowerBound)
        #expect(published.stream.hasAudio && published.stream.hasVideo)
        await first.close()
        await second.close()
        try await daemon.stop()
    }

    @Test func publishAndSubscribeTakeExactlyOneKindOfTransport() async throws {
        let daemon = try await DaemonHarness.start()
        let (client, _) = try await daemon.connect(session: "kinds", role: .publisher)
        let both = try await client.refusal(
            .publish(
                PublishParameters(
                    transport: TransportOffer(srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:x")), sdpOffer: Self.publisherOffer())))
        #expect(both?.message == "params: publish takes transport (plain SRTP) or sdpOffer (WebRTC), not both")
        let neither = try await client.refusal(.publish(PublishParameters(name: "nothing")))
        #expect(neither?.message == "params: publish needs transport (plain SRTP) or sdpOffer (WebRTC)")
        let tracks = try await client.refusal(
            .publish(PublishParameters(audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1), sdpOffer: Self.publisherOffer())))
        #expect(tracks?.message == "params: audio and video come from sdpOffer; leave them out of a WebRTC publish")
        guard case .publish(let published) = try await client.call(.publish(PublishParameters(sdpOffer: Self.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        let subscribeNeither = try await client.refusal(.subscribe(SubscribeParameters(streamId: published.stream.streamId)))
        #expect(subscribeNeither?.message == "params: subscribe needs transport (plain SRTP) or webrtc: true")
        await client.close()
        try await daemon.stop()
    }

    @Test func aSubscriberGetsTheRoutersOfferAndItsAnswerIsChecked() async throws {
        let daemon = try await DaemonHarness.start()
        let (client, _) = try await daemon.connect(session: "offer", role: .publisher)
        guard case .publish(let published) = try await client.call(.publish(PublishParameters(sdpOffer: Self.publisherOffer())))
        else { throw WebSocketTestClient.Failure.timedOut("publish reply") }
        guard case .subscribe(let subscribed) = try await client.call(.subscribe(SubscribeParameters(streamId: published.stream.streamId, webrtc: true)))
        else { throw WebSocketTestClient.Failure.timedOut("subscribe reply") }
        let offer = try #require(subscribed.sdpOffer)
        #expect(offer.contains("a=setup:actpass\r\n"))
        #expect(offer.contains("a=sendonly\r\n"))
        #expect(offer.contains("a=rtpmap:111 opus/48000/2"))
        #expect(offer.contains("a=rtpmap:96 VP8/90000"))
        #expect(offer.contains("a=ssrc:\(try #require(subscribed.video).ssrc) cname:"))
        let garbage = try await client.refusal(.answerSubscriber(SubscriberAnswer(subscriberId: subscribed.subscriberId, sdpAnswer: "v=0\r\nx")))
        #expect(garbage?.code == .invalidParams)
        #expect(garbage?.message.hasPrefix("params.sdpAnswer: line 2") == true, "\(garbage?.message ?? "")")
        let passive = offer.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:passive")
            .replacingOccurrences(of: "a=sendonly", with: "a=recvonly")
        let refused = try await client.refusal(.answerSubscriber(SubscriberAnswer(subscriberId: subscribed.subscriberId, sdpAnswer: passive)))
        #expect(refused?.message.contains("a=setup:passive") == true, "\(refused?.message ?? "")")
        guard case .restartIce(let restarted) = try await client.call(.restartIce(ICERestartParameters(subscriberId: subscribed.subscriberId)))
        else { throw WebSocketTestClient.Failure.timedOut("restartIce reply") }
        let newOffer = try #require(restarted.sdpOffer)
        func ufrag(_ sdp: String) -> Substring? { sdp.split(separator: "\r\n").first { $0.hasPrefix("a=ice-ufrag:") } }
        #expect(ufrag(newOffer) != nil && ufrag(newOffer) != ufrag(offer))
        await client.close()
        try await daemon.stop()
    }

    @Test func aPublisherWhoseMediaNeverConnectsLosesTheStreamWithReasonMediaFailed() async throws {
        let daemon = try await DaemonHarness.start { $0.media.webRTCConnectTimeout = .milliseconds(500) }
        let (publisher, _) = try await daemon.connect(session: "failed", role: .publisher)
        let (watcher, _) = try await daemon.connect(session: "failed", role: .subscriber)
        // On a loaded machine the 500 ms can pass while the publish request is still under way: then
        // the request itself is refused with the media plane's reason, and no stream is left behind.
        switch try await publisher.send(.publish(PublishParameters(sdpOffer: Self.publisherOffer()))) {
        case .reply(_, .publish(let published)):
            guard case .streamDestroyed(let destroyed) = try await watcher.event(.streamDestroyed, timeout: .seconds(5)) else { return }
            #expect(destroyed.stream.streamId == published.stream.streamId)
            #expect(destroyed.reason == .mediaFailed)
        case .error(_, let refusal):
            #expect(refusal.code == .mediaError)
            #expect(refusal.message.contains("ICE and DTLS did not connect within"), "\(refusal.message)")
            #expect(await !watcher.receives(.streamCreated, within: .milliseconds(300)))
        default:
            Issue.record("publish got neither its reply nor an error")
        }
        await publisher.close()
        await watcher.close()
        try await daemon.stop()
    }
}
