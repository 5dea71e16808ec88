/// What a synthetic publisher sends. A bitrate of 0 leaves that track out.
public struct MediaSettings: Equatable, Sendable {
    public var videoBitrate: Int
    public var audioBitrate: Int
    public var width: Int
    public var height: Int
    public var frameRate: Int
    /// Length of the encoded loop; its first frame is the only key frame, so this is also the key-frame
    /// interval when nobody asks for one.
    public var loopSeconds: Int
    /// Simulcast: the lower encodings sent beside the main one (`width` × `height` at `videoBitrate`),
    /// lowest first, each of the same test pattern and frame counter. Empty for one encoding.
    public var lowerLayers: [VideoLayerSettings]
    /// Marks to measure audio / video sync by: the first frame of every second flashes white (a key
    /// frame) and a 100 ms beep starts with it; the audio is silent in between.
    public var syncMarks: Bool

    public init(
        videoBitrate: Int = 500_000, audioBitrate: Int = 32_000, width: Int = 640, height: Int = 360, frameRate: Int = 30, loopSeconds: Int = 5,
        lowerLayers: [VideoLayerSettings] = [], syncMarks: Bool = false
    ) {
        self.lowerLayers = lowerLayers
        self.syncMarks = syncMarks
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.loopSeconds = loopSeconds
    }

    public static let audioOnly = MediaSettings(videoBitrate: 0)

    /// Every video encoding, lowest first: the lower layers, then the main one.
    public var videoLayers: [VideoLayerSettings] {
        lowerLayers + [VideoLayerSettings(width: width, height: height, bitrate: videoBitrate)]
    }
}

/// One simulcast encoding of the test pattern.
public struct VideoLayerSettings: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var bitrate: Int

    public init(width: Int, height: Int, bitrate: Int) {
        self.width = width
        self.height = height
        self.bitrate = bitrate
    }
}
