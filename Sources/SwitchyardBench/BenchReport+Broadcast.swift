extension BenchReport {
    /// The broadcast scenario: a crowd of signaling-only viewers joining one session that suppresses
    /// connection events, and leaving it at once.
    public struct Broadcast: Codable, Sendable {
        public var viewers: Int
        public var joinsPerSecond: Double
        /// Publishers in the session, each sending audio and three simulcast layers to the media
        /// viewers once the crowd is in.
        public var publishers = 1
        public var joined = 0
        public var joinFailures = 0
        /// From sending `connect` to its reply, over the viewers that joined.
        public var joinP50Ms: Double?
        public var joinP99Ms: Double?
        public var joinMaxMs: Double?
        /// From the first join's planned start to the last reply.
        public var joinSeconds = 0.0
        /// The daemon's resident memory before the crowd and once it had joined, and the growth
        /// per viewer. Nil for a remote daemon without --server-pid.
        public var daemonRSSBeforeMB: Double?
        public var daemonRSSAfterMB: Double?
        public var memoryPerConnectionKiB: Double?
        /// CPU over the joins, in percent of one core: the daemon's, and the bench's own (with both
        /// on this machine's two cores, the bench must not be what limits the joins).
        public var daemonCPUPercentWhileJoining: Double?
        public var benchCPUPercentWhileJoining = 0.0
        /// Viewers whose count reached everyone in the session within 10 s of the last join.
        public var viewersWithTheRightCount = 0
        /// Viewers that were told of another viewer joining (none should be).
        public var viewersThatHeardJoins = 0
        /// The moderator must hear every join and every leave.
        public var moderatorJoinsHeard = 0
        public var moderatorLeavesHeard = 0
        /// In a crowd of more than 1,000, 1,000 of them leave at once first: from their start to the
        /// moderator hearing the last of their leaves (nil for a smaller crowd, which leaves whole).
        public var thousandLeavingSeconds: Double?
        /// From every viewer still there starting to leave at once to the moderator hearing the last leave.
        public var leaveSeconds = 0.0
        /// Viewers that received and decoded the publisher's media (`--media-viewers`), those of
        /// them served by another node than the session's (a cluster's cascade), and the latency
        /// of each kind over the measured window.
        public var mediaViewers = 0
        public var cascadedMediaViewers = 0
        public var directLatencyP50Ms: Double?
        public var directLatencyP99Ms: Double?
        public var cascadedLatencyP50Ms: Double?
        public var cascadedLatencyP99Ms: Double?
        /// A second crowd whose sockets dropped at once: how many, the daemon's reconnection grace,
        /// the leaves the moderator heard when the graces ended, from its first to its last, and the
        /// slowest answer to a signal in another session meanwhile.
        public var graceViewers = 0
        public var graceSeconds = 0.0
        public var graceLeavesHeard = 0
        public var graceTeardownSeconds: Double?
        public var otherSessionSlowestSignalMs: Double?

        public init(viewers: Int, joinsPerSecond: Double) {
            self.viewers = viewers
            self.joinsPerSecond = joinsPerSecond
        }

        /// Events owed and not received: the moderator's joins and leaves, and the viewers whose count
        /// never came right.
        public var eventsLost: Int {
            max(joined - moderatorJoinsHeard, 0) + max(joined - moderatorLeavesHeard, 0) + (joined - viewersWithTheRightCount)
                + max(graceViewers - graceLeavesHeard, 0)
        }
    }
}
