/// What transport-wide feedback says about one packet the router sent: when it left, how big it was,
/// and when it arrived at the receiver (on the receiver's clock), or that it did not.
public struct PacketFeedback: Equatable, Sendable {
    /// Monotonic nanoseconds on the router's clock when the packet was sent.
    public var sendTime: UInt64
    /// Nanoseconds on the receiver's clock when it arrived; nil when the feedback reports it lost.
    /// Only differences between arrival times mean anything.
    public var arrivalTime: Int64?
    /// Bytes on the wire (after SRTP).
    public var size: Int
    /// The probe cluster the packet belonged to, when it was sent to probe the path.
    public var probeCluster: Int?

    public init(sendTime: UInt64, arrivalTime: Int64?, size: Int, probeCluster: Int? = nil) {
        self.sendTime = sendTime
        self.arrivalTime = arrivalTime
        self.size = size
        self.probeCluster = probeCluster
    }
}
