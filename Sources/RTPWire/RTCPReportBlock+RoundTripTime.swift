extension RTCPReportBlock {
    /// Saturates a loss count to the 24-bit signed field (RFC 3550 A.3), rather than letting a wire
    /// encoder wrap a large loss into a small or negative one.
    public static func clampCumulativeLost(_ lost: Int64) -> Int32 {
        Int32(min(max(lost, Int64(cumulativeLostRange.lowerBound)), Int64(cumulativeLostRange.upperBound)))
    }

    /// The round-trip time this block implies, as its media sender computes it; see
    /// `ReceiverStatistics.roundTripTime(arrivalCompactNTP:lastSenderReport:delaySinceLastSenderReport:)`.
    ///
    /// - Parameter arrivalCompactNTP: when the block arrived at the sender, as compact NTP on the clock
    ///   the sender stamps its sender reports with.
    /// - Returns: the round-trip time in 1/65536 s, or nil when the block has no LSR.
    public func roundTripTime(arrivalCompactNTP: UInt32) -> UInt32? {
        ReceiverStatistics.roundTripTime(
            arrivalCompactNTP: arrivalCompactNTP,
            lastSenderReport: lastSenderReport,
            delaySinceLastSenderReport: delaySinceLastSenderReport
        )
    }
}
