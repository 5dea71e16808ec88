import MediaControl
import RTPWire
import Testing

@testable import MediaRouter

/// When a simulcast layer counts as stopped: a few of its own frame intervals after its last
/// packet, so a stopped 30 fps layer is noticed within half a second and a slow one is not
/// taken for stopped between two of its frames.
struct ProducerEncodingTests {
    static let millisecond: UInt64 = 1_000_000

    private func encoding(frameRate: Double) -> ProducerEncoding {
        let layer = VideoLayer(ssrc: 0x4242, width: 640, height: 360, frameRate: frameRate)
        return ProducerEncoding(
            index: 0, ssrc: 0x4242, rtxSSRC: nil, layer: layer,
            options: ProducerOptions(codec: CodecParameters(name: .vp8, payloadType: 96), layers: [layer]),
            configuration: MediaRouterConfiguration(workerCount: 1))
    }

    private func receive(_ encoding: ProducerEncoding, at now: UInt64) throws {
        var bytes = [UInt8](repeating: 0, count: 40)
        bytes[0] = 0x80
        bytes[1] = 96
        bytes[8...11] = [0, 0, 0x42, 0x42]
        try bytes.withUnsafeMutableBytes { buffer in
            let packet = try RTPPacket(parsing: buffer)
            encoding.record(packet, temporalLayer: nil, now: now)
        }
    }

    @Test(arguments: [
        (30.0, 250 * millisecond), (10.0, 500 * millisecond), (2.0, 1_500 * millisecond), (0.0, 1_500 * millisecond),
    ])
    func aLayerCountsAsStoppedAfterFiveOfItsFrameIntervalsWithinBounds(frameRate: Double, stoppedAfter: UInt64) throws {
        let encoding = encoding(frameRate: frameRate)
        #expect(!encoding.isActive(now: 0), "a layer that never arrived is not active")
        #expect(!encoding.hasArrived)
        try receive(encoding, at: 1_000 * Self.millisecond)
        #expect(encoding.stoppedAfter == stoppedAfter)
        #expect(encoding.isActive(now: 1_000 * Self.millisecond + stoppedAfter - 1))
        #expect(!encoding.isActive(now: 1_000 * Self.millisecond + stoppedAfter))
        #expect(encoding.hasArrived)
    }
}
