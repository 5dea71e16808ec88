/// Groups the packets feedback reports as received into the bursts a sender emits (packets sent
/// within `burstNanoseconds` of the group's first), and yields the spacing of each completed group
/// against the previous one. A video frame leaves as one burst, so comparing groups rather than
/// packets measures the path, not the pacing inside a frame.
public struct PacketGrouping: Equatable, Sendable {
    public static let burstNanoseconds: UInt64 = 5_000_000
    /// A jump in arrival time this large means the receiver's clock or the path changed; start over.
    static let arrivalJumpNanoseconds: Int64 = 3_000_000_000

    private struct Group: Equatable, Sendable {
        var firstSendTime: UInt64
        var lastSendTime: UInt64
        var lastArrivalTime: Int64
    }

    private var current: Group?
    private var previous: Group?

    public init() {}

    /// Takes the next received packet in send order; returns the delta when it completes a group
    /// that has a predecessor. Packets sent before the current group began (reordered) are ignored.
    public mutating func add(sendTime: UInt64, arrivalTime: Int64) -> PacketGroupDelta? {
        guard var group = current else {
            current = Group(firstSendTime: sendTime, lastSendTime: sendTime, lastArrivalTime: arrivalTime)
            return nil
        }
        guard sendTime >= group.firstSendTime else { return nil }
        if abs(arrivalTime - group.lastArrivalTime) > Self.arrivalJumpNanoseconds {
            previous = nil
            current = Group(firstSendTime: sendTime, lastSendTime: sendTime, lastArrivalTime: arrivalTime)
            return nil
        }
        if sendTime - group.firstSendTime <= Self.burstNanoseconds {
            group.lastSendTime = max(group.lastSendTime, sendTime)
            group.lastArrivalTime = max(group.lastArrivalTime, arrivalTime)
            current = group
            return nil
        }
        var delta: PacketGroupDelta?
        if let previous {
            delta = PacketGroupDelta(
                sendDeltaMilliseconds: Double(group.lastSendTime - previous.lastSendTime) / 1e6,
                arrivalDeltaMilliseconds: Double(group.lastArrivalTime - previous.lastArrivalTime) / 1e6,
                arrivalTimeMilliseconds: Double(group.lastArrivalTime) / 1e6)
        }
        previous = group
        current = Group(firstSendTime: sendTime, lastSendTime: sendTime, lastArrivalTime: arrivalTime)
        return delta
    }
}
