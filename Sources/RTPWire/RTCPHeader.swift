/// The 4-byte common header every RTCP packet starts with (RFC 3550 section 6.4.1).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  count  |      PT       |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// `count` is the report count (SR, RR), source count (SDES, BYE) or feedback message type, FMT
/// (RFC 4585 section 6.1). `length` counts 32-bit words minus one, header and padding included, so
/// that 0 is a bare header and no packet can have length zero in bytes.
public struct RTCPHeader: Hashable, Sendable {
    /// Bytes of the common header.
    public static let byteCount = 4
    /// The only RTP/RTCP version in use.
    public static let version: UInt8 = 2

    /// V: 2 for every packet this module accepts.
    public var version: UInt8
    /// P: the last byte counts padding bytes at the end, itself included.
    public var hasPadding: Bool
    /// RC, SC or FMT, depending on the packet type: 5 bits.
    public var count: UInt8
    /// PT: which packet this is (with FMT, for feedback).
    public var packetType: RTCPPacketType
    /// The packet's size in 32-bit words minus one.
    public var length: UInt16

    /// A header with the given fields; `length` is in 32-bit words minus one.
    public init(
        version: UInt8 = RTCPHeader.version,
        hasPadding: Bool = false,
        count: UInt8,
        packetType: RTCPPacketType,
        length: UInt16
    ) {
        self.version = version
        self.hasPadding = hasPadding
        self.count = count
        self.packetType = packetType
        self.length = length
    }

    /// Reads a header from 4 bytes at `offset`, which the caller has checked are there.
    init(reading bytes: UnsafeRawBufferPointer, at offset: Int) {
        let first = bytes[offset]
        version = first >> 6
        hasPadding = first & 0x20 != 0
        count = first & 0x1F
        packetType = RTCPPacketType(rawValue: bytes[offset + 1])
        length = bytes.uint16(at: offset + 2)
    }

    /// The feedback message type, which feedback packets (RFC 4585) carry in the count field.
    public var format: UInt8 { count }

    /// Bytes of the whole packet the length field describes, header and padding included.
    public var packetByteCount: Int { (Int(length) + 1) * 4 }

    /// Writes the header at `offset`, which the caller has checked has room for 4 bytes.
    func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes[offset] = version << 6 | (hasPadding ? 0x20 : 0) | count & 0x1F
        bytes[offset + 1] = packetType.rawValue
        bytes.setUInt16(length, at: offset + 2)
    }
}
