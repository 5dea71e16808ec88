/// How two consecutive packet groups were spaced at the sender and at the receiver. A positive
/// `delayVariationMilliseconds` means the second group spent longer on the path than the first.
public struct PacketGroupDelta: Equatable, Sendable {
    public var sendDeltaMilliseconds: Double
    public var arrivalDeltaMilliseconds: Double
    /// When the later group's last packet arrived, receiver clock, milliseconds.
    public var arrivalTimeMilliseconds: Double

    public var delayVariationMilliseconds: Double { arrivalDeltaMilliseconds - sendDeltaMilliseconds }
}
