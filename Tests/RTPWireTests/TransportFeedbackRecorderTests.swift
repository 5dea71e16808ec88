import Testing

@testable import RTPWire

/// Transport-wide feedback about what arrived: what the router sends a publisher, and a
/// `SwitchyardClient` subscriber the router.
@Suite struct TransportFeedbackRecorderTests {
    static let millisecond: UInt64 = 1_000_000

    /// Records packets numbered `numbers` at `times` (milliseconds).
    static func record(_ recorder: inout TransportFeedbackRecorder, _ arrivals: [(UInt16, Double)]) throws {
        var storage = [UInt8](repeating: 0, count: 256)
        try storage.withUnsafeMutableBytes { buffer in
            for (number, milliseconds) in arrivals {
                let payload = [UInt8](repeating: 1, count: 20)
                var packet = try payload.withUnsafeBytes { bytes in
                    try RTPPacket(writingInto: buffer, payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 0x1234, payload: bytes)
                }
                try packet.setTransportSequenceNumber(number, id: recorder.extensionID)
                recorder.record(packet, now: UInt64(milliseconds * 1e6))
            }
        }
    }

    /// The report due at `now`, parsed back: base, and per packet its sequence number and arrival in µs.
    static func report(_ recorder: inout TransportFeedbackRecorder, now: UInt64) throws -> (base: UInt16, results: [(UInt16, Int64?)])? {
        var storage = [UInt8](repeating: 0, count: 1400)
        return try storage.withUnsafeMutableBytes { buffer -> (UInt16, [(UInt16, Int64?)])? in
            var writer = RTCPWriter(into: buffer)
            guard try recorder.writeReport(senderSSRC: 7, now: now, into: &writer) else { return nil }
            let compound = try RTCPCompoundPacket(parsing: UnsafeRawBufferPointer(rebasing: buffer[0..<writer.offset]))
            for packet in compound {
                guard case .transportFeedback(let feedback) = packet else { continue }
                #expect(feedback.mediaSSRC == 0x1234 && feedback.senderSSRC == 7)
                var time = feedback.referenceTimeMicroseconds
                var results: [(UInt16, Int64?)] = []
                for result in feedback.packetResults {
                    if result.status == .notReceived {
                        results.append((result.sequenceNumber, nil))
                    } else {
                        time += Int64(result.receiveDeltaMicroseconds)
                        results.append((result.sequenceNumber, time))
                    }
                }
                return (feedback.baseSequenceNumber, results)
            }
            return nil
        }
    }

    @Test func everyPacketIsReportedOnceWithItsArrivalAndTheGapsAsLost() throws {
        var recorder = TransportFeedbackRecorder(extensionID: 3)
        // 65534 … 3 across the wrap; 65535 and 1 lost; 2 arrives before 0 (reordered).
        try Self.record(&recorder, [(65534, 1000), (0, 1012.3), (2, 1010), (3, 1020.6)])
        let first = try #require(try Self.report(&recorder, now: 1100 * Self.millisecond))
        #expect(first.base == 65534)
        #expect(first.results.map(\.0) == [65534, 65535, 0, 1, 2, 3])
        #expect(first.results.map { $0.1 == nil } == [false, true, false, true, false, false])
        // Arrivals to the 250 µs tick: each within one tick of the truth, relative to the first.
        let origin = first.results[0].1!
        for (index, expected) in [(2, 12.3), (4, 10.0), (5, 20.6)] {
            let measured = Double(first.results[index].1! - origin) / 1000
            #expect(abs(measured - expected) <= 0.25, "packet \(index): \(measured) ms")
        }
        // Nothing new: no report. A packet older than what was reported is ignored.
        #expect(try Self.report(&recorder, now: 1200 * Self.millisecond) == nil)
        try Self.record(&recorder, [(65535, 1201), (4, 1210), (6, 1211)])
        let second = try #require(try Self.report(&recorder, now: 1300 * Self.millisecond))
        #expect(second.base == 4)
        #expect(second.results.map(\.0) == [4, 5, 6] && second.results[1].1 == nil)
    }

    @Test func aReportWaitsItsIntervalAndLeavesATrailingGapForLater() throws {
        var recorder = TransportFeedbackRecorder(extensionID: 3)
        try Self.record(&recorder, [(10, 0), (11, 1)])
        _ = try #require(try Self.report(&recorder, now: 60 * Self.millisecond))
        try Self.record(&recorder, [(12, 61)])
        #expect(try Self.report(&recorder, now: 80 * Self.millisecond) == nil, "50 ms have not passed")
        #expect(try Self.report(&recorder, now: 110 * Self.millisecond)?.results.map(\.0) == [12])
    }

    @Test func anArrivalTooFarFromTheLastForSixteenBitsStartsTheNextReport() throws {
        var recorder = TransportFeedbackRecorder(extensionID: 3)
        // 9 s later does not fit a 16-bit delta of 250 µs ticks (8.19 s).
        try Self.record(&recorder, [(1, 0), (2, 9_000)])
        let first = try #require(try Self.report(&recorder, now: 9_100 * Self.millisecond))
        #expect(first.results.map(\.0) == [1])
        let second = try #require(try Self.report(&recorder, now: 9_200 * Self.millisecond))
        #expect(second.base == 2 && second.results.count == 1)
    }
}
