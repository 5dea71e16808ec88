extension ReceiverStatistics {
    /// The values of one RTCP reception report block (RFC 3550 section 6.4.1), independent of how
    /// the RTCP layer lays them out on the wire.
    public struct ReportBlock: Equatable, Sendable {
        /// The values the 24-bit signed cumulative-lost field can carry.
        public static let cumulativeLostRange: ClosedRange<Int64> = -0x80_0000...0x7F_FFFF

        /// The source the block reports on.
        public var ssrc: UInt32
        /// Packets lost since the previous report, as a fixed-point fraction of 256 of those
        /// expected; 0 when duplicates outnumber losses.
        public var fractionLost: UInt8
        /// Packets lost since reception began, negative when duplicates outnumber losses, clamped to
        /// the 24-bit signed range of the wire field.
        public var cumulativeLost: Int32
        /// Sequence number wraps in the high 16 bits, the highest sequence number in the low 16.
        public var extendedHighestSequenceNumber: UInt32
        /// Interarrival jitter in RTP timestamp units.
        public var jitter: UInt32
        /// LSR: the middle 32 bits of the NTP timestamp of the last sender report, 0 when none.
        public var lastSenderReport: UInt32
        /// DLSR: time between receiving that sender report and sending this block, in 1/65536 s;
        /// 0 when no sender report arrived.
        public var delaySinceLastSenderReport: UInt32

        /// Creates a block from its field values.
        public init(
            ssrc: UInt32,
            fractionLost: UInt8,
            cumulativeLost: Int32,
            extendedHighestSequenceNumber: UInt32,
            jitter: UInt32,
            lastSenderReport: UInt32,
            delaySinceLastSenderReport: UInt32
        ) {
            self.ssrc = ssrc
            self.fractionLost = fractionLost
            self.cumulativeLost = cumulativeLost
            self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
            self.jitter = jitter
            self.lastSenderReport = lastSenderReport
            self.delaySinceLastSenderReport = delaySinceLastSenderReport
        }

        /// Saturates a loss count to the 24-bit signed field (RFC 3550 A.3), rather than letting
        /// a wire encoder wrap a large loss into a small or negative one.
        public static func clampCumulativeLost(_ lost: Int64) -> Int32 {
            Int32(min(max(lost, cumulativeLostRange.lowerBound), cumulativeLostRange.upperBound))
        }

        /// The round-trip time this block implies, as its media sender computes it; see
        /// `ReceiverStatistics.roundTripTime(arrivalCompactNTP:lastSenderReport:delaySinceLastSenderReport:)`.
        ///
        /// - Parameter arrivalCompactNTP: when the block arrived at the sender, as compact NTP on
        ///   the clock the sender stamps its sender reports with.
        /// - Returns: the round-trip time in 1/65536 s, or nil when the block has no LSR.
        public func roundTripTime(arrivalCompactNTP: UInt32) -> UInt32? {
            ReceiverStatistics.roundTripTime(
                arrivalCompactNTP: arrivalCompactNTP,
                lastSenderReport: lastSenderReport,
                delaySinceLastSenderReport: delaySinceLastSenderReport
            )
        }
    }
}
