// libFuzzer entry point for what the signaling decodes from a client before any field is checked:
// every WebSocket message (the envelope and each method's params) and every REST body.
//
// Fuzz/run.sh compiles this file INTO the SignalingProtocol module, so internal API is in reach.
// Each input goes through ClientMessage.decode and through the decoding of each REST body. A message
// that decodes must encode to a text that decodes to the same message; one that does not is refused
// with a decoding error in the documented form (invalidParams names a path under params, an id is
// echoed only when the text's id is that integer). A REST body decodes and round-trips the same
// way, or is refused as invalidParams with a path under body. Broken invariants call `fatalError`,
// which libFuzzer records as a crash with the input.

import Foundation

private let decodingErrors: Set<SignalingErrorCode> = [.malformedMessage, .unsupportedVersion, .unknownMethod, .invalidParams]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    switch ClientMessage.decode(bytes) {
    case .success(let message):
        check(ClientMessage.decode(message.encoded()) == .success(message), "a decoded message does not survive its round trip")
    case .failure(let rejection):
        check(decodingErrors.contains(rejection.error.code), "refused with \(rejection.error.code)")
        if rejection.error.code == .invalidParams {
            check(rejection.error.message.hasPrefix("params"), "invalidParams without its path: \(rejection.error.message)")
        }
        if let id = rejection.id {
            let object = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) as? [String: Any]
            let written = object?["id"] as? NSNumber
            check(written?.doubleValue == Double(id), "echoed id \(id) is not the message's id \(String(describing: written))")
        }
    }
    checkBody(RESTBody.CreateSession.self, bytes)
    checkBody(RESTBody.Signal.self, bytes)
    checkBody(RESTBody.Fault.self, bytes)
    return 0
}

private func checkBody<Body: Codable & Equatable>(_ type: Body.Type, _ bytes: Data) {
    do throws(SignalingError) {
        let body = try RESTBody.decode(type, from: bytes)
        let again = try RESTBody.decode(type, from: try! JSONEncoder().encode(body))
        check(again == body, "a decoded \(type) does not survive its round trip")
    } catch {
        check(error.code == .invalidParams, "\(type) refused with \(error.code)")
        check(error.message.hasPrefix("body"), "\(type) refused without its path: \(error.message)")
    }
}

@inline(__always)
private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("signaling fuzz invariant: \(message())") }
}
