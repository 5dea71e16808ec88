import AllocationCounter
import MediaControl
import MediaRouter
import RTPWire
import SRTP

/// One profile's forwarding case: what to send, how fast, and what to compare against.
struct ForwardingCase {
    let profile: SRTPProfile
    /// Source packets per second from the publisher; the media plane forwards `subscribers` times as many.
    var packetsPerSecond: Int
    /// Forwarded packets per CPU-second of the minimal C forwarder with the same libsrtp2 (BUILD-NOTES).
    let cForwarderCeiling: Double
    var portRange: ClosedRange<UInt16>
    /// Subscribers the publisher fans out to.
    var subscribers = Forwarding.subscriberCount
}

/// Timing of a run: warm-up, then the measured window, then a tail so the publisher is still sending
/// when the window closes.
struct RunTiming {
    var warmUpNanoseconds: UInt64 = 1_000_000_000
    var windowNanoseconds: UInt64 = 5_000_000_000
    var tailNanoseconds: UInt64 = 1_000_000_000
}

enum Forwarding {
    static let subscriberCount = 20
    /// A 1200-byte RTP packet: the 12-byte fixed header and 1188 bytes of VP8 payload.
    static let rtpPacketBytes = 1200
    static let videoSSRC: UInt32 = 0x5157_0001
    static let vp8 = CodecParameters(name: .vp8, payloadType: 96)
    static let packetsPerBurst = 5
    static let packetsPerFrame = 10

    /// A snapshot of every counter the figures are differences of.
    struct Snapshot {
        var processCPU: UInt64
        var loadGeneratorCPU: UInt64
        var harnessCPU: UInt64
        var allocations: UInt64
        var loadGeneratorAllocations: UInt64
        var harnessAllocations: UInt64
        var received: Int
        var rtcpReceived: Int
        var time: UInt64

        static func take(_ load: LoadGenerator) -> Snapshot {
            // Nothing here allocates, so the order of the reads does not matter to the counts.
            let allocations = allocation_counter_total()
            let harnessAllocations = allocation_counter_this_thread()
            let snapshot = Snapshot(
                processCPU: processCPUNanoseconds(),
                loadGeneratorCPU: load.cpuNanoseconds(), harnessCPU: currentThreadCPUNanoseconds(),
                allocations: allocations, loadGeneratorAllocations: load.allocations(),
                harnessAllocations: harnessAllocations, received: load.rtpReceived.load(ordering: .relaxed),
                rtcpReceived: load.rtcpReceived.load(ordering: .relaxed),
                time: monotonicNanoseconds())
            return snapshot
        }
    }

    /// What one run measured, for the lines that compare runs.
    struct Outcome {
        var lines: [String]
        var forwardedPerCPUSecond: Double
        var forwardingCPUSeconds: Double
        /// Source packets the producer received in the window, and relay messages the workers wrote.
        var sourcePackets: UInt64
        var relayMessages: UInt64
    }

    /// Runs one case, with or without segmented sends (UDP GSO), and with or without transport-wide
    /// numbering toward the subscribers (what a subscriber that sends transport-wide feedback costs
    /// per forwarded packet), with or without a simulcast producer (every consumer then takes the
    /// layered path: layer and temporal checks, PictureID rewriting, the NACK history), and returns
    /// its two output lines.
    /// `loop` is how the worker waits (the Dispatch source over epoll, or the epoll thread); with
    /// `spread` the case's subscribers are divided over that many workers (the router's home takes
    /// the first half, the others the rest, each fed once per packet through a relay ring).
    static func run(
        _ forwardingCase: ForwardingCase, udpSegmentation: Bool, transportWide: Bool = false, layered: Bool = false,
        loop: WorkerLoop = MediaRouterConfiguration().workerLoop, spread workerCount: Int? = nil, timing: RunTiming, libsrtp: LibsrtpCost
    ) async throws -> Outcome {
        let profile = forwardingCase.profile
        let subscriberCount = forwardingCase.subscribers
        let plane = try MediaPlane(
            configuration: MediaRouterConfiguration(
                workerCount: workerCount ?? 1, listenAddress: "127.0.0.1", portRange: forwardingCase.portRange, udpSegmentation: udpSegmentation,
                workerLoop: loop, spreadThreshold: workerCount.map { subscriberCount / $0 } ?? 0))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()

        let publisherKeys = SRTPKeyMaterial.random(profile: profile)
        let publisherTransport = try await plane.createPlainTransport(
            router: router,
            options: PlainTransportOptions(
                clientSRTP: SRTPParameters(profile: profile.rawValue, keyParameter: publisherKeys.sdesKeyParameter),
                routerProfile: profile.rawValue))
        let producerOptions =
            layered
            ? ProducerOptions(codec: vp8, layers: [VideoLayer(ssrc: videoSSRC, width: 1280, height: 720, frameRate: 30)])
            : ProducerOptions(codec: vp8, ssrc: videoSSRC)
        let producer = try await plane.produce(transport: publisherTransport.transportID, options: producerOptions)

        var subscriberSockets: [Int32] = []
        for _ in 0..<subscriberCount {
            let (descriptor, port) = makeLoopbackSocket()
            subscriberSockets.append(descriptor)
            let keys = SRTPKeyMaterial.random(profile: profile)
            let transport = try await plane.createPlainTransport(
                router: router,
                options: PlainTransportOptions(
                    remoteAddress: TransportAddress(host: "127.0.0.1", port: port),
                    clientSRTP: SRTPParameters(profile: profile.rawValue, keyParameter: keys.sdesKeyParameter),
                    routerProfile: profile.rawValue, transportWideSequenceID: transportWide ? 5 : nil),
                toConsume: [producer])
            _ = try await plane.consume(transport: transport.transportID, producer: producer, pauseReasons: [])
        }

        // Every packet the publisher will send, protected before any timing starts.
        let totalNanoseconds = timing.warmUpNanoseconds + timing.windowNanoseconds + timing.tailNanoseconds
        let packetCount = Int(UInt64(forwardingCase.packetsPerSecond) * totalNanoseconds / 1_000_000_000)
        precondition(packetCount < 65_536, "sequence numbers must stay distinct: lower the rate or the duration")
        let (packets, lengths) = try protectPackets(count: packetCount, keys: publisherKeys)

        let (publisherSocket, _) = makeLoopbackSocket()
        connectLoopback(publisherSocket, port: publisherTransport.localAddress.port)
        let load = LoadGenerator(
            publisherSocket: publisherSocket, subscriberSockets: subscriberSockets, packets: packets, lengths: lengths,
            packetCount: packetCount, packetsPerSecond: forwardingCase.packetsPerSecond, packetsPerBurst: packetsPerBurst)
        load.start()
        defer { load.stop() }

        // The window opens and closes in the idle gap before a burst, so the consumers' packet counts
        // (read through the worker) and the CPU and allocation counters (read here) cover the same bursts.
        let lead = min(load.burstPeriod / 4, 250_000)
        sleepNanoseconds(timing.warmUpNanoseconds)
        load.sleepUntilBeforeNextBurst(lead: lead)
        let statisticsBefore = try await plane.statistics(router: router)
        let planeBefore = await plane.planeStatistics()
        let before = Snapshot.take(load)
        sleepNanoseconds(timing.windowNanoseconds - load.burstPeriod)
        load.sleepUntilBeforeNextBurst(lead: lead)
        let after = Snapshot.take(load)
        let statisticsAfter = try await plane.statistics(router: router)
        let planeAfter = await plane.planeStatistics()

        // Let the publisher finish and the subscribers drain, then count the whole run's losses.
        while !load.publisherFinished.load(ordering: .acquiring) { sleepNanoseconds(10_000_000) }
        sleepNanoseconds(300_000_000)
        let statisticsEnd = try await plane.statistics(router: router)
        let published = load.packetsSent.load(ordering: .acquiring)
        let sendFailures = load.sendFailures.load(ordering: .acquiring)
        let received = load.rtpReceived.load(ordering: .acquiring)
        load.stop()

        func sent(_ statistics: RouterStatistics) -> UInt64 { statistics.consumers.reduce(0) { $0 + $1.packetsSent } }
        let forwarded = sent(statisticsAfter) - sent(statisticsBefore)
        let windowSeconds = Double(after.time - before.time) / 1e9
        let processCPU = after.processCPU - before.processCPU
        let loadGeneratorCPU = after.loadGeneratorCPU - before.loadGeneratorCPU
        let harnessCPU = after.harnessCPU - before.harnessCPU
        let forwardingCPU = processCPU - loadGeneratorCPU - harnessCPU
        let forwardingCPUSeconds = Double(forwardingCPU) / 1e9
        let perCPUSecond = Double(forwarded) / forwardingCPUSeconds

        let allocations = Double(
            (after.allocations - before.allocations) - (after.loadGeneratorAllocations - before.loadGeneratorAllocations)
                - (after.harnessAllocations - before.harnessAllocations))
        let allocationsPerPacket = allocations / Double(forwarded)
        let libsrtpPerPacket = libsrtp.allocationsPerForwardedPacket(fanOut: subscriberCount)
        // The timer path protects one SRTCP sender report per consumer per second; libsrtp2 allocates for
        // those as for RTP (the subscribers' receive count of RTCP tells how many went out in the window).
        let senderReports = after.rtcpReceived - before.rtcpReceived
        let senderReportAllocationsPerPacket = Double(senderReports) * libsrtp.protectAllocations / Double(forwarded)
        let nanosecondsPerPacket = forwardingCPUSeconds * 1e9 / Double(forwarded)
        let libsrtpNanoseconds = libsrtp.nanosecondsPerForwardedPacket(fanOut: subscriberCount)

        let producerReceived = statisticsEnd.producers.first?.packetsReceived ?? 0
        let totalForwarded = sent(statisticsEnd)
        let drops = statisticsEnd.drops.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            .map { "\($0.key):\($0.value)" }.joined(separator: ",")

        var lines: [String] = []
        var name =
            layered ? "forward_simulcast" : transportWide ? "forward_transport_wide" : udpSegmentation ? "forward" : "forward_without_segmentation"
        // The daemon's default loop keeps the plain names; the others are named after their loop.
        if loop != MediaRouterConfiguration().workerLoop {
            name = "forward_" + loop.rawValue.replacing("-", with: "_") + name.dropFirst("forward".count)
        }
        if let workerCount { name = "forward_spread_workers_\(workerCount)" }
        let sourcePackets = (statisticsAfter.producers.first?.packetsReceived ?? 0) - (statisticsBefore.producers.first?.packetsReceived ?? 0)
        let relayMessages = zip(planeAfter.workerDetails, planeBefore.workerDetails).reduce(UInt64(0)) {
            $0 + $1.0.relayMessagesOut - $1.1.relayMessagesOut
        }
        let busyShares = zip(planeAfter.workerDetails, planeBefore.workerDetails).map {
            formatted(Double($0.0.busyNanoseconds - $0.1.busyNanoseconds) / Double(after.time - before.time), decimals: 2)
        }
        lines.append(
            "\(name) \(profile.rawValue) subscribers=\(subscriberCount) forwarded_pps_per_cpu_second=\(Int(perCPUSecond.rounded()))"
                + " loop=\(loop.rawValue) workers=\(planeAfter.workers) worker_busy_shares=[\(busyShares.joined(separator: ","))]"
                + " worker_consumers=[\(planeAfter.workerDetails.map { String($0.consumers) }.joined(separator: ","))]"
                + " relay_messages=\(relayMessages) relay_drops=\(planeAfter.workerDetails.reduce(0) { $0 + $1.relayDrops })")
        lines.append(
            "  ratio_to_c_ceiling=\(formatted(perCPUSecond / forwardingCase.cForwarderCeiling, decimals: 3))"
                + " (C ceiling \(Int(forwardingCase.cForwarderCeiling)))"
                + " source_pps=\(forwardingCase.packetsPerSecond) window_s=\(formatted(windowSeconds, decimals: 2))"
                + " forwarded=\(forwarded) received_in_window=\(after.received - before.received)"
                + " forwarding_cpu_s=\(formatted(forwardingCPUSeconds, decimals: 3))"
                + " (process \(formatted(Double(processCPU) / 1e9, decimals: 3))"
                + " minus load generator \(formatted(Double(loadGeneratorCPU) / 1e9, decimals: 3)), harness \(formatted(Double(harnessCPU) / 1e9, decimals: 3)))"
                + " worker_cpu_share=\(formatted(forwardingCPUSeconds / windowSeconds, decimals: 2))"
                + " us_per_forwarded_packet=\(formatted(nanosecondsPerPacket / 1000, decimals: 2))"
                + " (libsrtp2 alone: protect \(formatted(libsrtp.protectNanoseconds / 1000, decimals: 2)) us"
                + " + unprotect \(formatted(libsrtp.unprotectNanoseconds / 1000, decimals: 2)) us / \(subscriberCount)"
                + " = \(formatted(libsrtpNanoseconds / 1000, decimals: 2)) us,"
                + " \(Int((100 * libsrtpNanoseconds / nanosecondsPerPacket).rounded()))%)"
                + " allocations_per_forwarded_packet=\(formatted(allocationsPerPacket, decimals: 3))"
                + " (libsrtp2 accounts for \(formatted(libsrtpPerPacket, decimals: 3)) per packet:"
                + " \(formatted(libsrtp.protectAllocations, decimals: 2)) per protect"
                + " + \(formatted(libsrtp.unprotectAllocations, decimals: 2)) per unprotect / \(subscriberCount))"
                + " sender_reports_in_window=\(senderReports) (libsrtp2: \(formatted(senderReportAllocationsPerPacket, decimals: 3)) per packet)"
                + " switchyard_only_allocations_per_forwarded_packet=\(formatted(allocationsPerPacket - libsrtpPerPacket - senderReportAllocationsPerPacket, decimals: 3))"
                + " (\(Int((allocations - (libsrtpPerPacket + senderReportAllocationsPerPacket) * Double(forwarded)).rounded())) of \(Int(allocations)) allocations in the window)"
                + " run: published=\(published) send_failures=\(sendFailures) producer_received=\(producerReceived)"
                + " forwarded=\(totalForwarded) subscribers_received=\(received)"
                + " loss=\(Int(published) - Int(producerReceived) + Int(totalForwarded) - received)"
                + " drops=[\(drops)]")
        return Outcome(
            lines: lines, forwardedPerCPUSecond: perCPUSecond, forwardingCPUSeconds: forwardingCPUSeconds, sourcePackets: sourcePackets,
            relayMessages: relayMessages)
    }

    /// `count` 1200-byte VP8 packets (a key frame first, then delta frames; ten packets a frame, 90 kHz
    /// timestamps at 30 frames a second), protected by the publisher's outbound session, one per 64-byte
    /// aligned slot of `LoadGenerator.packetStride` bytes.
    static func protectPackets(count: Int, keys: SRTPKeyMaterial) throws -> (UnsafeMutableRawPointer, UnsafeMutablePointer<Int>) {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: count * LoadGenerator.packetStride, alignment: 64)
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let session = try SRTPSession(keyMaterial: keys, direction: .outbound)
        let payload = UnsafeMutableRawBufferPointer.allocate(
            byteCount: rtpPacketBytes - RTPPacket.fixedHeaderLength, alignment: 16)
        defer { payload.deallocate() }
        for index in 0..<payload.count { payload[index] = UInt8(truncatingIfNeeded: index &* 7) }
        for index in 0..<count {
            // VP8 payload descriptor: S=1, partition 0; payload header P bit 0 for a key frame.
            payload[0] = 0x10
            payload[1] = index == 0 ? 0x00 : 0x01
            let slot = UnsafeMutableRawBufferPointer(
                start: storage + index * LoadGenerator.packetStride, count: LoadGenerator.packetStride)
            let frame = index / packetsPerFrame
            let packet = try RTPPacket(
                writingInto: slot, payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: 1000 + index),
                timestamp: UInt32(truncatingIfNeeded: 3000 * frame), ssrc: videoSSRC,
                marker: index % packetsPerFrame == packetsPerFrame - 1, payload: UnsafeRawBufferPointer(payload))
            lengths[index] = try session.protectRTP(slot, length: packet.length)
        }
        return (storage, lengths)
    }
}

/// What the linked libsrtp2 costs per packet on its own, measured on the
/// calling thread over a loop of protect and unprotect calls of 1200-byte packets: allocations, and
/// time per call (the bulk of the media plane's work, for scale).
struct LibsrtpCost {
    var protectAllocations: Double
    var unprotectAllocations: Double
    var protectNanoseconds: Double
    var unprotectNanoseconds: Double

    /// The media plane unprotects each source packet once and protects it once per subscriber.
    func allocationsPerForwardedPacket(fanOut: Int) -> Double {
        protectAllocations + unprotectAllocations / Double(fanOut)
    }

    func nanosecondsPerForwardedPacket(fanOut: Int) -> Double {
        protectNanoseconds + unprotectNanoseconds / Double(fanOut)
    }

    static func measure(profile: SRTPProfile, packets: Int = 1000) throws -> LibsrtpCost {
        let keys = SRTPKeyMaterial.random(profile: profile)
        let outbound = try SRTPSession(keyMaterial: keys, direction: .outbound)
        let inbound = try SRTPSession(keyMaterial: keys, direction: .inbound)
        let stride = LoadGenerator.packetStride
        let storage = UnsafeMutableRawPointer.allocate(byteCount: (packets + 1) * stride, alignment: 64)
        defer { storage.deallocate() }
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: packets + 1)
        defer { lengths.deallocate() }
        let payload = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Forwarding.rtpPacketBytes - RTPPacket.fixedHeaderLength, alignment: 16)
        defer { payload.deallocate() }
        payload.initializeMemory(as: UInt8.self, repeating: 0x5A)
        func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
            UnsafeMutableRawBufferPointer(start: storage + index * stride, count: stride)
        }
        for index in 0...packets {
            lengths[index] = try RTPPacket(
                writingInto: slot(index), payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(index) * 3000,
                ssrc: 0x0102_0304, payload: UnsafeRawBufferPointer(payload)
            ).length
        }
        // Packet 0 creates the SSRC's stream in each session (a one-time clone); it is not counted.
        lengths[0] = try outbound.protectRTP(slot(0), length: lengths[0])
        _ = try inbound.unprotectRTP(slot(0), length: lengths[0])
        // Each loop is timed as a whole: the thread CPU clock is a system call, too slow to read per packet.
        let protectStart = (currentThreadCPUNanoseconds(), allocation_counter_this_thread())
        for index in 1...packets { lengths[index] = try outbound.protectRTP(slot(index), length: lengths[index]) }
        let protectEnd = (currentThreadCPUNanoseconds(), allocation_counter_this_thread())
        for index in 1...packets { _ = try inbound.unprotectRTP(slot(index), length: lengths[index]) }
        let unprotectEnd = (currentThreadCPUNanoseconds(), allocation_counter_this_thread())
        let count = Double(packets)
        return LibsrtpCost(
            protectAllocations: Double(protectEnd.1 - protectStart.1) / count,
            unprotectAllocations: Double(unprotectEnd.1 - protectEnd.1) / count,
            protectNanoseconds: Double(protectEnd.0 - protectStart.0) / count,
            unprotectNanoseconds: Double(unprotectEnd.0 - protectEnd.0) / count)
    }
}
