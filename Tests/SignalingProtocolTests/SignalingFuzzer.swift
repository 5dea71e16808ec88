// The invariants of the `signaling` libFuzzer target (Fuzz/SignalingFuzzTarget.swift): what the
// signaling decodes from a client before any field is checked, every WebSocket message (the envelope
// and each method's params) and every REST body. `make test` checks them on every seed in
// Fuzz/seeds/signaling (FuzzSeedTests), so they cannot drift from the code between campaigns;
// Fuzz/run.sh compiles this file INTO the SignalingProtocol module (with -D FUZZ_TARGET), so internal
// API is in reach either way.
//
// Each input goes through ClientMessage.decode and through the decoding of each REST body. A message
// that decodes must encode to a text that decodes to the same message; one that does not is refused
// with a decoding error in the documented form (invalidParams names a path under params, an id is
// echoed only when the text's id is that integer). A REST body decodes and round-trips the same
// way, or is refused as invalidParams with a path under body. Broken invariants call `fatalError`,
// which libFuzzer records as a crash with the input.

import Foundation

#if !FUZZ_TARGET
    @testable import SignalingProtocol
#endif

private let decodingErrors: Set<SignalingErrorCode> = [.malformedMessage, .unsupportedVersion, .unknownMethod, .invalidParams]

enum SignalingFuzzer {
    /// Checks one input; returns only when every invariant holds.
    static func check(_ input: UnsafeRawBufferPointer) {
        let bytes = Data(input)
        switch ClientMessage.decode(bytes) {
        case .success(let message):
            ensure(ClientMessage.decode(message.encoded()) == .success(message), "a decoded message does not survive its round trip")
        case .failure(let rejection):
            ensure(decodingErrors.contains(rejection.error.code), "refused with \(rejection.error.code)")
            if rejection.error.code == .invalidParams {
                ensure(rejection.error.message.hasPrefix("params"), "invalidParams without its path: \(rejection.error.message)")
            }
            if let id = rejection.id {
                let object = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) as? [String: Any]
                let written = object?["id"] as? NSNumber
                ensure(written?.doubleValue == Double(id), "echoed id \(id) is not the message's id \(String(describing: written))")
            }
        }
        checkBody(RESTBody.CreateSession.self, bytes)
        checkBody(RESTBody.Signal.self, bytes)
        checkBody(RESTBody.Fault.self, bytes)
    }
}

private func checkBody<Body: Codable & Equatable>(_ type: Body.Type, _ bytes: Data) {
    do throws(SignalingError) {
        let body = try RESTBody.decode(type, from: bytes)
        let again = try RESTBody.decode(type, from: try! JSONEncoder().encode(body))
        ensure(again == body, "a decoded \(type) does not survive its round trip")
    } catch {
        ensure(error.code == .invalidParams, "\(type) refused with \(error.code)")
        ensure(error.message.hasPrefix("body"), "\(type) refused without its path: \(error.message)")
    }
}

@inline(__always)
private func ensure(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("signaling fuzz invariant: \(message())") }
}
