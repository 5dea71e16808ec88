/// An RTCP packet whose report blocks follow a fixed part: the sender report and the receiver report.
public protocol RTCPReportBlockCarrier {
    /// The packet the report was parsed from.
    var packet: RTCPPacketView { get }
    /// Bytes before the first report block.
    static var fixedByteCount: Int { get }
}

extension RTCPReportBlockCarrier {
    /// RC: how many report blocks follow.
    public var reportBlockCount: Int { Int(packet.count) }

    /// The report block at `index`, which must be below `reportBlockCount`.
    public func reportBlock(at index: Int) -> RTCPReportBlock { reportBlocks[index] }

    /// The report blocks, decoded as they are accessed.
    public var reportBlocks: RTCPItemList<RTCPReportBlock> {
        RTCPItemList(bytes: packet.bytes, start: Self.fixedByteCount, count: reportBlockCount)
    }
}
