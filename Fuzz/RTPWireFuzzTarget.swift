// libFuzzer entry point for the RTPWire parsers. Fuzz/run.sh compiles it INTO the RTPWire module
// with Tests/RTPWireTests/RTPWireFuzzer.swift, which holds the invariants and says what they are;
// `make test` checks the same invariants on every seed in Fuzz/seeds/rtpwire.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RTPWireFuzzer.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
