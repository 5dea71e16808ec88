extension BenchReport {
    /// The speakers scenario: a room whose participants take turns talking, timed at a listener; one
    /// talking on while the others make background noise; the same turns in a room forwarding only
    /// its loudest audio; and the daemon's CPU per forwarded audio packet with levels and without.
    public struct Speakers: Codable, Sendable {
        public var participants = 0
        public var turnSeconds = 0.0
        public var turnGapSeconds = 0.0
        /// Every scripted talker start, in both rooms that carry levels.
        public var turns: [SpeakerTurn] = []
        /// From a talker's start to the listener's `activeSpeakerChanged` naming them, over the turns
        /// that were named.
        public var detectionP50Ms: Double?
        public var detectionP95Ms: Double?
        public var detectionMaxMs: Double?
        /// Turns whose talker was not named before the next turn began.
        public var turnsMissed = 0
        /// `activeSpeakerChanged` naming anyone but the turn's talker (or nobody), over every turn.
        public var wrongSwitchesDuringTurns = 0
        public var steadySeconds = 0.0
        /// From the steady talker's start to being named; nil if never.
        public var steadyTalkerNamedAfterMs: Double?
        /// Every other `activeSpeakerChanged` the listener heard while the steady talker talked.
        public var falseSwitches = 0
        public var falseSwitchEvents: [TimedEvent] = []
        public var downlink = SpeakersDownlink()
        /// Nil when the daemon's CPU cannot be read (a remote daemon without --server-pid).
        public var cpu: SpeakersCPU?
    }

    /// One scripted talker start.
    public struct SpeakerTurn: Codable, Sendable {
        /// `levels` (every stream forwarded) or `loudest` (`audio.forwardLoudest`).
        public var room: String
        public var talker: String
        /// When the talker started, from the start of the room's turns.
        public var seconds: Double
        public var namedAfterMs: Double?
        /// When the first `audioLevels` report (at most 4 a second) marking the talker as speaking
        /// reached the listener: a talker heard speaking long before being named was held off by
        /// the one before, one heard late was late to reach the router or the listener.
        public var speakingReportedAfterMs: Double?
        public var wrongSwitches: Int
    }

    /// What a participant's downlink carries over the same turns with every stream forwarded and
    /// with only the loudest: audio packets and payload per second, averaged over the participants.
    public struct SpeakersDownlink: Codable, Sendable {
        public var forwardLoudest = 0
        public var packetsPerSecondAll = 0.0
        public var kbpsAll = 0.0
        public var packetsPerSecondLoudest = 0.0
        public var kbpsLoudest = 0.0
        /// Loudest / all.
        public var packetRatio: Double?
        public var byteRatio: Double?
    }

    /// The media workers' CPU time per forwarded audio packet while the room with levels and a room of
    /// the same shape whose publishers declare none run at once, each on its own worker, so whatever
    /// else loads the machine loads both alike.
    public struct SpeakersCPU: Codable, Sendable {
        public struct Window: Codable, Sendable {
            public var withLevelsMicroseconds: Double
            public var withoutLevelsMicroseconds: Double
            public var ratio: Double
        }

        /// The media workers the two rooms' routers run on.
        public var withLevelsWorker = 0
        public var withoutLevelsWorker = 0
        public var windowSeconds = 0.0
        public var windows: [Window] = []
        /// Audio packets each room's subscribers received per second.
        public var packetsPerSecondWithLevels = 0.0
        public var packetsPerSecondWithoutLevels = 0.0
        /// Over all the windows: each worker's CPU per packet and their ratio; and the lowest and
        /// highest ratio of one window, the noise.
        public var withLevelsMicroseconds = 0.0
        public var withoutLevelsMicroseconds = 0.0
        public var ratio = 0.0
        public var ratioLowest = 0.0
        public var ratioHighest = 0.0
        /// The rest of the daemon meanwhile (signaling, among it the speaker events of the room with
        /// levels; timers), CPU milliseconds per second.
        public var restOfDaemonMillisecondsPerSecond = 0.0
    }
}
