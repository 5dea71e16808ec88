/// One measurement of a link over an interval: what was expected and lost, and what the receiving
/// side reported or the router observed. A subscriber's samples come from its receiver reports about
/// everything the router sent it; a publisher's from what the router received.
public struct QualitySample: Equatable, Sendable {
    /// The interval the sample covers, in seconds.
    public var intervalSeconds: Double
    /// Packets that should have arrived in the interval.
    public var packetsExpected: Int
    /// Of those, packets that did not arrive (negative with duplicates, counted as 0).
    public var packetsLost: Int
    /// Bytes sent toward the receiver in the interval (for a publisher: bytes received).
    public var bytes: Int
    /// Interarrival jitter, in seconds, when known.
    public var jitterSeconds: Double?
    /// Round-trip time, in seconds, when known.
    public var roundTripSeconds: Double?

    public init(
        intervalSeconds: Double, packetsExpected: Int, packetsLost: Int, bytes: Int, jitterSeconds: Double? = nil,
        roundTripSeconds: Double? = nil
    ) {
        self.intervalSeconds = intervalSeconds
        self.packetsExpected = packetsExpected
        self.packetsLost = packetsLost
        self.bytes = bytes
        self.jitterSeconds = jitterSeconds
        self.roundTripSeconds = roundTripSeconds
    }

    /// The fraction of expected packets lost, 0 when nothing was expected.
    public var lossFraction: Double {
        guard packetsExpected > 0 else { return 0 }
        return Double(min(max(packetsLost, 0), packetsExpected)) / Double(packetsExpected)
    }

    /// Bits per second that reached the receiver: what was sent, less the share lost.
    public var deliveredBitrate: Double? {
        guard intervalSeconds > 0 else { return nil }
        return Double(bytes) * 8 * (1 - lossFraction) / intervalSeconds
    }
}
