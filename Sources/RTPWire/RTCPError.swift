/// What was wrong with bytes offered as RTCP, or with a packet asked to be built.
///
/// Offsets are byte offsets of the offending packet within the compound packet; byte counts of a
/// packet exclude its padding unless the case says otherwise.
public enum RTCPError: Error, Equatable, Sendable {
    // MARK: Framing (RFC 3550 section 6.4.1 common header, appendix A.2 validity checks)

    /// The compound packet has no bytes at all.
    case emptyCompound
    /// Fewer than the 4 bytes of a common header remain at `offset`.
    case truncatedHeader(offset: Int, available: Int)
    /// The version field of the packet at `offset` is not 2.
    case versionNotTwo(found: UInt8, offset: Int)
    /// The length field of the packet at `offset` claims more bytes than remain.
    case lengthPastEnd(offset: Int, declaredBytes: Int, available: Int)
    /// The P bit of the packet at `offset` is set but its padding count (last byte) is zero.
    case paddingCountZero(offset: Int)
    /// The padding count of the packet at `offset` is larger than what follows its header.
    case paddingPastPayload(offset: Int, paddingBytes: Int, available: Int)

    // MARK: Packet bodies

    /// A typed view was asked for a packet of another type (or feedback format).
    case wrongPacketType(expected: RTCPPacketKind, packetType: UInt8, format: UInt8)
    /// The packet is shorter than the fixed part of its type. A length field of 0 (a bare 4-byte
    /// header) for a type that carries an SSRC lands here.
    case packetTooShort(kind: RTCPPacketKind, minimumBytes: Int, available: Int)
    /// The report count of an SR or RR claims more 24-byte report blocks than the packet holds.
    case reportBlocksPastEnd(kind: RTCPPacketKind, count: Int, available: Int)
    /// SDES chunk `chunkIndex` (of the source count) starts where no SSRC fits.
    case sdesChunkPastEnd(chunkIndex: Int, count: Int)
    /// An SDES item (type, length and text: `itemBytes`, or at least 2 when the length octet itself is
    /// missing) runs past the end of the packet; `available` counts from the item's type octet.
    case sdesItemPastEnd(chunkIndex: Int, itemType: UInt8, itemBytes: Int, available: Int)
    /// SDES chunk `chunkIndex` runs out of bytes before its null terminator and 32-bit alignment.
    case sdesWithoutTerminator(chunkIndex: Int)
    /// The source count of a BYE claims more SSRCs than the packet holds.
    case byeSSRCsPastEnd(count: Int, available: Int)
    /// The reason-for-leaving length of a BYE runs past the end of the packet.
    case byeReasonPastEnd(declaredBytes: Int, available: Int)
    /// The generic NACK feedback control information is not a whole number of 4-byte items.
    case nackItemsNotMultipleOfFour(byteCount: Int)
    /// The FIR feedback control information is not a whole number of 8-byte items.
    case firItemsNotMultipleOfEight(byteCount: Int)
    /// A payload-specific feedback packet with FMT 15 does not carry the "REMB" identifier.
    case rembIdentifierMismatch(found: UInt32)
    /// The REMB SSRC count claims more SSRCs than the packet holds.
    case rembSSRCCountPastEnd(count: Int, available: Int)
    /// The REMB mantissa shifted by the exponent does not fit 64 bits.
    case rembBitrateOverflow(exponent: UInt8, mantissa: UInt32)
    /// A transport-wide CC feedback reports no packets (libwebrtc rejects these too).
    case transportCCStatusCountZero
    /// The packet chunks run out of bytes before describing `statusCount` packets.
    case transportCCStatusCountPastEnd(statusCount: Int, described: Int, available: Int)
    /// A status symbol within the status count uses the reserved value 3.
    case transportCCReservedSymbol(chunkIndex: Int)
    /// The receive deltas the chunks call for do not fit in what follows the chunks.
    case transportCCDeltasPastEnd(neededBytes: Int, available: Int)

    // MARK: Building

    /// The writer's buffer has `available` bytes left but the packet needs `needed`.
    case noRoom(needed: Int, available: Int)
    /// More items than the packet's count field can say (31 for RC/SC, 255 for REMB, 65535 for
    /// transport-wide CC).
    case tooManyItems(kind: RTCPPacketKind, count: Int, maximum: Int)
    /// The packet type requires at least one item (NACK, FIR, transport-wide CC).
    case noItems(kind: RTCPPacketKind)
    /// A text (SDES item or BYE reason) longer than its 8-bit length field allows.
    case textTooLong(kind: RTCPPacketKind, byteCount: Int, maximum: Int)
    /// The packet would exceed what the 16-bit length field can describe.
    case packetTooLong(kind: RTCPPacketKind, byteCount: Int)
}
