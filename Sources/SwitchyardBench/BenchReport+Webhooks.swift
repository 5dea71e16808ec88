extension BenchReport {
    /// The webhooks scenario: 1 → N sessions churning joins and leaves against a daemon that sends
    /// every session and connection event to the bench's receiver; what arrived against what the
    /// churn caused, and what sending it cost the daemon.
    public struct Webhooks: Codable, Sendable {
        public var sessions = 0
        public var subscribersPerSession = 0
        public var joinsPerSecondPerSession = 0.0
        public var churnSeconds = 0.0
        /// Where the daemon delivered, and whether the receiver answered (`normal`) or held every
        /// POST unanswered (`silent`).
        public var receiverURL = ""
        public var receiver = WebhookReceiverMode.normal
        /// The daemon's `webhooks.maxQueuedEvents` as given (nil: the daemon's default, 10,000).
        public var maxQueuedEvents: Int?
        /// Subscribers that connected and left during the churn, and connects that failed.
        public var joins = 0
        public var leaves = 0
        public var connectFailures = 0
        /// Session and connection events the churn caused, each owed to the receiver.
        public var eventsExpected = 0
        /// Distinct events of the bench's sessions the receiver accepted, and every POST of theirs
        /// (retries included).
        public var eventsReceived = 0
        public var deliveriesReceived = 0
        /// What `GET /v1/webhooks/status` counted over the run (every endpoint, every node given):
        /// `delivered`, attempts retried, failures by cause and events dropped. Nil when it could
        /// not be read.
        public var daemonDelivered: UInt64?
        public var daemonRetries: UInt64?
        public var daemonFailures: [String: UInt64]?
        public var daemonDropped: UInt64?
        /// `daemonDropped` by reason (`queueFull`, `rejected`, `expired`, `atIntake`); empty when none.
        public var daemonDroppedByReason: [String: UInt64]?
        /// The longest endpoint queue (`queued`) of the status at the end: after the drain in a
        /// normal run, right after the churn with a silent receiver.
        public var daemonQueued: Int?
        /// Owed events that never arrived (at most 20 listed as `event session connection`).
        public var eventsLost = 0
        public var lostEvents: [String] = []
        /// Events of the bench's sessions it did not cause knowingly (a connect that failed after
        /// the daemon created the connection).
        public var eventsUnexpected = 0
        /// Distinct events whose `seq` did not follow their session's previous one by 1.
        public var outOfOrder = 0
        /// Arrivals of an event id already received: allowed only as the daemon's retries.
        public var duplicates = 0
        /// POSTs refused for their signature, and correctly signed ones whose body was not the
        /// documented JSON.
        public var badSignatures = 0
        public var unreadableBodies = 0
        /// The receiver's arrival minus the body's `time`, over every event's first arrival.
        public var latencyP50Ms: Double?
        public var latencyP99Ms: Double?
        public var latencyMaxMs: Double?
        /// The daemon's own figures for its latest deliveries (`latencyP50Seconds` / `latencyP99Seconds`).
        public var daemonLatencyP50Ms: Double?
        public var daemonLatencyP99Ms: Double?
        public var eventsByKind: [String: Int] = [:]
        /// The subscribers' joins, from sending `connect` to its reply, with webhooks and without.
        public var joinLatency = WebhooksJoinLatency()
        /// The daemon's resident memory (`VmRSS`) when the churn ended, and the second daemon's
        /// without webhooks. Nil when it could not be read.
        public var rssAtEndMB: Double?
        public var rssAtEndWithoutWebhooksMB: Double?
        /// Nil against a daemon the bench did not start.
        public var cpu: WebhooksCPU?
        /// Only with `--receiver silent`.
        public var silent: WebhooksSilentReceiver?
    }

    /// Join latency from sending `connect` to its reply, over the subscribers' joins during the
    /// churn: the daemon with webhooks against the one without given the same churn at the same
    /// time (nil without a second daemon), and their ratio (with / without).
    public struct WebhooksJoinLatency: Codable, Sendable {
        public var joinsWith = 0
        public var p50WithMs: Double?
        public var p99WithMs: Double?
        public var joinsWithout: Int?
        public var p50WithoutMs: Double?
        public var p99WithoutMs: Double?
        public var p50Ratio: Double?
        public var p99Ratio: Double?
    }

    /// A receiver that read every POST and never answered: what it held, and how long the daemon's
    /// queue grew meanwhile.
    public struct WebhooksSilentReceiver: Codable, Sendable {
        /// POSTs held (retries included), the most held at once, and those let go early (503) to
        /// keep the receiver within its own bound.
        public var requestsHeld = 0
        public var heldAtMost = 0
        public var releasedEarly = 0
        /// The longest endpoint queue in `GET /v1/webhooks/status`, read every second of the churn,
        /// and how many readings there were.
        public var queuedPeak: Int?
        public var statusReadings = 0
    }

    /// The daemon's CPU time over the churn with webhooks and that of a second daemon with no
    /// `webhooks` given the same churn at the same time, each from the first join to a second after
    /// the last leave.
    public struct WebhooksCPU: Codable, Sendable {
        public var windowSeconds = 0.0
        public var withWebhooksSeconds = 0.0
        public var withoutWebhooksSeconds = 0.0
        /// Connection events the churn caused in each run; the run without is scaled by their
        /// ratio, so a run that fitted in a few more joins does not read as cheaper.
        public var connectionEventsWith = 0
        public var connectionEventsWithout = 0
        /// Deliveries during the window with webhooks (the daemon's `delivered`).
        public var eventsDelivered: UInt64 = 0
        /// (with − without × connectionEventsWith / connectionEventsWithout) / eventsDelivered.
        public var extraMicrosecondsPerEvent: Double?
    }
}
