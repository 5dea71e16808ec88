extension BenchReport {
    /// The soak's flood, after its measurement: WebSockets opened and left idle, clients churning
    /// through sessions, then nothing; and whether the daemon's memory came back afterwards.
    public struct Flood: Codable, Sendable {
        /// How far above the baseline, and how soon after the flood, the memory must be back.
        public static let settleMarginMB = 20.0
        public static let settleSeconds = 30.0

        public var idleSockets = 0
        /// Clients that joined (open, `connect`, three signals, then `disconnect` or a dropped socket)
        /// and those that failed.
        public var joins = 0
        public var failures = 0
        public var churnSeconds = 0.0
        /// The daemon's resident memory before the flood, its largest sample during it, and when the
        /// last flood socket had closed.
        public var rssBaselineMB = 0.0
        public var rssPeakMB = 0.0
        public var rssAtEndMB = 0.0
        /// Every second after the flood, for `settleSeconds`.
        public var rssSamplesMB: [Double] = []
        /// The last of those samples; nil when the daemon could not be read.
        public var rssSettledMB: Double?
        /// Seconds after the flood until a sample was first within `settleMarginMB` of the baseline.
        public var backWithinMarginAfterSeconds: Double?
    }
}
