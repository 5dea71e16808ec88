// libFuzzer entry point for the client protocol's decoding. Fuzz/run.sh compiles it INTO the
// SignalingProtocol module with Tests/SignalingProtocolTests/SignalingFuzzer.swift, which holds the
// invariants and says what they are; `make test` checks the same invariants on every seed in
// Fuzz/seeds/signaling.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    SignalingFuzzer.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
