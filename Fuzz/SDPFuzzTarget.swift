// libFuzzer entry point for SDP. Fuzz/run.sh compiles it INTO the SessionDescription module with
// Tests/SessionDescriptionTests/SDPFuzzer.swift, which holds the invariants and says what they are;
// `make test` checks the same invariants on every seed in Fuzz/seeds/sdp.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    SDPFuzzer.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
