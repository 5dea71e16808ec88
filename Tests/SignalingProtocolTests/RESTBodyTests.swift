import Foundation
import SignalingProtocol
import Testing
import TestSupport

/// The REST bodies a backend sends with only a token in front of them: each decodes, or is refused as
/// `invalidParams` with the path of what was wrong from `body`.
@Suite struct RESTBodyTests {
    private func refusal<Body: Decodable>(_ type: Body.Type, _ text: String) -> String? {
        do throws(SignalingError) {
            _ = try RESTBody.decode(type, from: Data(text.utf8))
            return nil
        } catch {
            #expect(error.code == .invalidParams)
            return error.message
        }
    }

    @Test func bodiesDecode() throws {
        #expect(try RESTBody.decode(RESTBody.Signal.self, from: Data(#"{"type":"chat","data":"hi"}"#.utf8)) == RESTBody.Signal(type: "chat", data: "hi"))
        #expect(try RESTBody.decode(RESTBody.CreateSession.self, from: Data(#"{"sessionId":"demo"}"#.utf8)).sessionId == "demo")
        #expect(try RESTBody.decode(RESTBody.CreateSession.self, from: Data("{}".utf8)).sessionId == nil)
        #expect(try RESTBody.decode(RESTBody.Fault.self, from: Data(#"{"dropShare":0.25}"#.utf8)).dropShare == 0.25)
        #expect(
            try RESTBody.decode(RESTBody.ForceMute.self, from: Data(#"{"active":true,"excludedStreamIds":["st_a"]}"#.utf8))
                == RESTBody.ForceMute(active: true, excludedStreamIds: ["st_a"]))
    }

    @Test func eachRefusalNamesTheField() {
        #expect(refusal(RESTBody.Signal.self, #"{"data":"hi"}"#) == "body.type: required field is missing")
        #expect(refusal(RESTBody.Signal.self, #"{"type":"chat","data":7}"#) == "body.data: expected a string")
        #expect(refusal(RESTBody.Fault.self, #"{"dropShare":"half"}"#) == "body.dropShare: expected a number")
        #expect(refusal(RESTBody.CreateSession.self, "[]")?.hasPrefix("body: expected an object") == true)
        #expect(refusal(RESTBody.Signal.self, "{oops") == "body: not valid JSON")
        #expect(refusal(RESTBody.ForceMute.self, #"{"excludedStreamIds":[]}"#) == "body.active: required field is missing")
        #expect(refusal(RESTBody.ForceMute.self, #"{"active":true,"excludedStreamIds":"st_a"}"#)?.hasPrefix("body.excludedStreamIds: expected") == true)
    }

    /// JSONDecoder reads a string's escapes only when it decodes that string: a body broken inside a
    /// field the server does not read was accepted before the whole text was checked.
    @Test func aBodyBrokenInsideAFieldItDoesNotReadIsNotValidJSON() {
        #expect(refusal(RESTBody.Signal.self, #"{"type":"chat","data":"hi","note":"\q"}"#) == "body: not valid JSON")
        #expect(refusal(RESTBody.Fault.self, "{\"dropShare\":0.5,\"x\":\"\u{1}\"}") == "body: not valid JSON")
    }

    /// Valid bodies of each kind, mutated byte by byte from a fixed seed, decode to a body that
    /// survives a round trip or are refused with a path under `body`.
    @Test func mutatedBodiesDecodeAndRoundTripOrAreRefusedWithTheirPath() {
        var generator = SeededGenerator(seed: 0x5245_5354_424F_4459)
        let seeds = [#"{"sessionId":"team-standup"}"#, #"{"type":"chat","data":"hi Alice \ud83d\ude00"}"#, #"{"dropShare":0.25}"#, "{}"]
        var decoded = 0
        var refused = 0
        for _ in 0..<3_000 {
            let bytes = Data(ByteMutations.mutated(Array(seeds.randomElement(using: &generator)!.utf8), using: &generator))
            decoded += Self.check(RESTBody.CreateSession.self, bytes, refused: &refused)
            decoded += Self.check(RESTBody.Signal.self, bytes, refused: &refused)
            decoded += Self.check(RESTBody.Fault.self, bytes, refused: &refused)
        }
        #expect(decoded >= 300, "decoded \(decoded)")
        #expect(refused >= 3_000, "refused \(refused)")
    }

    private static func check<Body: Codable & Equatable>(_ type: Body.Type, _ bytes: Data, refused: inout Int) -> Int {
        do throws(SignalingError) {
            let body = try RESTBody.decode(type, from: bytes)
            let encoded = try! JSONEncoder().encode(body)
            #expect(try RESTBody.decode(type, from: encoded) == body, "\(String(decoding: bytes, as: UTF8.self))")
            return 1
        } catch {
            refused += 1
            #expect(error.code == .invalidParams)
            #expect(error.message.hasPrefix("body"), "\(error.message); input: \(String(decoding: bytes, as: UTF8.self))")
            return 0
        }
    }
}
