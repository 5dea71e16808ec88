import Foundation
import MediaControl
import MediaTestSupport
import SignalingProtocol
import Testing

/// H.264 as OBS, ffmpeg and hardware encoders send it (RFC 6184, packetization mode 1): offered,
/// answered with the publisher's parameters, forwarded from a key frame, described to subscribers.
struct H264Tests {
    static let obsParameters = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f"

    @Test func aWebRTCPublisherOfH264IsAnsweredWithItsParametersAndPlayersGetThemToo() async throws {
        let daemon = try await DaemonHarness.start()
        let (publisher, _) = try await daemon.connect(session: "obs", role: .publisher)
        let offer = WebRTCSignalingTests.publisherOffer(videoCodecs: [(102, "H264")], videoFormatParameters: [102: Self.obsParameters])
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(name: "obs", sdpOffer: offer))) else {
            throw WebSocketTestClient.Failure.timedOut("publish reply")
        }
        let answer = try #require(published.sdpAnswer)
        #expect(answer.contains("a=rtpmap:102 H264/90000\r\n") && answer.contains("a=fmtp:102 \(Self.obsParameters)\r\n"), "\(answer)")
        let streamId = published.stream.streamId

        // A WebSocket subscriber over WebRTC is offered H.264 with the publisher's parameters.
        let (viewer, _) = try await daemon.connect(session: "obs", role: .subscriber)
        guard case .subscribe(let subscribed) = try await viewer.call(.subscribe(SubscribeParameters(streamId: streamId, webrtc: true))) else {
            throw WebSocketTestClient.Failure.timedOut("subscribe reply")
        }
        #expect(subscribed.video?.codec == .h264)
        let subscriberOffer = try #require(subscribed.sdpOffer)
        let payloadType = try #require(subscribed.video).payloadType
        #expect(subscriberOffer.contains(" H264/90000\r\n") && subscriberOffer.contains(Self.obsParameters), "\(subscriberOffer)")
        #expect(!subscriberOffer.contains("VP8"))

        // A WHEP player must offer H.264 in packetization mode 1; its own parameters are answered.
        let token = try await daemon.token(session: "obs", role: .subscriber)
        let playerParameters = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f"
        let played = try await daemon.http(
            "POST", "/v1/whep/obs/\(streamId)", token: token,
            body: WHEPTests.playerOffer(videoCodec: "H264", videoFormatParameters: playerParameters), contentType: "application/sdp")
        let playerAnswer = String(decoding: played.body, as: UTF8.self)
        #expect(played.status == 201, "\(playerAnswer)")
        #expect(playerAnswer.contains("a=rtpmap:120 H264/90000\r\n") && playerAnswer.contains("a=fmtp:120 \(playerParameters)\r\n"), "\(playerAnswer)")
        let vp8Player = try await daemon.http(
            "POST", "/v1/whep/obs/\(streamId)", token: token, body: WHEPTests.playerOffer(), contentType: "application/sdp")
        #expect(vp8Player.status == 422)
        #expect(String(decoding: vp8Player.body, as: UTF8.self).contains("no codec this stream can be sent in (H.264 in packetization mode 1); offered: VP8"))
        let modeZero = try await daemon.http(
            "POST", "/v1/whep/obs/\(streamId)", token: token,
            body: WHEPTests.playerOffer(videoCodec: "H264", videoFormatParameters: "packetization-mode=0;profile-level-id=42e01f"),
            contentType: "application/sdp")
        #expect(modeZero.status == 422, "single NAL units only cannot carry what encoders fragment")
        await publisher.close()
        await viewer.close()
        try await daemon.stop()
    }

    /// A WHEP player's offer of H.264 in packetization mode 1, one format per profile-level-id, in that
    /// order: payload type 120, then 122, 123, …
    static func playerOffer(h264Profiles profiles: [String]) -> String {
        let parameters = { (profile: String) in "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(profile)" }
        let more = profiles.dropFirst().enumerated().map { (payloadType: 122 + $0.offset, profile: $0.element) }
        return WHEPTests.playerOffer(videoCodec: "H264", videoFormatParameters: parameters(profiles[0]))
            .replacingOccurrences(
                of: "m=video 9 UDP/TLS/RTP/SAVPF 120 121",
                with: "m=video 9 UDP/TLS/RTP/SAVPF 120 121" + more.map { " \($0.payloadType)" }.joined())
            + more.map { "a=rtpmap:\($0.payloadType) H264/90000\r\na=fmtp:\($0.payloadType) \(parameters($0.profile))\r\n" }.joined()
    }

    @Test func playersGetTheFormatOfThePublishersProfileAndAreRefusedWhenNoneOfTheirsPlaysIt() async throws {
        let daemon = try await DaemonHarness.start()
        let (publisher, _) = try await daemon.connect(session: "profiles", role: .publisher)
        let high = "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f"
        let offer = WebRTCSignalingTests.publisherOffer(videoCodecs: [(102, "H264")], videoFormatParameters: [102: high])
        guard case .publish(let published) = try await publisher.call(.publish(PublishParameters(name: "high", sdpOffer: offer))) else {
            throw WebSocketTestClient.Failure.timedOut("publish reply")
        }
        let path = "/v1/whep/profiles/\(published.stream.streamId)"
        let token = try await daemon.token(session: "profiles", role: .subscriber)
        func message(_ body: Data) -> String {
            ((try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? String) ?? String(decoding: body, as: UTF8.self)
        }

        let baselines = try await daemon.http(
            "POST", path, token: token, body: Self.playerOffer(h264Profiles: ["42e01f", "42001f"]), contentType: "application/sdp")
        #expect(baselines.status == 422)
        #expect(
            message(baselines.body).hasSuffix(
                "no H.264 profile offered plays the stream's High (64001f); offered: Constrained Baseline (42e01f), Baseline (42001f)"),
            "\(message(baselines.body))")
        let highAmongOthers = try await daemon.http(
            "POST", path, token: token, body: Self.playerOffer(h264Profiles: ["42e01f", "640c1f", "64001f"]), contentType: "application/sdp")
        let answer = String(decoding: highAmongOthers.body, as: UTF8.self)
        #expect(highAmongOthers.status == 201, "\(answer)")
        #expect(answer.contains("a=rtpmap:123 H264/90000\r\n") && answer.contains("a=fmtp:123 \(high)\r\n"), "\(answer)")

        // A WebSocket subscriber is offered the publisher's profile, and may not answer another.
        let (viewer, _) = try await daemon.connect(session: "profiles", role: .subscriber)
        guard case .subscribe(let subscribed) = try await viewer.call(.subscribe(SubscribeParameters(streamId: published.stream.streamId, webrtc: true)))
        else { throw WebSocketTestClient.Failure.timedOut("subscribe reply") }
        let subscriberOffer = try #require(subscribed.sdpOffer)
        let payloadType = try #require(subscribed.video).payloadType
        let mainAnswer = subscriberOffer.replacingOccurrences(of: "a=setup:actpass", with: "a=setup:active")
            .replacingOccurrences(of: "a=sendonly", with: "a=recvonly").replacingOccurrences(of: "profile-level-id=64001f", with: "profile-level-id=4d001f")
        let refused = try await viewer.refusal(.answerSubscriber(SubscriberAnswer(subscriberId: subscribed.subscriberId, sdpAnswer: mainAnswer)))
        #expect(refused?.code == .invalidParams)
        #expect(
            refused?.message.hasPrefix("params.sdpAnswer: line ") == true
                && refused?.message.hasSuffix("payload type \(payloadType) is H.264 High (64001f), the stream's profile, in the offer, not Main (4d001f)") == true,
            "\(refused?.message ?? "")")
        await publisher.close()
        await viewer.close()
        try await daemon.stop()
    }

    @Test func aSubscriberJoiningAnH264StreamStartsAtItsNextIDR() async throws {
        let daemon = try await DaemonHarness.start()
        let (publisher, _) = try await daemon.connect(session: "h264", role: .publisher)
        let (viewer, _) = try await daemon.connect(session: "h264", role: .subscriber)
        let publisherPeer = try TestPeer()
        let viewerPeer = try TestPeer()
        var parameters = publisherPeer.publishParameters()
        parameters.video = TrackDescription(codec: .h264, payloadType: 102, ssrc: TestPeer.videoSSRC)
        parameters.audio = nil
        guard case .publish(let published) = try await publisher.call(.publish(parameters)) else { return }
        try publisherPeer.accept(try #require(published.transport))
        guard case .subscribe(let subscribed) = try await viewer.call(
            .subscribe(SubscribeParameters(streamId: published.stream.streamId, transport: viewerPeer.transportOffer)))
        else { return }
        try viewerPeer.accept(try #require(subscribed.transport))
        #expect(subscribed.video?.codec == .h264 && subscribed.video?.payloadType == 102)

        // A frame's middle and a non-IDR slice are held back; the IDR's first fragment starts the run.
        let middleOfAFrame: [UInt8] = [0x7C, 0x05] + Array(repeating: 0xAA, count: 300)
        let nonIDRSlice: [UInt8] = [0x41, 0x9A] + Array(repeating: 0xBB, count: 300)
        let stapOfParameterSets: [UInt8] = [0x78, 0x00, 0x04, 0x67, 0x42, 0xE0, 0x1F, 0x00, 0x04, 0x68, 0xCE, 0x3C, 0x80]
        let idrStart: [UInt8] = [0x7C, 0x85] + Array(repeating: 0xCC, count: 300)
        let idrEnd: [UInt8] = [0x7C, 0x45] + Array(repeating: 0xDD, count: 300)
        let sent = [middleOfAFrame, nonIDRSlice, stapOfParameterSets, idrStart, idrEnd, nonIDRSlice]
        for (index, payload) in sent.enumerated() {
            try publisherPeer.sendRTP(
                payloadType: 102, sequenceNumber: UInt16(index), timestamp: UInt32(index / 2 * 3000), ssrc: TestPeer.videoSSRC, payload: payload)
        }
        let received = try await onOwnThread { viewerPeer.receiveRTP(count: 4) }
        #expect(received.map(\.payload) == Array(sent[2...]), "from the parameter sets ahead of the IDR on, byte for byte")
        #expect(received.map(\.sequenceNumber) == received.indices.map { UInt16(truncatingIfNeeded: Int(received[0].sequenceNumber) + $0) })
        await publisher.close()
        await viewer.close()
        try await daemon.stop()
    }
}
