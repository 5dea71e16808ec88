/// A generic NACK (RFC 4585 section 6.2.1): transport-layer feedback (PT 205, FMT 1) asking the media
/// sender to retransmit lost packets.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  FMT=1  |    PT=205     |          length               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of packet sender                        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of media source                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |            PID                |             BLP               |  FCI, one or more
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// PID is a lost sequence number; bit i of BLP (least significant first) reports PID + i + 1 lost
/// too, so one item covers up to 17 losses within a window of 17.
public struct RTCPGenericNACK {
    /// Bytes of the header and the two SSRCs: where the items start.
    static let fixedByteCount = 12

    /// One PID/BLP pair.
    public struct Item: Hashable, Sendable, RTCPFixedSizeItem {
        /// Bytes of one item on the wire.
        public static let wireByteCount = 4

        /// The first lost sequence number.
        public var packetID: UInt16
        /// Bit i set: `packetID + i + 1` is lost too.
        public var lostBitmask: UInt16

        /// An item reporting `packetID` lost, and `packetID + i + 1` for each set bit i of `lostBitmask`.
        public init(packetID: UInt16, lostBitmask: UInt16) {
            self.packetID = packetID
            self.lostBitmask = lostBitmask
        }

        /// Reads one from `offset`; the caller guarantees `wireByteCount` bytes are there.
        public init(rtcpBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
            packetID = bytes.uint16(at: offset)
            lostBitmask = bytes.uint16(at: offset + 2)
        }

        /// Calls `body` with each sequence number the item reports lost, in wire order.
        public func forEachLostSequenceNumber<E: Error>(_ body: (UInt16) throws(E) -> Void) throws(E) {
            try body(packetID)
            var mask = lostBitmask
            while mask != 0 {
                let bit = UInt16(mask.trailingZeroBitCount)
                try body(packetID &+ bit &+ 1)
                mask &= mask &- 1
            }
        }
    }

    /// The packet this NACK was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is a generic NACK with a whole number of items.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .genericNACK)
        let itemBytes = packet.byteCountWithoutPadding - Self.fixedByteCount
        guard itemBytes % Item.wireByteCount == 0 else { throw .nackItemsNotMultipleOfFour(byteCount: itemBytes) }
        self.packet = packet
    }

    /// The SSRC of the participant that sent this packet.
    public var senderSSRC: UInt32 { packet.bytes.uint32(at: 4) }
    /// The SSRC of the stream whose packets are lost.
    public var mediaSSRC: UInt32 { packet.bytes.uint32(at: 8) }

    /// The FCI entries, decoded as they are accessed.
    public var items: RTCPItemList<Item> {
        RTCPItemList(
            bytes: packet.bytes,
            start: Self.fixedByteCount,
            count: (packet.byteCountWithoutPadding - Self.fixedByteCount) / Item.wireByteCount)
    }

    /// Calls `body` with every sequence number reported lost, item by item.
    public func forEachLostSequenceNumber<E: Error>(_ body: (UInt16) throws(E) -> Void) throws(E) {
        for item in items {
            try item.forEachLostSequenceNumber(body)
        }
    }

    /// Every sequence number reported lost, item by item, without allocating.
    public var lostSequenceNumbers: LostSequenceNumbers { LostSequenceNumbers(items: items) }

    /// The lost sequence numbers of a NACK, expanded from its items as they are iterated.
    public struct LostSequenceNumbers: Sequence {
        let items: RTCPItemList<Item>

        public func makeIterator() -> Iterator { Iterator(items: items) }

        /// Walks the sequence without allocating.
        public struct Iterator: IteratorProtocol {
            let items: RTCPItemList<Item>
            var itemIndex = 0
            /// Bits still to report of the current item; bit 16 stands for the PID itself.
            var pending: UInt32 = 0
            var packetID: UInt16 = 0

            init(items: RTCPItemList<Item>) { self.items = items }

            public mutating func next() -> UInt16? {
                if pending == 0 {
                    guard itemIndex < items.count else { return nil }
                    let item = items[itemIndex]
                    itemIndex += 1
                    packetID = item.packetID
                    pending = UInt32(item.lostBitmask) << 1 | 1
                }
                let bit = UInt16(pending.trailingZeroBitCount)
                pending &= pending &- 1
                return packetID &+ bit
            }
        }
    }

    /// Groups lost sequence numbers into PID/BLP items, calling `body` with each.
    ///
    /// A number within 16 after the current item's PID joins its bitmask; any other starts a new
    /// item, so input sorted in wrap-around order yields the fewest items. Repeats of the PID are
    /// dropped; other unsorted input is still covered, just in more items.
    public static func forEachItem<E: Error>(
        coveringLost lostSequenceNumbers: some Sequence<UInt16>,
        _ body: (Item) throws(E) -> Void
    ) throws(E) {
        var current: Item?
        for sequenceNumber in lostSequenceNumbers {
            if var item = current {
                let distance = sequenceNumber &- item.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    item.lostBitmask |= 1 << (distance - 1)
                    current = item
                    continue
                }
                try body(item)
            }
            current = Item(packetID: sequenceNumber, lostBitmask: 0)
        }
        if let current { try body(current) }
    }

    /// Appends a generic NACK reporting `lostSequenceNumbers` of `mediaSSRC` lost, grouped as
    /// `forEachItem(coveringLost:_:)` groups them.
    public static func write(
        senderSSRC: UInt32,
        mediaSSRC: UInt32,
        lostSequenceNumbers: some Sequence<UInt16>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let start = writer.offset
        let buffer = writer.buffer
        var end = start + fixedByteCount
        // The item count is only known once the input has been walked, so items are written as
        // they come (while they fit, counted after that) and the header goes in last; the writer
        // moves only on success.
        forEachItem(coveringLost: lostSequenceNumbers) { item in
            if end + Item.wireByteCount <= buffer.count {
                buffer.setUInt16(item.packetID, at: end)
                buffer.setUInt16(item.lostBitmask, at: end + 2)
            }
            end += Item.wireByteCount
        }
        let byteCount = end - start
        guard byteCount > fixedByteCount else { throw .noItems(kind: .genericNACK) }
        guard byteCount <= RTCPWriter.maximumPacketByteCount else {
            throw .packetTooLong(kind: .genericNACK, byteCount: byteCount)
        }
        try writer.requireRoom(byteCount)
        writer.writeHeader(.genericNACK, count: 1, byteCount: byteCount, at: start)
        buffer.setUInt32(senderSSRC, at: start + 4)
        buffer.setUInt32(mediaSSRC, at: start + 8)
        writer.commit(byteCount: byteCount)
    }
}
