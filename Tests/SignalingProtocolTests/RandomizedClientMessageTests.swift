import Foundation
import SignalingProtocol
import Testing
import TestSupport

/// Randomized robustness test for the first thing done with every WebSocket message any client
/// sends, before its fields are checked: decoding the envelope and each method's params. Valid
/// requests of every method, mutated byte by byte from a fixed seed, must decode to a request that
/// survives a round trip, or be refused with one of the decoding errors in the documented form.
@Suite struct RandomizedClientMessageTests {
    /// One valid request of every method, with every optional field set somewhere.
    private static let seeds: [ClientMessage] = {
        let keying = SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:" + String(repeating: "A", count: 38) + "==")
        let requests: [ClientRequest] = [
            .connect(ConnectParameters(sessionId: "team-standup", token: "eyJhbGciOiJIUzI1NiJ9.eyJzIjoxfQ.c2ln")),
            .publish(
                PublishParameters(
                    name: "cam", videoType: .camera, videoDimensions: VideoDimensions(width: 640, height: 480),
                    audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1),
                    video: TrackDescription(codec: .vp8, payloadType: 96, ssrc: 2, rtxPayloadType: 97, rtxSsrc: 3),
                    audioFallback: AudioFallbackSettings(subscriberAudioFallbackEnabled: false, publisherAudioFallbackEnabled: true),
                    transport: TransportOffer(remote: EndpointAddress(host: "127.0.0.1", port: 5004), srtp: keying))),
            .publish(PublishParameters(sdpOffer: "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n")),
            .unpublish(StreamReference(streamId: "st_eBeYwZq2vH1ASCNoQni1Yw")),
            .updateStream(StreamUpdate(streamId: "st_x", publishAudio: false, publishVideo: true, videoDimensions: VideoDimensions(width: 1, height: 16_384))),
            .subscribe(SubscribeParameters(streamId: "st_x", transport: TransportOffer(srtp: keying))),
            .unsubscribe(SubscriberReference(subscriberId: "sb_x")),
            .updateSubscriber(SubscriberUpdate(subscriberId: "sb_x", subscribeToAudio: true, subscribeToVideo: false)),
            .signal(SignalParameters(to: "c_x", type: "chat", data: "hi Alice \u{1F600}", retryAfterReconnect: true, signalId: "sig-1")),
            .reconnect(ReconnectParameters(sessionId: "s", connectionId: "c_x", reconnectSecret: "rs_x", lastEventSeq: 12)),
            .getStats(SubscriberReference(subscriberId: "sb_x")),
            .getPublisherStats(StreamReference(streamId: "st_x")),
            .forceDisconnect(ConnectionReference(connectionId: "c_x")),
            .forceUnpublish(StreamReference(streamId: "st_x")),
            .answerSubscriber(SubscriberAnswer(subscriberId: "sb_x", sdpAnswer: "v=0\r\n")),
            .restartIce(ICERestartParameters(streamId: "st_x", sdpOffer: "v=0\r\n")),
            .forceMuteStream(StreamReference(streamId: "st_x")),
            .forceMuteAll(ForceMuteAllParameters(excludedStreamIds: ["st_a", "st_b"])),
            .disableForceMute,
            .disconnect,
        ]
        return requests.enumerated().map { ClientMessage(id: $0.offset * 7 - 3, request: $0.element) }
    }()

    private static let decodingErrors: Set<SignalingErrorCode> = [.malformedMessage, .unsupportedVersion, .unknownMethod, .invalidParams]

    @Test func mutatedRequestsDecodeAndRoundTripOrAreRefusedInTheDocumentedForm() {
        var generator = SeededGenerator(seed: 0x4A53_4F4E_5245_5131)
        let texts = Self.seeds.map { Array($0.encoded()) }
        for (message, text) in zip(Self.seeds, texts) {
            #expect(ClientMessage.decode(Data(text)) == .success(message), "every seed decodes before it is mutated")
        }
        var decoded = 0
        var refused: [SignalingErrorCode: Int] = [:]
        for _ in 0..<6_000 {
            let bytes = ByteMutations.mutated(texts.randomElement(using: &generator)!, using: &generator)
            switch ClientMessage.decode(Data(bytes)) {
            case .success(let message):
                decoded += 1
                #expect(ClientMessage.decode(message.encoded()) == .success(message), "\(String(decoding: bytes, as: UTF8.self))")
            case .failure(let rejection):
                refused[rejection.error.code, default: 0] += 1
                #expect(Self.decodingErrors.contains(rejection.error.code), "\(rejection.error)")
                if rejection.error.code == .invalidParams {
                    #expect(rejection.error.message.hasPrefix("params"), "\(rejection.error.message); input: \(String(decoding: bytes, as: UTF8.self))")
                }
                if let id = rejection.id {
                    #expect(String(decoding: bytes, as: UTF8.self).contains(String(id)), "id \(id) not in \(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
        #expect(decoded >= 100, "decoded \(decoded) of 6000")
        #expect(refused.count == 4, "refusals reached: \(refused)")
    }
}
