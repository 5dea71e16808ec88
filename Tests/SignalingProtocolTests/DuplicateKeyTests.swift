import Foundation
import SignalingProtocol
import Testing

/// A key twice in one object is refused: JSONDecoder reads the first, JSONSerialization (and many a
/// proxy or logger) the last, so the server could act on a message its neighbours read differently.
@Suite struct DuplicateKeyTests {
    private func refusal(_ text: String) -> ClientMessage.Rejection? {
        if case .failure(let rejection) = ClientMessage.decode(Data(text.utf8)) { return rejection }
        return nil
    }

    @Test(arguments: [
        (#"{"v":0,"id":11,"v":1,"id":9,"method":"disconnect"}"#, "v"),
        (#"{"v":1,"id":3,"method":"signal","params":{"type":"a","data":"b","data":"c"}}"#, "data"),
        (#"{"v":1,"id":3,"\u0069d":4,"method":"disconnect"}"#, "id"),
        (#"{"v":1,"id":3,"method":"disconnect","params":{"x":[{"k":1,"k":2}]}}"#, "k"),
        (#"{"v":1,"id":3,"method":"signal","params":{"type":"\ud83d\ude00","\ud83d\ude00":1,"😀":2,"data":""}}"#, "😀"),
    ])
    func aKeyTwiceInOneObjectIsMalformedAndNamed(_ text: String, _ key: String) throws {
        let rejection = try #require(refusal(text))
        #expect(rejection.error.code == .malformedMessage)
        #expect(rejection.error.message == "key \"\(key)\" appears twice in one object")
        #expect(rejection.id == nil, "which of two ids would it be?")
    }

    @Test(arguments: [
        #"{"v":1,"id":3,"method":"signal","params":{"type":"id","data":"{\"id\":1,\"id\":2}","to":"c_1"}}"#,
        #"{"v":1,"id":3,"method":"disconnect","params":{"x":[{"k":1},{"k":2}],"y":{"k":3}}}"#,
        #"{"v":1,"id":3,"method":"signal","params":{"type":"a\\","data":"\"v\""}}"#,
    ])
    func theSameKeyInDifferentObjectsOrInsideAStringIsFine(_ text: String) {
        #expect(refusal(text)?.error.message.contains("twice") != true, "\(text)")
    }

    /// JSONSerialization takes UTF-16 and UTF-32 too, so bytes it accepts need not balance as UTF-8;
    /// the fuzzer's `00 36 5D` (a 6 in UTF-16, then a stray bracket) once emptied the scan's stack.
    @Test(arguments: [[0x00, 0x36, 0x5D], [0x00, 0x7B, 0x5D, 0x22], [0x7B, 0x00, 0x5D, 0x00, 0x22, 0x00]] as [[UInt8]])
    func bytesReadAsAnotherEncodingAreRefusedWithoutTrapping(_ bytes: [UInt8]) {
        if case .success = ClientMessage.decode(Data(bytes)) { Issue.record("accepted \(bytes)") }
    }

    @Test func aRESTBodyWithAKeyTwiceIsRefusedUnderBody() {
        do throws(SignalingError) {
            _ = try RESTBody.decode(RESTBody.Signal.self, from: Data(#"{"type":"a","data":"b","type":"c"}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error == SignalingError.invalidParams("body", "key \"type\" appears twice in one object"))
        }
    }
}
