extension BenchReport {
    /// The red scenario: one publisher sending Opus as RFC 2198 redundant audio, and subscribers
    /// behind the same random loss, every other one taking RED; the audio frames each half lost and
    /// had to conceal.
    public struct Red: Codable, Sendable {
        /// What every subscriber's downlink went through, and how many earlier frames each packet repeated.
        public var schedule = ""
        /// `publisher` (it sends RED) or `router` (it adds RED to plain Opus toward lossy subscribers).
        public var source = "publisher"
        /// Earlier frames the publisher repeated (0 when the router adds them).
        public var redundantFrames = 0
        public var withRed = RedGroup()
        public var withoutRed = RedGroup()
        /// `1 − concealed share with RED / concealed share without`: 0.8 is 80 % fewer frames concealed.
        public var concealedReduction: Double?
    }

    public struct RedGroup: Codable, Sendable {
        public var subscribers = 0
        /// Audio packets the path lost (RFC 3550 count), and the frames played from what arrived:
        /// decoded (primary and recovered) and concealed.
        public var packetsLost: Int64 = 0
        public var framesDecoded: UInt64 = 0
        public var framesRecovered: UInt64 = 0
        public var framesConcealed: UInt64 = 0
        public var decodeErrors: UInt64 = 0
        /// Concealed frames as a share of every frame played, in percent.
        public var concealedPercent: Double?
    }
}
