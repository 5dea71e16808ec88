import RTPWire

/// What a receiver's report adds to its previous one about the same SSRC: packets expected and lost
/// in between (RFC 3550 A.3, computed from the cumulative fields rather than the 8-bit fraction).
public struct ReportInterval: Equatable, Sendable {
    public var packetsExpected: Int
    public var packetsLost: Int

    public init(packetsExpected: Int, packetsLost: Int) {
        self.packetsExpected = packetsExpected
        self.packetsLost = packetsLost
    }

    /// The interval between two cumulative counts. Duplicates can make the lost count go down;
    /// that reads as no loss, never as negative loss, and loss never exceeds what was expected.
    public init(expectedDelta: Int, lostDelta: Int) {
        packetsExpected = max(0, expectedDelta)
        packetsLost = min(packetsExpected, max(0, lostDelta))
    }

    /// Nil when the highest sequence number went backwards or leapt implausibly (the receiver
    /// restarted its statistics), so that such a report never reads as a huge loss.
    public init?(from previous: RTCPReportBlock, to current: RTCPReportBlock) {
        let expected = Int(Int32(bitPattern: current.extendedHighestSequenceNumber &- previous.extendedHighestSequenceNumber))
        guard expected >= 0, expected <= Self.maximumPacketsPerReport else { return nil }
        self.init(expectedDelta: expected, lostDelta: Int(current.cumulativeLost) - Int(previous.cumulativeLost))
    }

    /// More packets than any real interval between two reports carries (about 30 s of 4K video).
    public static let maximumPacketsPerReport = 1 << 16

    public static func + (lhs: ReportInterval, rhs: ReportInterval) -> ReportInterval {
        ReportInterval(packetsExpected: lhs.packetsExpected + rhs.packetsExpected, packetsLost: lhs.packetsLost + rhs.packetsLost)
    }
}
