import Foundation
import SignalingProtocol
import Testing

@Suite struct ClientMessageTests {
    private func decode(_ text: String) -> Result<ClientMessage, ClientMessage.Rejection> {
        ClientMessage.decode(Data(text.utf8))
    }

    @Test func publishRoundTripsThroughJSON() throws {
        let message = ClientMessage(
            id: 4,
            request: .publish(
                PublishParameters(
                    name: "cam", videoType: .camera, videoDimensions: VideoDimensions(width: 640, height: 480),
                    audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: 1),
                    video: TrackDescription(codec: .vp8, payloadType: 96, ssrc: 2, rtxPayloadType: 97, rtxSsrc: 3),
                    audioFallback: AudioFallbackSettings(subscriberAudioFallbackEnabled: false),
                    transport: TransportOffer(srtp: SRTPKeying(profile: "AEAD_AES_128_GCM", key: "inline:abc")))))
        #expect(try decode(String(decoding: message.encoded(), as: UTF8.self)).get() == message)
    }

    @Test func everyMethodWithoutParametersDecodes() throws {
        #expect(try decode(#"{"v":1,"id":9,"method":"disconnect"}"#).get() == ClientMessage(id: 9, request: .disconnect))
        #expect(try decode(#"{"v":1,"id":9,"method":"disconnect","params":{}}"#).get().request == .disconnect)
        #expect(try decode(#"{"v":1,"id":9,"method":"disableForceMute"}"#).get().request == .disableForceMute)
        #expect(try decode(#"{"v":1,"id":9,"method":"forceMuteAll"}"#).get().request == .forceMuteAll(ForceMuteAllParameters()))
        #expect(try decode(#"{"v":1,"id":9,"method":"forceMuteAll","params":{}}"#).get().request == .forceMuteAll(ForceMuteAllParameters()))
    }

    @Test func notJSONIsMalformedWithoutAnID() {
        guard case .failure(let rejection) = decode("{not json") else { Issue.record("accepted garbage"); return }
        #expect(rejection.id == nil)
        #expect(rejection.error.code == .malformedMessage)
    }

    @Test func aMissingMethodIsMalformedButKeepsTheID() {
        guard case .failure(let rejection) = decode(#"{"v":1,"id":12}"#) else { Issue.record("accepted"); return }
        #expect(rejection.id == 12)
        #expect(rejection.error.code == .malformedMessage)
        #expect(rejection.error.message.contains("method"))
    }

    @Test func anUnknownMethodIsNamed() {
        guard case .failure(let rejection) = decode(#"{"v":1,"id":3,"method":"teleport","params":{}}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.id == 3)
        #expect(rejection.error.code == .unknownMethod)
        #expect(rejection.error.message.contains("teleport"))
    }

    @Test func anotherVersionIsRefused() {
        guard case .failure(let rejection) = decode(#"{"v":2,"id":3,"method":"disconnect"}"#) else { Issue.record("accepted"); return }
        #expect(rejection.error.code == .unsupportedVersion)
    }

    @Test func aWrongTypeNamesTheFieldPath() {
        let text = #"{"v":1,"id":5,"method":"subscribe","params":{"streamId":"st","transport":{"srtp":{"profile":7,"key":"k"}}}}"#
        guard case .failure(let rejection) = decode(text) else { Issue.record("accepted"); return }
        #expect(rejection.id == 5)
        #expect(rejection.error.code == .invalidParams)
        #expect(rejection.error.message == "params.transport.srtp.profile: expected a string")
    }

    @Test func aMissingFieldIsNamed() {
        guard case .failure(let rejection) = decode(#"{"v":1,"id":1,"method":"connect","params":{"sessionId":"s"}}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.error.message == "params.token: required field is missing")
    }

    @Test func anOutOfRangePayloadTypeIsInvalid() {
        let text = #"{"v":1,"id":2,"method":"publish","params":{"audio":{"codec":"opus","payloadType":300,"ssrc":1},"transport":{"srtp":{"profile":"p","key":"k"}}}}"#
        guard case .failure(let rejection) = decode(text) else { Issue.record("accepted"); return }
        #expect(rejection.error.code == .invalidParams)
        #expect(rejection.error.message == "params.audio.payloadType: 300 is out of range 0...255")
    }

    @Test func anUnknownCodecIsInvalid() {
        let text = #"{"v":1,"id":2,"method":"publish","params":{"video":{"codec":"vp9","payloadType":96,"ssrc":1},"transport":{"srtp":{"profile":"p","key":"k"}}}}"#
        guard case .failure(let rejection) = decode(text) else { Issue.record("accepted"); return }
        #expect(rejection.error.message.hasPrefix("params.video.codec"))
    }
}
