import AllocationCounter
import Glibc
import MediaRouter
import SRTP

// The loopback forwarding benchmark of the media plane (docs/benchmark.md): one publisher at a fixed
// rate of 1200-byte VP8 packets, fanned out to 20 subscribers over real UDP with real SRTP, for each
// profile; then the resident memory one consumer costs.
//
// Each profile runs four times: with segmented sends (UDP GSO, the daemon's default; the `forward`
// line), without (`forward_without_segmentation`), segmented with every packet to the subscribers
// given a transport-wide sequence number and its send recorded (`forward_transport_wide`, compared with
// the first in `compare_transport_wide`), and segmented from a simulcast producer, so every consumer
// takes the layered path (`forward_simulcast`, compared in `compare_simulcast`). With --c-reference <path>, the minimal C forwarder built
// against the same libsrtp2 runs right after, for a ratio measured in the same sitting.
//
// Each profile also runs segmented and unsegmented with the worker on its own epoll thread instead of
// the Dispatch source (`forward_epoll*`, compared in `compare_loop`), and one publisher fanned out to
// 200 subscribers on one worker and spread over two (`forward_spread_workers_*`, compared in
// `compare_spread` with the cost of a packet's hop between workers).
//
// Options: --window <seconds> (default 5), --skip-memory, --only <profile name>, --c-reference <path>,
// --only-loop and --only-spread (just those comparisons), --loops <list> (the loops compared, in that
// order), --spread-loop <loop> (the workers of the spread runs; the daemon's default by default).

var timing = RunTiming()
var measureMemory = true
var onlyProfile: String?
var cReferencePath: String?
var onlyLoop = false
var spreadLoop = MediaRouterConfiguration().workerLoop
var loopOrder: [WorkerLoop] = [.dispatch, .epoll, .dispatchWait]
var onlySpread = false
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
    case "--c-reference":
        cReferencePath = arguments.next()
    case "--only-loop":
        onlyLoop = true
    case "--only-spread":
        onlySpread = true
    case "--loops":
        guard let value = arguments.next() else { fatalError("--loops takes a comma-separated list of dispatch, epoll, dispatch-wait") }
        loopOrder = value.split(separator: ",").map { name in
            guard let loop = WorkerLoop(rawValue: String(name)) else { fatalError("--loops: unknown loop \(name)") }
            return loop
        }
    case "--spread-loop":
        guard let value = arguments.next(), let loop = WorkerLoop(rawValue: value) else { fatalError("--spread-loop takes dispatch or epoll") }
        spreadLoop = loop
    default:
        fatalError(
            "unknown argument \(argument); expected --window <seconds>, --skip-memory, --only <profile>, --c-reference <path>, --only-loop, --only-spread, --loops <list> or --spread-loop <loop>")
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
// cost per packet, not a saturation point. Ceilings: the minimal C forwarder of BUILD-NOTES with the
// same libsrtp2 build (Debian's, or built against OpenSSL).
let openSSLBuild = SRTPLibrary.build != "system"
let cases = [
    ForwardingCase(
        profile: .aeadAES128GCM, packetsPerSecond: 5000, cForwarderCeiling: openSSLBuild ? 225_000 : 193_000,
        portRange: 47_000...47_099),
    ForwardingCase(
        profile: .aesCM128HMACSHA1_80, packetsPerSecond: 2500, cForwarderCeiling: openSSLBuild ? 149_000 : 70_000,
        portRange: 47_100...47_199),
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
    if !onlySpread {
        // Each loop segmented then unsegmented, in the order asked (the order moves figures on this
        // machine, so sittings should vary it), then each compared with the epoll thread.
        var outcomes: [WorkerLoop: (segmented: Forwarding.Outcome, unsegmented: Forwarding.Outcome)] = [:]
        for loop in loopOrder {
            let segmented = try await Forwarding.run(forwardingCase, udpSegmentation: true, loop: loop, timing: timing, libsrtp: libsrtp)
            let unsegmented = try await Forwarding.run(forwardingCase, udpSegmentation: false, loop: loop, timing: timing, libsrtp: libsrtp)
            for line in segmented.lines + unsegmented.lines { print(line) }
            outcomes[loop] = (segmented, unsegmented)
        }
        if let epoll = outcomes[.epoll] {
            var line = "compare_loop \(forwardingCase.profile.rawValue) order=\(loopOrder.map(\.rawValue).joined(separator: ","))"
            for loop in loopOrder where loop != .epoll {
                let other = outcomes[loop]!
                let name = loop.rawValue.replacing("-", with: "_")
                line += " \(name)_over_epoll=\(formatted(other.segmented.forwardedPerCPUSecond / epoll.segmented.forwardedPerCPUSecond, decimals: 3))"
                line += " without_segmentation=\(formatted(other.unsegmented.forwardedPerCPUSecond / epoll.unsegmented.forwardedPerCPUSecond, decimals: 3))"
            }
            print(line)
        }
    }
    if !onlyLoop {
        // Ten times the subscribers at a tenth of the rate: the same forwarded packets per second.
        var wide = forwardingCase
        wide.subscribers = 200
        wide.packetsPerSecond = forwardingCase.packetsPerSecond / 10
        wide.portRange = forwardingCase.portRange.lowerBound + 200...forwardingCase.portRange.lowerBound + 499
        let one = try await Forwarding.run(wide, udpSegmentation: true, loop: spreadLoop, spread: 1, timing: timing, libsrtp: libsrtp)
        let two = try await Forwarding.run(wide, udpSegmentation: true, loop: spreadLoop, spread: 2, timing: timing, libsrtp: libsrtp)
        for line in one.lines + two.lines { print(line) }
        print(
            "compare_spread \(forwardingCase.profile.rawValue) subscribers=200"
                + " two_workers_over_one=\(formatted(two.forwardedPerCPUSecond / one.forwardedPerCPUSecond, decimals: 3))")
        // The hop alone: 1 -> 2 at the case's rate, both subscribers on one worker, then one on each
        // (every packet relayed once): the extra CPU per relayed packet is the cross-worker cost.
        var pair = forwardingCase
        pair.subscribers = 2
        pair.portRange = forwardingCase.portRange.lowerBound + 500...forwardingCase.portRange.lowerBound + 509
        let together = try await Forwarding.run(pair, udpSegmentation: true, loop: spreadLoop, spread: 1, timing: timing, libsrtp: libsrtp)
        let apart = try await Forwarding.run(pair, udpSegmentation: true, loop: spreadLoop, spread: 2, timing: timing, libsrtp: libsrtp)
        for line in together.lines.prefix(1) + apart.lines.prefix(1) { print(line) }
        let perSource = { (outcome: Forwarding.Outcome) in outcome.forwardingCPUSeconds / Double(max(1, outcome.sourcePackets)) }
        let hop = (perSource(apart) - perSource(together)) * Double(apart.sourcePackets) / Double(max(1, apart.relayMessages))
        print(
            "compare_hop \(forwardingCase.profile.rawValue) hop_us_per_relayed_packet=\(formatted(hop * 1e6, decimals: 2))"
                + " us_per_source_packet_one_worker=\(formatted(perSource(together) * 1e6, decimals: 2))"
                + " two_workers=\(formatted(perSource(apart) * 1e6, decimals: 2)) relayed=\(apart.relayMessages)")
    }
    if onlyLoop || onlySpread { continue }
    let segmented = try await Forwarding.run(forwardingCase, udpSegmentation: true, timing: timing, libsrtp: libsrtp)
    for line in segmented.lines { print(line) }
    let unsegmented = try await Forwarding.run(forwardingCase, udpSegmentation: false, timing: timing, libsrtp: libsrtp)
    for line in unsegmented.lines { print(line) }
    let numbered = try await Forwarding.run(forwardingCase, udpSegmentation: true, transportWide: true, timing: timing, libsrtp: libsrtp)
    for line in numbered.lines { print(line) }
    print(
        "compare_transport_wide \(forwardingCase.profile.rawValue)"
            + " ratio=\(formatted(numbered.forwardedPerCPUSecond / segmented.forwardedPerCPUSecond, decimals: 3))")
    let layered = try await Forwarding.run(forwardingCase, udpSegmentation: true, layered: true, timing: timing, libsrtp: libsrtp)
    for line in layered.lines { print(line) }
    print(
        "compare_simulcast \(forwardingCase.profile.rawValue)"
            + " ratio=\(formatted(layered.forwardedPerCPUSecond / segmented.forwardedPerCPUSecond, decimals: 3))")
    if let cReferencePath {
        let reference = try CReference.run(path: cReferencePath, profile: forwardingCase.profile, timing: timing)
        print(
            "compare \(forwardingCase.profile.rawValue) c_reference_same_run=\(Int(reference.rounded()))"
                + " ratio=\(formatted(segmented.forwardedPerCPUSecond / reference, decimals: 3))"
                + " ratio_without_segmentation=\(formatted(unsegmented.forwardedPerCPUSecond / reference, decimals: 3))")
    }
}
if let memoryLine { print(memoryLine) }
