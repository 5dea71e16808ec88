import MediaControl
import MediaTestSupport
import SignalingProtocol

/// A test peer as a plain-transport client of the signaling protocol: what it offers, how it takes
/// the router's answer, and the media it publishes.
extension TestPeer {
    static let audioSSRC: UInt32 = 0xA0A0_0001
    static let videoSSRC: UInt32 = 0xB0B0_0001

    var transportOffer: TransportOffer {
        TransportOffer(
            remote: EndpointAddress(host: "127.0.0.1", port: port),
            srtp: SRTPKeying(profile: keys.profile.rawValue, key: keys.sdesKeyParameter))
    }

    func accept(_ answer: TransportAnswer) throws {
        try connect(routerPort: answer.local.port, routerSRTP: SRTPParameters(profile: answer.srtp.profile, keyParameter: answer.srtp.key))
    }

    func publishParameters() -> PublishParameters {
        PublishParameters(
            name: "camera", videoDimensions: VideoDimensions(width: 640, height: 480),
            audio: TrackDescription(codec: .opus, payloadType: 111, ssrc: Self.audioSSRC),
            video: TrackDescription(codec: .vp8, payloadType: 96, ssrc: Self.videoSSRC), transport: transportOffer)
    }

    /// Sends `count` video packets (the first a key frame when asked) and as many audio packets.
    func sendMedia(startingAt index: Int, count: Int, keyFrameFirst: Bool) throws {
        for offset in 0..<count {
            let number = index + offset
            try sendRTP(
                payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: number), timestamp: UInt32(number * 3000),
                ssrc: Self.videoSSRC, payload: VP8TestPayload.make(index: number, keyFrame: keyFrameFirst && offset == 0, size: 400))
            try sendRTP(
                payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: number), timestamp: UInt32(number * 960),
                ssrc: Self.audioSSRC, payload: [0x78] + Array(repeating: UInt8(truncatingIfNeeded: number), count: 60))
        }
    }
}
