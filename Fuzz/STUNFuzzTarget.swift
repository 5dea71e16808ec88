// libFuzzer entry point for STUN and the ICE-lite agent. Fuzz/run.sh compiles it INTO the ICE module
// with Tests/ICETests/STUNFuzzer.swift, which holds the invariants and says what they are; `make test`
// checks the same invariants on every seed in Fuzz/seeds/stun.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    STUNFuzzer.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
