import Quality
import RTPWire
import Testing

@testable import MediaRouter

/// Numbering what the router sends toward a subscriber and reading its transport-wide feedback.
@Suite struct SendSideEstimationTests {
    static let millisecond: UInt64 = 1_000_000

    /// Stamps `count` packets of `payloadBytes` sent 10 ms apart; returns their sequence numbers.
    static func stamp(_ estimation: inout SendSideEstimation, count: Int, payloadBytes: Int, from start: UInt64 = 0) throws -> [UInt16] {
        var numbers: [UInt16] = []
        var storage = [UInt8](repeating: 0, count: 1536)
        try storage.withUnsafeMutableBytes { buffer in
            for index in 0..<count {
                var packet = try Self.packet(in: buffer, payloadBytes: payloadBytes)
                #expect(estimation.stamp(&packet, wireOverhead: 16, now: start + UInt64(index) * 10 * Self.millisecond, probeCluster: nil))
                numbers.append(try #require(packet.transportSequenceNumber(id: estimation.extensionID)))
            }
        }
        return numbers
    }

    static func packet(in buffer: UnsafeMutableRawBufferPointer, payloadBytes: Int) throws -> RTPPacket {
        let payload = [UInt8](repeating: 0xAB, count: payloadBytes)
        return try payload.withUnsafeBytes { bytes in
            try RTPPacket(writingInto: buffer, payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1, payload: bytes)
        }
    }

    static func feedback(base: UInt16, deltas: [Int16?], referenceTime: Int32 = 1000) throws -> [UInt8] {
        try RTCPWriter.bytes { writer throws(RTCPError) in
            try RTCPTransportFeedback.write(
                senderSSRC: 9, mediaSSRC: 1, baseSequenceNumber: base, referenceTime: referenceTime, feedbackPacketCount: 0,
                receiveDeltas: deltas, into: &writer)
        }
    }

    static func take(_ bytes: [UInt8], into estimation: inout SendSideEstimation, now: UInt64) throws -> Double {
        var copy = bytes
        return try copy.withUnsafeMutableBytes { buffer in
            let compound = try RTCPCompoundPacket(parsing: UnsafeRawBufferPointer(buffer))
            var estimate = 0.0
            for packet in compound {
                guard case .transportFeedback(let feedback) = packet else { continue }
                estimate = estimation.received(feedback, now: now)
            }
            return estimate
        }
    }

    @Test func everyPacketGetsTheNextNumberAndAnExistingElementIsOverwrittenInPlace() throws {
        var estimation = SendSideEstimation(extensionID: 5)
        let numbers = try Self.stamp(&estimation, count: 5, payloadBytes: 100)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        var storage = [UInt8](repeating: 0, count: 1536)
        try storage.withUnsafeMutableBytes { buffer in
            var packet = try Self.packet(in: buffer, payloadBytes: 100)
            try packet.setTransportSequenceNumber(0xBEEF, id: 5)
            let length = packet.length
            #expect(estimation.stamp(&packet, wireOverhead: 16, now: 0, probeCluster: nil))
            #expect(packet.length == length)
            #expect(packet.transportSequenceNumber(id: 5) == numbers.last! &+ 1)
        }
    }

    @Test func aProbePaddingPacketKeepsItsPaddingWhenNumbered() throws {
        var storage = [UInt8](repeating: 0, count: 1536)
        try storage.withUnsafeMutableBytes { buffer in
            let length = Consumer.writePadding(
                into: buffer, payloadType: 97, sequenceNumber: 7, timestamp: 0, ssrc: 2,
                absoluteSendTime: (id: 2, value: AbsoluteSendTime(nanoseconds: 0)))
            var packet = try RTPPacket(parsing: buffer, length: length)
            var estimation = SendSideEstimation(extensionID: 3)
            #expect(estimation.stamp(&packet, wireOverhead: 16, now: 0, probeCluster: 1))
            let reparsed = try RTPPacket(parsing: buffer, length: packet.length)
            #expect(reparsed.paddingLength == 255 && reparsed.payloadLength == 0)
            #expect(reparsed.transportSequenceNumber(id: 3) != nil && reparsed.absoluteSendTime(id: 2) != nil)
        }
    }

    @Test func feedbackGivesTheEstimatorWhatArrivedWhenAndItsSizeOnTheWire() throws {
        var estimation = SendSideEstimation(extensionID: 5)
        let numbers = try Self.stamp(&estimation, count: 40, payloadBytes: 1000)
        // Every packet arrived 10 ms after the one before it (40 ticks of 250 µs).
        let deltas: [Int16?] = [0] + Array(repeating: 40, count: 39)
        _ = try Self.take(Self.feedback(base: numbers[0], deltas: deltas), into: &estimation, now: 500 * Self.millisecond)
        #expect(estimation.feedbackReceived == 1)
        // 12-byte header + 4-byte extension block + 4-byte element + 1000 + 16 of SRTP tag, every 10 ms.
        let expected = Double(12 + 8 + 1000 + 16) * 8 / 0.01
        let acknowledged = try #require(estimation.estimator.acknowledgedBitrate)
        #expect(abs(acknowledged - expected) < 1)
        #expect(estimation.estimator.lossFraction == 0)
    }

    @Test func lossIsCountedOnceAndFeedbackAboutUnknownOrAlreadyJudgedPacketsIsIgnored() throws {
        var estimation = SendSideEstimation(extensionID: 5)
        let numbers = try Self.stamp(&estimation, count: 60, payloadBytes: 500)
        // Every third packet lost.
        let deltas: [Int16?] = (0..<60).map { $0 % 3 == 2 ? nil : 40 }
        let report = try Self.feedback(base: numbers[0], deltas: deltas)
        _ = try Self.take(report, into: &estimation, now: 700 * Self.millisecond)
        let judged = estimation.estimator.lossFraction
        #expect(abs(judged - 20.0 / 60.0) < 1e-9)
        // The same feedback again, and feedback about packets never sent, judge nothing new.
        let before = estimation.estimator
        _ = try Self.take(report, into: &estimation, now: 1_400 * Self.millisecond)
        _ = try Self.take(Self.feedback(base: numbers[0] &+ 1000, deltas: Array(repeating: nil, count: 60)), into: &estimation,
            now: 2_100 * Self.millisecond)
        #expect(estimation.estimator.lossFraction == before.lossFraction)
        #expect(estimation.estimator.acknowledgedBitrate == before.acknowledgedBitrate)
    }
}
