extension BenchReport {
    /// The archive scenario: what recording costs the daemon.
    public struct Archive: Codable, Sendable {
        /// The 1 → N session, measured for the same time without and then with an individual archive.
        public var subscribers = 0
        public var windowSeconds = 0.0
        /// The daemon's CPU per packet it forwarded to subscribers, in microseconds, and the ratio.
        public var cpuPerForwardedPacketWithoutMicroseconds: Double?
        public var cpuPerForwardedPacketWithMicroseconds: Double?
        public var cpuRatio: Double?
        /// Packets forwarded a second in each window.
        public var forwardedPerSecondWithout: Double?
        public var forwardedPerSecondWith: Double?
        /// The session of many publishers recorded individually.
        public var recordedStreams = 0
        public var recordedSeconds = 0.0
        public var recordedFiles = 0
        public var recordedMegabytes = 0.0
        /// Packets its writer could not take, and the daemon's recordingFull drops over the whole run.
        public var writerDrops: UInt64?
        public var recordingFullDrops: Double?
        /// Its writer thread's CPU, in percent of a core.
        public var writerCPUPercent: Double?
        public var composed: [Composed] = []

        public init() {}

        /// One composed archive.
        public struct Composed: Codable, Sendable {
            public var tiles: Int
            public var resolution: String
            public var frameRate: Int
            public var seconds: Double
            public var outputFrames: Int
            /// The composer thread's CPU per output frame (decoding every stream, scaling, mixing,
            /// encoding), in milliseconds, and in percent of a core.
            public var cpuMillisecondsPerFrame: Double?
            public var cpuPercent: Double?
            public var writerDrops: UInt64

            public init(
                tiles: Int, resolution: String, frameRate: Int, seconds: Double, outputFrames: Int, writerDrops: UInt64
            ) {
                self.tiles = tiles
                self.resolution = resolution
                self.frameRate = frameRate
                self.seconds = seconds
                self.outputFrames = outputFrames
                self.writerDrops = writerDrops
            }
        }
    }
}
