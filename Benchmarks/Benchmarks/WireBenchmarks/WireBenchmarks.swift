import Benchmark
import Quality
import RTPWire
import SRTP

/// Packets per measured sample: one closure call handles this many, so per-packet figures are the
/// reported time divided by 1000 (the `.kilo` scaling prints them per packet directly).
private let packetsPerSample = 1000

private let extensionIDs = (mid: UInt8(1), absoluteSendTime: UInt8(2), transportSequence: UInt8(3), audioLevel: UInt8(4))

/// A 1200-byte video packet with mid, abs-send-time and transport-wide sequence number extensions, in
/// an aligned buffer with tail room, as a worker's receive slot holds it.
private func makeVideoPacket(into storage: UnsafeMutableRawBufferPointer) -> Int {
    let payload = [UInt8](repeating: 0x5A, count: 1200 - 12 - 16)
    var packet = payload.withUnsafeBytes { payloadBytes in
        try! RTPPacket(
            writingInto: storage, payloadType: 96, sequenceNumber: 1, timestamp: 90_000, ssrc: 0x1111_2222,
            payload: payloadBytes)
    }
    try! packet.setMid("0", id: extensionIDs.mid)
    try! packet.setAbsoluteSendTime(AbsoluteSendTime(value: 0x12_3456), id: extensionIDs.absoluteSendTime)
    try! packet.setTransportSequenceNumber(7, id: extensionIDs.transportSequence)
    return packet.length
}

/// Writes a plain RTP packet of `length` bytes in place, without allocating, as a receive slot holds one.
private func makePlainPacket(length: Int, sequenceNumber: UInt16, into storage: UnsafeMutableRawBufferPointer) {
    var packet = try! RTPPacket(
        writingInto: storage, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: 3000, ssrc: 0x3333_4444,
        payload: UnsafeRawBufferPointer(start: nil, count: 0))
    try! packet.setPayloadLength(length - RTPPacket.fixedHeaderLength)
    packet.payload.initializeMemory(as: UInt8.self, repeating: 0xA5)
}

/// An Opus packet as Chromium sends it with RED (RFC 2198): two earlier 100-byte frames ahead of the
/// 100-byte primary, with abs-send-time; returns its length.
private func makeRedundantAudioPacket(into storage: UnsafeMutableRawBufferPointer) -> Int {
    let frame = [UInt8](repeating: 0x3C, count: 100)
    var payload = [UInt8](repeating: 0, count: 400)
    let written = frame.withUnsafeBytes { bytes in
        payload.withUnsafeMutableBytes { destination in
            try! RedundantAudioPayload.write(primary: bytes, redundant: [(bytes, 1_920), (bytes, 960)], payloadType: 111, into: destination)
        }
    }
    var packet = payload.prefix(written).withUnsafeBytes { bytes in
        try! RTPPacket(writingInto: storage, payloadType: 63, sequenceNumber: 1, timestamp: 48_000, ssrc: 0x5555_6666, payload: bytes)
    }
    try! packet.setAbsoluteSendTime(AbsoluteSendTime(value: 0x12_3456), id: extensionIDs.absoluteSendTime)
    return packet.length
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )

    Benchmark("RTP parse + rewrite, 1200 bytes with 3 extensions") { benchmark in
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { storage.deallocate() }
        let length = makeVideoPacket(into: storage)
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            let packet = try! RTPPacket(parsing: storage, length: length)
            packet.ssrc = 0xAAAA_BBBB
            packet.sequenceNumber = UInt16(truncatingIfNeeded: index)
            packet.timestamp &+= 3000
            packet.payloadType = 100
            let transportSequence = packet.transportSequenceNumber(id: extensionIDs.transportSequence) ?? 0
            packet.extensionElement(id: extensionIDs.transportSequence)?.storeBytes(
                of: (transportSequence &+ 1).bigEndian, as: UInt16.self)
            blackHole(packet.absoluteSendTime(id: extensionIDs.absoluteSendTime))
        }
        benchmark.stopMeasurement()
    }

    // What a consumer does with a RED packet for a subscriber without RED, against what it does for
    // one with RED: copy into the send slot and relabel, plus (stripping) reading the RFC 2198
    // headers and moving the primary frame up. The producer reads the headers once per packet; the
    // consumer repeats nothing but the move.
    for strips in [false, true] {
        Benchmark("RED to a subscriber, \(strips ? "stripped to the primary frame" : "forwarded whole"), 320-byte packet") { benchmark in
            let received = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
            let slot = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
            defer {
                received.deallocate()
                slot.deallocate()
            }
            let length = makeRedundantAudioPacket(into: received)
            let packet = try! RTPPacket(parsing: received, length: length)
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations {
                var copy = packet.copy(into: slot)!
                copy.sequenceNumber = UInt16(truncatingIfNeeded: index)
                if strips {
                    let primary = try! RedundantAudioPayload(parsing: UnsafeRawBufferPointer(copy.payload)).primary
                    try! copy.removeLeadingPayloadBytes(primary.range.lowerBound)
                    copy.payloadType = primary.payloadType
                } else {
                    copy.payloadType = 100
                }
                blackHole(copy.length)
            }
            benchmark.stopMeasurement()
        }
    }

    // One subscriber's receiver report: the estimator takes the sample, the policy evaluates it. The
    // loss alternates so the policy keeps moving through its states rather than idling in one.
    Benchmark("Quality: record sample + evaluate policy, per report") { benchmark in
        var monitor = LinkMonitor(configuration: AudioFallbackConfiguration())
        _ = monitor.setEnabled(true)
        var now: UInt64 = 0
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            now &+= 500_000_000
            let lost = (index / 40) % 2 == 0 ? 0 : 25
            let sample = QualitySample(
                intervalSeconds: 0.5, packetsExpected: 75, packetsLost: lost, bytes: 40_000, jitterSeconds: 0.004,
                roundTripSeconds: 0.05)
            blackHole(monitor.record(sample, now: now))
        }
        benchmark.stopMeasurement()
    }

    for profile in SRTPProfile.allCases {
        for size in [200, 1200] {
            let protectKeys = SRTPKeyMaterial.random(profile: profile)
            let sender = try! SRTPSession(keyMaterial: protectKeys, direction: .outbound)
            Benchmark("SRTP protect \(profile.rawValue) \(size) bytes") { benchmark in
                let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
                defer { storage.deallocate() }
                var sequenceNumber: UInt16 = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    sequenceNumber &+= 1
                    makePlainPacket(length: size, sequenceNumber: sequenceNumber, into: storage)
                    blackHole(try! sender.protectRTP(storage, length: size))
                }
                benchmark.stopMeasurement()
            }

            Benchmark("SRTP unprotect \(profile.rawValue) \(size) bytes") { benchmark in
                let keys = SRTPKeyMaterial.random(profile: profile)
                let sender = try! SRTPSession(keyMaterial: keys, direction: .outbound)
                let receiver = try! SRTPSession(keyMaterial: keys, direction: .inbound)
                let count = benchmark.scaledIterations.count
                let stride = 1536
                let packets = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * count, alignment: 16)
                defer { packets.deallocate() }
                var lengths = [Int](repeating: 0, count: count)
                for index in 0..<count {
                    let slot = UnsafeMutableRawBufferPointer(rebasing: packets[(index * stride)..<((index + 1) * stride)])
                    makePlainPacket(length: size, sequenceNumber: UInt16(truncatingIfNeeded: index), into: slot)
                    lengths[index] = try! sender.protectRTP(slot, length: size)
                }
                benchmark.startMeasurement()
                for index in 0..<count {
                    let slot = UnsafeMutableRawBufferPointer(rebasing: packets[(index * stride)..<((index + 1) * stride)])
                    blackHole(try! receiver.unprotectRTP(slot, length: lengths[index]))
                }
                benchmark.stopMeasurement()
            }
        }
    }
}
