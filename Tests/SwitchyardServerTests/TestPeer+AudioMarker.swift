import MediaTestSupport

/// Whether audio the publisher sent after a point reaches a subscriber, without a timed wait: audio
/// packets, then one video packet as a marker, on one socket. The router forwards in the order it
/// reads, so whatever it forwards of that audio reaches the subscriber before the marker.
extension TestPeer {
    static let markerIndex = 1000

    /// `count` audio packets numbered from `index`, then the marker video packet numbered `sequence`.
    func sendAudioThenMarker(audioFrom index: Int, count: Int, videoSequence sequence: Int) throws {
        for number in index..<(index + count) {
            try sendRTP(
                payloadType: 111, sequenceNumber: UInt16(truncatingIfNeeded: number), timestamp: UInt32(number * 960), ssrc: Self.audioSSRC,
                payload: [0x78] + Array(repeating: UInt8(truncatingIfNeeded: number), count: 60))
        }
        try sendRTP(
            payloadType: 96, sequenceNumber: UInt16(truncatingIfNeeded: sequence), timestamp: UInt32(sequence * 3000), ssrc: Self.videoSSRC,
            payload: VP8TestPayload.make(index: Self.markerIndex, keyFrame: false, size: 400))
    }

    /// As a subscriber: the audio packets (SSRC `audioSSRC`) received before the marker, and whether
    /// the marker came within three seconds.
    func audioBeforeMarker(audioSSRC: UInt32) async throws -> (audio: Int, marker: Bool) {
        let marker = VP8TestPayload.make(index: Self.markerIndex, keyFrame: false, size: 400)
        return try await onOwnThread {
            var audio = 0
            let seen = self.receiveFirst(within: 3000) { packet -> Bool? in
                guard case .rtp(_, _, let ssrc, _, let payload) = packet else { return nil }
                if ssrc == audioSSRC { audio += 1 }
                return payload == marker ? true : nil
            }
            return (audio, seen ?? false)
        }
    }
}
