import RTPWire
import Testing

@testable import MediaRouter

/// The padding-only packets that probe a subscriber's path while its video is off for quality.
@Suite struct ProbePaddingTests {
    @Test func aProbeIsAHeaderAndTheMostPaddingRTPAllows() throws {
        var storage = [UInt8](repeating: 0xFF, count: 512)
        try storage.withUnsafeMutableBytes { buffer in
            let length = Consumer.writePadding(into: buffer, payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: 0xCAFE)
            #expect(length == 12 + 255)
            let packet = try RTPPacket(parsing: buffer, length: length)
            #expect(packet.hasPadding && !packet.hasExtension)
            #expect(packet.payloadLength == 0)
            #expect(packet.paddingLength == 255)
            #expect((packet.sequenceNumber, packet.timestamp, packet.ssrc, packet.payloadType) == (7, 90_000, 0xCAFE, 96))
        }
    }

    @Test func aProbeCarriesTheSendTimeWhenTheConsumerStampsOneSoABrowsersEstimatorCountsIt() throws {
        var storage = [UInt8](repeating: 0xFF, count: 512)
        let sendTime = AbsoluteSendTime(nanoseconds: 1_500_000_000)
        try storage.withUnsafeMutableBytes { buffer in
            let length = Consumer.writePadding(
                into: buffer, payloadType: 96, sequenceNumber: 7, timestamp: 90_000, ssrc: 0xCAFE, absoluteSendTime: (id: 2, value: sendTime))
            #expect(length == 12 + 8 + 255)
            let packet = try RTPPacket(parsing: buffer, length: length)
            #expect(packet.hasPadding && packet.hasExtension)
            #expect(packet.extensionForm == .oneByte)
            #expect(packet.absoluteSendTime(id: 2) == sendTime)
            #expect(packet.payloadLength == 0)
            #expect(packet.paddingLength == 255)
        }
    }
}
