// The invariants of the `stun` libFuzzer target (Fuzz/STUNFuzzTarget.swift): STUN and the ICE-lite
// agent, the first parser a stranger's datagram on a shared WebRTC port reaches, before
// MESSAGE-INTEGRITY is checked. `make test` checks them on every seed in Fuzz/seeds/stun
// (FuzzSeedTests), so they cannot drift from the code between campaigns; Fuzz/run.sh compiles this
// file INTO the ICE module (with -D FUZZ_TARGET, and OpenSSL for HMAC-SHA1), so internal API is in
// reach either way.
//
// Every input is parsed from an exactly sized copy; what parses is read in full and must describe its
// bytes. Then a fresh agent judges it: its state may move only with a success response, and a success
// only for a request with a valid FINGERPRINT and a valid MESSAGE-INTEGRITY under the agent's
// password. Broken invariants call `fatalError`, which libFuzzer records as a crash with the input.

#if !FUZZ_TARGET
    @testable import ICE
#endif

private let local = ICECredentials(usernameFragment: "lite", password: "abcdefghijklmnopqrstuvwx")
private let remote = ICECredentials(usernameFragment: "brws", password: "browser-password-unused!")

private struct Endpoint: Hashable {
    var address: UInt32
    var port: UInt16
}

enum STUNFuzzer {
    /// Checks one input; returns only when every invariant holds.
    static func check(_ input: UnsafeRawBufferPointer) {
        let size = input.count
        let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { exact.deallocate() }
        if size > 0, let base = exact.baseAddress { base.copyMemory(from: input.baseAddress!, byteCount: size) }
        let bytes = UnsafeRawBufferPointer(exact)
        var authentic = false
        do throws(STUNError) {
            let message = try STUNMessage(parsing: bytes)
            ensure(Int(bytes.uint16(at: 2)) == size - STUNMessage.headerByteCount, "length field")
            if let username = message.username {
                ensure(username.count <= STUNMessage.maximumUsernameByteCount, "USERNAME length")
                ensure(
                    username.baseAddress! >= bytes.baseAddress! && username.baseAddress! + username.count <= bytes.baseAddress! + size,
                    "USERNAME inside the message")
            }
            _ = (message.xorMappedIPv4, message.priority, message.iceControlling, message.iceControlled, message.errorCode)
            _ = (message.method, message.messageClass, message.hasUseCandidate, message.unknownComprehensionRequiredAttribute)
            authentic =
                message.isBindingRequest && message.hasValidFingerprint() && message.hasValidMessageIntegrity(key: Array(local.password.utf8))
        } catch {}

        var agent = ICELiteAgent<Endpoint>(local: local)
        agent.setRemote(remote)
        let source = Endpoint(address: 0xC0A8_0107, port: 61_234)
        let action = agent.handle(datagram: bytes, from: source, now: 1_000)
        let moved = agent.isVerified(source) || agent.nominated != nil
        ensure(moved == (action.response != nil), "the agent's state and its action disagree")
        ensure(!moved || authentic, "a request without a valid FINGERPRINT and MESSAGE-INTEGRITY changed the agent")
    }
}

@inline(__always)
private func ensure(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("STUN fuzz invariant: \(message())") }
}
