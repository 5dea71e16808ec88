/// An RFC 2198 redundant audio payload (`audio/red`), read over caller-owned memory without allocating:
/// earlier frames repeated ahead of the primary one, so a receiver that lost a packet takes its frame
/// from a later one. Browsers send Opus this way (`red/48000/2`); the router forwards it as is to
/// receivers that negotiated it and passes only the primary frame to the others.
///
///      redundant block header (F = 1), one per earlier frame, oldest first:
///       0                   1                   2                   3
///       0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///      +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///      |1|   block PT  |  timestamp offset         |   block length    |
///      +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///      primary block header (F = 0), last:
///      +-+-+-+-+-+-+-+-+
///      |0|   block PT  |
///      +-+-+-+-+-+-+-+-+
///      then the redundant blocks' bytes in header order, then the primary's to the end.
///
/// The primary block's timestamp is the RTP header's; a redundant block's is that minus its offset.
public struct RedundantAudioPayload {
    /// One block header: what the block carries and where its bytes are in the payload.
    public struct Block: Equatable, Sendable {
        public var payloadType: UInt8
        /// Ticks before the packet's timestamp (0 for the primary block).
        public var timestampOffset: UInt32
        /// Byte range within the payload.
        public var range: Range<Int>
    }

    /// Bytes of a redundant block's header.
    public static let redundantHeaderLength = 4
    /// The most a redundant block's 10-bit length and 14-bit timestamp offset can say.
    public static let maximumBlockLength = 0x3FF
    public static let maximumTimestampOffset: UInt32 = 0x3FFF

    /// The redundant blocks, oldest first, and the primary.
    public let redundantBlockCount: Int
    public let primary: Block
    private let payload: UnsafeRawBufferPointer

    /// Parses `payload` (an RTP packet's payload, without padding), checking every length against it.
    public init(parsing payload: UnsafeRawBufferPointer) throws(RedundantAudioError) {
        guard !payload.isEmpty else { throw .emptyPayload }
        var offset = 0
        var blockBytes = 0
        var count = 0
        while payload[offset] & 0x80 != 0 {
            guard offset + Self.redundantHeaderLength < payload.count else { throw .headerPastEnd(offset: offset) }
            blockBytes += Int(payload.uint16(at: offset + 2) & 0x3FF)
            count += 1
            offset += Self.redundantHeaderLength
        }
        let headersEnd = offset + 1
        guard blockBytes <= payload.count - headersEnd else {
            throw .blocksPastEnd(declaredBytes: blockBytes, available: payload.count - headersEnd)
        }
        self.payload = payload
        redundantBlockCount = count
        primary = Block(payloadType: payload[offset] & 0x7F, timestampOffset: 0, range: (headersEnd + blockBytes)..<payload.count)
    }

    /// The redundant block at `index` (0 is the oldest).
    public func redundantBlock(at index: Int) -> Block {
        precondition(index >= 0 && index < redundantBlockCount, "redundant block \(index) of \(redundantBlockCount)")
        var start = Self.redundantHeaderLength * redundantBlockCount + 1
        for earlier in 0..<index { start += Int(payload.uint16(at: Self.redundantHeaderLength * earlier + 2) & 0x3FF) }
        let header = Self.redundantHeaderLength * index
        let word = payload.uint24(at: header + 1)
        return Block(
            payloadType: payload[header] & 0x7F, timestampOffset: word >> 10,
            range: start..<(start + Int(word & 0x3FF)))
    }

    /// Writes a payload of `redundant` earlier frames (oldest first, each with its timestamp offset)
    /// and the `primary` frame into `destination`, all of `payloadType`; returns the bytes written.
    public static func write(
        primary: UnsafeRawBufferPointer, redundant: [(frame: UnsafeRawBufferPointer, timestampOffset: UInt32)],
        payloadType: UInt8, into destination: UnsafeMutableRawBufferPointer
    ) throws(RedundantAudioError) -> Int {
        let needed = redundant.reduce(primary.count + 1) { $0 + redundantHeaderLength + $1.frame.count }
        guard needed <= destination.count else { throw .noRoom(needed: needed, capacity: destination.count) }
        var offset = 0
        for block in redundant {
            try writeRedundantHeader(payloadType: payloadType, timestampOffset: block.timestampOffset, length: block.frame.count, at: offset, in: destination)
            offset += redundantHeaderLength
        }
        destination[offset] = payloadType & 0x7F
        offset += 1
        for frame in redundant.map(\.frame) + [primary] where !frame.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: destination[offset..<(offset + frame.count)]).copyMemory(from: frame)
            offset += frame.count
        }
        return offset
    }

    /// Writes one redundant block's 4-byte header at `offset`, refusing what its fields cannot say.
    static func writeRedundantHeader(
        payloadType: UInt8, timestampOffset: UInt32, length: Int, at offset: Int, in destination: UnsafeMutableRawBufferPointer
    ) throws(RedundantAudioError) {
        guard length <= maximumBlockLength, timestampOffset <= maximumTimestampOffset else {
            throw .redundantBlockTooLarge(bytes: length, timestampOffset: timestampOffset)
        }
        destination[offset] = 0x80 | payloadType & 0x7F
        let word = timestampOffset << 10 | UInt32(length)
        destination[offset + 1] = UInt8(truncatingIfNeeded: word >> 16)
        destination[offset + 2] = UInt8(truncatingIfNeeded: word >> 8)
        destination[offset + 3] = UInt8(truncatingIfNeeded: word)
    }
}
