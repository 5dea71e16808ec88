/// A loop of media encoded once and replayed by any number of publishers, so a load test spends its
/// CPU on the network and the router, not on encoders. Video frames are already split into RTP
/// payloads with their VP8 descriptors; the loop starts with a key frame, which a publisher jumps
/// back to when it is asked for one.
public final class EncodedMedia: Sendable {
    public struct VideoFrame: Sendable {
        /// RTP payloads in order, each starting with its VP8 payload descriptor.
        public let payloads: [[UInt8]]
        public let isKeyFrame: Bool
        /// The counter painted into the picture.
        public let counter: Int
    }

    /// Largest RTP payload: a 1200-byte packet less the RTP header, one header extension and the
    /// SRTP tag, so packets stay well clear of path MTUs.
    public static let maximumPayloadBytes = 1150

    /// What the audio track plays; nil without one.
    public let audio: EncodedAudio?
    /// The main (highest) video encoding's loop.
    public let videoFrames: [VideoFrame]
    /// Every video encoding's loop, lowest first; one entry unless the settings ask for simulcast,
    /// whose payloads carry a 15-bit PictureID (zero here; the publisher numbers each frame it sends).
    public let videoLayers: [[VideoFrame]]
    public let settings: MediaSettings

    /// Encodes the settings' video and, unless `audio` is given, their test tone (none when the audio
    /// bitrate is 0).
    public init(settings: MediaSettings, audio: EncodedAudio? = nil) throws(CodecError) {
        self.settings = settings
        let seconds = settings.loopSeconds
        if let audio {
            self.audio = audio
        } else if settings.audioBitrate > 0 {
            let pcm = settings.syncMarks ? SynthesizedAudio.beeps(seconds: seconds) : SynthesizedAudio.tone(seconds: seconds)
            self.audio = try EncodedAudio(pcm: pcm, bitrate: settings.audioBitrate)
        } else {
            self.audio = nil
        }
        var videoLayers: [[VideoFrame]] = []
        if settings.videoBitrate > 0 {
            let withPictureID = !settings.lowerLayers.isEmpty
            for layer in settings.videoLayers {
                let encoder = try VP8Encoder(width: layer.width, height: layer.height, frameRate: settings.frameRate, bitrate: layer.bitrate)
                var frames: [VideoFrame] = []
                for counter in 0..<(seconds * settings.frameRate) {
                    let flash = settings.syncMarks && counter % settings.frameRate == 0
                    let frame = try encoder.encode(counter: counter, keyFrame: counter == 0 || flash, flash: flash)
                    frames.append(
                        VideoFrame(
                            payloads: Self.packetize(frame.bytes, withPictureID: withPictureID), isKeyFrame: frame.isKeyFrame, counter: counter))
                }
                videoLayers.append(frames)
            }
        }
        self.videoLayers = videoLayers
        videoFrames = videoLayers.last ?? []
    }

    /// RFC 7741 packetization: frames split into near-equal parts; a descriptor with S=1 on the first
    /// part of the frame (partition 0) and S=0 on the rest: one byte, or four with a 15-bit PictureID.
    static func packetize(_ frame: [UInt8], withPictureID: Bool = false) -> [[UInt8]] {
        let descriptorBytes = withPictureID ? 4 : 1
        let capacity = maximumPayloadBytes - descriptorBytes
        let count = max(1, (frame.count + capacity - 1) / capacity)
        let partSize = (frame.count + count - 1) / count
        return (0..<count).map { index in
            let start = index * partSize
            let end = min(frame.count, start + partSize)
            let first: UInt8 = index == 0 ? 0x10 : 0x00
            return (withPictureID ? [first | 0x80, 0x80, 0x80, 0x00] : [first]) + frame[start..<end]
        }
    }

    /// Average bits per second of the encoded video loop (payloads, without RTP headers).
    public var measuredVideoBitrate: Double {
        guard !videoFrames.isEmpty else { return 0 }
        let bytes = videoFrames.reduce(0) { $0 + $1.payloads.reduce(0) { $0 + $1.count } }
        return Double(bytes * 8) * Double(settings.frameRate) / Double(videoFrames.count)
    }
}
