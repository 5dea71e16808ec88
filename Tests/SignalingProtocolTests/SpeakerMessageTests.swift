import Foundation
import Testing

@testable import SignalingProtocol

/// The protocol's speaker pieces (docs/speakers.md): the two events, the connect option, the
/// audio-level id of a plain track, and what a bad one is called.
@Suite struct SpeakerMessageTests {
    private func decodeRequest(_ text: String) -> Result<ClientMessage, ClientMessage.Rejection> {
        ClientMessage.decode(Data(text.utf8))
    }

    @Test func speakerEventsRoundTripAndAFreedFloorIsAnExplicitNull() throws {
        for event in [
            SessionEvent.activeSpeakerChanged(ActiveSpeakerChange(streamId: "st_1")), .activeSpeakerChanged(ActiveSpeakerChange(streamId: nil)),
            .audioLevels(AudioLevels(levels: [StreamAudioLevel(streamId: "st_1", level: 0.032, speaking: true)])),
            .audioLevels(AudioLevels(levels: [])),
        ] {
            #expect(try JSONDecoder().decode(ServerMessage.self, from: ServerMessage.event(event).encoded()) == .event(event))
        }
        let freed = String(decoding: ServerMessage.event(.activeSpeakerChanged(ActiveSpeakerChange(streamId: nil))).encoded(), as: UTF8.self)
        #expect(freed.contains(#""data":{"streamId":null}"#), "\(freed)")
        // Levels go out without a seq when none is given; the speaker change takes the one it gets.
        #expect(ServerMessage.eventSequence(of: ServerMessage.event(.audioLevels(AudioLevels(levels: []))).encoded()) == nil)
    }

    @Test func theConnectOptionAndTheAudioLevelIdAreReadAndBadOnesNamed() {
        guard case .success(let connect) = decodeRequest(#"{"v":1,"id":1,"method":"connect","params":{"sessionId":"s","token":"t","subscribeToSpeakerEvents":true}}"#),
            case .connect(let parameters) = connect.request
        else { Issue.record("refused"); return }
        #expect(parameters.subscribeToSpeakerEvents == true)
        guard case .failure(let wrongType) = decodeRequest(#"{"v":1,"id":1,"method":"connect","params":{"sessionId":"s","token":"t","subscribeToSpeakerEvents":"yes"}}"#)
        else { Issue.record("accepted a string"); return }
        #expect(wrongType.error.message.hasPrefix("params.subscribeToSpeakerEvents"), "\(wrongType.error.message)")

        let publish = #"{"v":1,"id":2,"method":"publish","params":{"audio":{"codec":"opus","payloadType":111,"ssrc":1,"audioLevelId":LEVEL},"transport":{"srtp":{"profile":"p","key":"k"}}}}"#
        guard case .success(let published) = decodeRequest(publish.replacingOccurrences(of: "LEVEL", with: "3")),
            case .publish(let publishParameters) = published.request
        else { Issue.record("refused"); return }
        #expect(publishParameters.audio?.audioLevelId == 3)
        guard case .failure(let outOfRange) = decodeRequest(publish.replacingOccurrences(of: "LEVEL", with: "300")) else { Issue.record("accepted 300"); return }
        #expect(outOfRange.error.message == "params.audio.audioLevelId: 300 is out of range 0...255")
    }

    @Test func aSessionsAudioSettingIsReadAndABadOneNamed() throws {
        #expect(try RESTBody.decode(RESTBody.CreateSession.self, from: Data(#"{"audio":{"forwardLoudest":3}}"#.utf8)).audio?.forwardLoudest == 3)
        #expect(throws: SignalingError.self) { try RESTBody.decode(RESTBody.CreateSession.self, from: Data(#"{"audio":{"forwardLoudest":2.5}}"#.utf8)) }
        do {
            _ = try RESTBody.decode(RESTBody.CreateSession.self, from: Data(#"{"audio":{"forwardLoudest":"many"}}"#.utf8))
            Issue.record("accepted a string")
        } catch {
            #expect(error.message.hasPrefix("body.audio.forwardLoudest"), "\(error.message)")
        }
    }
}
