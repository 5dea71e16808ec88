extension BenchReport {
    /// `fanout --overload`: one worker offered more media than it forwards on time, and what overload
    /// shedding made of it (docs/capacity.md#overload).
    public struct Overload: Codable, Sendable {
        /// Packets per second the subscribers would take with nothing shed: what the publisher sent
        /// per second times the subscribers.
        public var offeredPacketsPerSecond = 0.0
        /// Packets per second the daemon forwarded, and that as a share of what was offered.
        public var forwardedPacketsPerSecond = 0.0
        public var forwardedShare: Double?
        /// What the busiest worker forwards per second of a whole core (forwarded / its busy share):
        /// the capacity the offer is measured against.
        public var capacityPacketsPerSecond: Double?
        /// The offer as a share of that capacity: 1.5 is 150 %.
        public var offeredShareOfCapacity: Double?
        /// Packets dropped for having waited past their kind's limit, during the measurement.
        public var latePackets: UInt64 = 0
        /// Subscribers with video off for overload at the end; the measured sample, and those of it
        /// told so at any time.
        public var subscribersShedAtEnd = 0
        public var sampled = 0
        public var sampledEverShed = 0
        /// Steps off and back on during the measurement.
        public var sheddingSteps: UInt64 = 0
        public var restoringSteps: UInt64 = 0
        /// Subscribers refused while joining (`limitReached`): admission by measured capacity.
        public var refusedAtJoin = 0
    }
}
