import Foundation
import SignalingProtocol
import Testing

/// An `id` is echoed only when it was an integer that fits; anything else is answered with
/// `"id": null`, as docs/protocol.md says, never with a number the client did not send.
struct MessageIdentifierTests {
    private func rejectionID(_ id: String, method: String = "fly") -> Int?? {
        guard case .failure(let rejection) = ClientMessage.decode(Data(#"{"v":1,"id":\#(id),"method":"\#(method)","params":{}}"#.utf8)) else {
            return .none
        }
        return .some(rejection.id)
    }

    @Test(arguments: [
        "true", "false", "1.5", "1e30", "99999999999999999999", "-99999999999999999999", #""7""#, "null", "[7]", "{}",
        "444444444444444444.6", "7.0", "1e2", "-0.0",
    ])
    func anIDThatIsNotAnIntegerIsAnsweredWithNull(_ id: String) throws {
        let answered = try #require(rejectionID(id), "\(id) was accepted")
        #expect(answered == nil, "id \(id) came back as \(String(describing: answered))")
    }

    @Test func aMissingIDIsAnsweredWithNull() throws {
        guard case .failure(let rejection) = ClientMessage.decode(Data(#"{"v":1,"method":"disconnect"}"#.utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.id == nil)
        #expect(rejection.error.code == .malformedMessage)
    }

    @Test(arguments: [("7", 7), ("-3", -3), ("0", 0), ("9223372036854775807", Int.max)])
    func anIntegerIDIsEchoed(_ id: String, _ value: Int) throws {
        #expect(try #require(rejectionID(id)) == value)
    }

    @Test func aBooleanIDMakesTheMessageMalformedAndSaysWhy() {
        guard case .failure(let rejection) = ClientMessage.decode(Data(#"{"v":1,"id":true,"method":"disconnect"}"#.utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.id == nil)
        #expect(rejection.error == SignalingError(.malformedMessage, "id: expected an integer"))
    }
}

/// Every `invalidParams` message starts with the full path of the field from the message root.
struct InvalidParamsFormatTests {
    private func message(_ text: String) -> String? {
        guard case .failure(let rejection) = ClientMessage.decode(Data(text.utf8)), rejection.error.code == .invalidParams else { return nil }
        return rejection.error.message
    }

    @Test func decodingErrorsNameTheFullPath() {
        #expect(message(#"{"v":1,"id":1,"method":"connect","params":{"sessionId":"s"}}"#) == "params.token: required field is missing")
        #expect(message(#"{"v":1,"id":1,"method":"signal","params":{"type":5,"data":"x"}}"#) == "params.type: expected a string")
        #expect(message(#"{"v":1,"id":1,"method":"signal"}"#) == "params: required field is missing")
        #expect(message(#"{"v":1,"id":1,"method":"signal","params":{"type":"t","data":null}}"#) == "params.data: expected a string, found null")
    }

    /// Foundation refuses a fraction where an integer belongs without saying where; the field is named.
    @Test func aFractionWhereAnIntegerBelongsNamesTheField() {
        let track = #"{"v":1,"id":1,"method":"publish","params":{"audio":{"codec":"opus","payloadType":111,"ssrc":2.22}}}"#
        #expect(message(track) == "params.audio.ssrc: expected an integer")
        let dimensions = #"{"v":1,"id":1,"method":"updateStream","params":{"streamId":"st_x","videoDimensions":{"width":640.5,"height":480}}}"#
        #expect(message(dimensions) == "params.videoDimensions.width: expected an integer")
        guard case .failure(let rejection) = ClientMessage.decode(Data(#"{"v":1.5,"id":1,"method":"disconnect"}"#.utf8)) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.error == SignalingError(.malformedMessage, "v: expected an integer"))
        #expect(rejection.id == 1)
    }

    @Test func theHelperWritesPathColonProblem() {
        #expect(SignalingError.invalidParams("params.video.payloadType", "must be a dynamic payload type (96-127), not 128")
            == SignalingError(.invalidParams, "params.video.payloadType: must be a dynamic payload type (96-127), not 128"))
    }

    @Test func aRESTBodyPathStartsAtBody() {
        struct Body: Decodable { var sessionId: String }
        do {
            _ = try JSONDecoder().decode(Body.self, from: Data(#"{"sessionId":3}"#.utf8))
            Issue.record("decoded")
        } catch {
            #expect(describeDecodingError(error, under: "body") == "body.sessionId: expected a string")
        }
        do {
            _ = try JSONDecoder().decode(Body.self, from: Data("{oops".utf8))
            Issue.record("decoded")
        } catch {
            #expect(describeDecodingError(error, under: "body") == "body: not valid JSON")
        }
    }
}
