import AllocationCounter
import Glibc
import SRTP

// The loopback forwarding benchmark of the media plane (docs/benchmark.md): one publisher at a fixed
// rate of 1200-byte VP8 packets, fanned out to 20 subscribers over real UDP with real SRTP, for each
// profile; then the resident memory one consumer costs.
//
// Options: --window <seconds> (default 5), --skip-memory, --only <profile name>.

var timing = RunTiming()
var measureMemory = true
var onlyProfile: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--window":
        guard let value = arguments.next(), let seconds = Double(value), seconds > 0 else {
            fatalError("--window takes a number of seconds")
        }
        timing.windowNanoseconds = UInt64(seconds * 1e9)
    case "--skip-memory":
        measureMemory = false
    case "--only":
        onlyProfile = arguments.next()
    default:
        fatalError("unknown argument \(argument); expected --window <seconds>, --skip-memory or --only <profile>")
    }
}

raiseOpenFileLimit()

// The counter works only if the executable's malloc is the one the Swift runtime calls.
let allocationsBefore = allocation_counter_total()
UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16).deallocate()
guard allocation_counter_total() > allocationsBefore else {
    fatalError("the allocation counter is not interposed: malloc is not exported from the executable")
}

// Rates leave the single worker well under one core, so no queue builds up and the figure is the
// cost per packet, not a saturation point. Ceilings: the minimal C forwarder of BUILD-NOTES.
let cases = [
    ForwardingCase(profile: .aeadAES128GCM, packetsPerSecond: 5000, cForwarderCeiling: 193_000, portRange: 47_000...47_099),
    ForwardingCase(profile: .aesCM128HMACSHA1_80, packetsPerSecond: 2500, cForwarderCeiling: 70_000, portRange: 47_100...47_199),
].filter { onlyProfile == nil || $0.profile.rawValue == onlyProfile }

// Memory first, in a process whose heap holds nothing freed yet that the consumers could reuse.
let memoryLine = measureMemory ? try await ConsumerMemory.measure(count: 1000, portRange: 48_000...49_199) : nil

print("# libsrtp: \(SRTPLibrary.description)")
print(
    "# loopback forwarding: 1 publisher -> \(Forwarding.subscriberCount) subscribers, \(Forwarding.rtpPacketBytes)-byte VP8 RTP,"
        + " 1 worker; warm-up \(formatted(Double(timing.warmUpNanoseconds) / 1e9, decimals: 1)) s,"
        + " window \(formatted(Double(timing.windowNanoseconds) / 1e9, decimals: 1)) s")
for forwardingCase in cases {
    let libsrtp = try LibsrtpCost.measure(profile: forwardingCase.profile)
    let lines = try await Forwarding.run(forwardingCase, timing: timing, libsrtp: libsrtp)
    for line in lines { print(line) }
}
if let memoryLine { print(memoryLine) }
