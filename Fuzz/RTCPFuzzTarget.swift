// libFuzzer entry point for the RTCP the media plane acts on. Fuzz/run.sh compiles it INTO the
// MediaRouter module with Tests/MediaRouterTests/RTCPFuzzer.swift, which holds the invariants and says
// what they are; `make test` checks the same invariants on every seed in Fuzz/seeds/rtcp.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RTCPFuzzer.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
