/// A fixed-size item repeated in an RTCP packet body: report blocks, NACK and FIR entries.
public protocol RTCPFixedSizeItem {
    /// Bytes of one item on the wire.
    static var wireByteCount: Int { get }
    /// Reads an item at `offset`; the caller guarantees `wireByteCount` bytes are there.
    init(rtcpBytes bytes: UnsafeRawBufferPointer, at offset: Int)
}

/// The items of a packet body, decoded one at a time as they are accessed.
///
/// The owning view checked that `count` items fit, so subscripting within `indices` stays in bounds.
public struct RTCPItemList<Item: RTCPFixedSizeItem>: RandomAccessCollection {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    /// How many entries the packet carries.
    public let count: Int

    init(bytes: UnsafeRawBufferPointer, start: Int, count: Int) {
        self.bytes = bytes
        self.start = start
        self.count = count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> Item {
        precondition(position >= 0 && position < count, "RTCP item index out of range")
        return Item(rtcpBytes: bytes, at: start + position * Item.wireByteCount)
    }
}
