/// A source description, SDES (RFC 3550 section 6.5): text items per source. Only CNAME (type 1)
/// is surfaced; other item types are walked over.
///
///             0                   1                   2                   3
///             0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///            +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     header |V=2|P|    SC   |  PT=SDES=202  |             length            |
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     chunk  |                          SSRC/CSRC_1                          |
///       1    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///            |                           SDES items                          |
///            |                              ...                              |
///            +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     chunk  |                          SSRC/CSRC_2                          |
///       2    :                              ...                              :
///
///     item:  |    type (1)   |     length    | text (length bytes)          ...
///     end:   | 0 (null item) | zero or more null octets up to a 32-bit boundary
///
/// Each chunk's item list ends with a null octet and is padded with more null octets to the next
/// 32-bit boundary, which is what lets the next chunk start aligned.
public struct RTCPSourceDescription {
    /// The SDES item type carrying the canonical name.
    public static let cnameItemType: UInt8 = 1

    /// The packet this description was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is an SDES whose `chunkCount` chunks each end in a terminator.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .sourceDescription)
        let count = Int(packet.count)
        let end = packet.byteCountWithoutPadding
        var offset = RTCPHeader.byteCount
        for index in 0..<count {
            switch Self.scanChunk(in: packet.bytes, from: offset, end: end, index: index, count: count) {
            case .success(let chunk): offset = chunk.next
            case .failure(let error): throw error
            }
        }
        self.packet = packet
    }

    /// How many chunks (sources) the description carries.
    public var chunkCount: Int { Int(packet.count) }

    /// The chunks in order, each with its SSRC and CNAME if it has one.
    public var chunks: Chunks { Chunks(bytes: packet.bytes, end: packet.byteCountWithoutPadding, count: chunkCount) }

    /// One source's entry.
    public struct Chunk {
        /// The SSRC or CSRC the items describe.
        public let ssrc: UInt32
        /// The CNAME item's text (UTF-8, not terminated), or nil when the chunk has none.
        public let cname: UnsafeRawBufferPointer?

        /// The CNAME decoded as a string; allocates, so for the control path only.
        public var cnameString: String? { cname.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The chunks of a checked SDES.
    public struct Chunks: Sequence {
        let bytes: UnsafeRawBufferPointer
        let end: Int
        let count: Int

        public func makeIterator() -> Iterator { Iterator(chunks: self) }

        /// Walks the sequence without allocating.
        public struct Iterator: IteratorProtocol {
            let chunks: Chunks
            var offset = RTCPHeader.byteCount
            var index = 0

            init(chunks: Chunks) { self.chunks = chunks }

            public mutating func next() -> Chunk? {
                guard index < chunks.count else { return nil }
                let scanned = RTCPSourceDescription.scanChunk(
                    in: chunks.bytes, from: offset, end: chunks.end, index: index, count: chunks.count)
                guard case .success(let chunk) = scanned else {
                    index = chunks.count
                    return nil
                }
                offset = chunk.next
                index += 1
                let cname = chunk.cname.map { UnsafeRawBufferPointer(rebasing: chunks.bytes[$0]) }
                return Chunk(ssrc: chunks.bytes.uint32(at: chunk.start), cname: cname)
            }
        }
    }

    struct ScannedChunk {
        var start: Int
        var next: Int
        var cname: Range<Int>?
    }

    /// Walks one chunk's items from `start`, bounds-checking each, to find its CNAME and where the
    /// next chunk starts. Shared by validation and iteration so that they cannot disagree.
    static func scanChunk(
        in bytes: UnsafeRawBufferPointer,
        from start: Int,
        end: Int,
        index: Int,
        count: Int
    ) -> Result<ScannedChunk, RTCPError> {
        guard start + 4 <= end else { return .failure(.sdesChunkPastEnd(chunkIndex: index, count: count)) }
        var offset = start + 4
        var cname: Range<Int>?
        while true {
            guard offset < end else { return .failure(.sdesWithoutTerminator(chunkIndex: index)) }
            let type = bytes[offset]
            if type == 0 {
                // Packet offsets are 32-bit aligned, so aligning the packet offset aligns the chunk.
                let next = RTCPWriter.padded(offset + 1)
                guard next <= end else { return .failure(.sdesWithoutTerminator(chunkIndex: index)) }
                return .success(ScannedChunk(start: start, next: next, cname: cname))
            }
            guard offset + 2 <= end else {
                return .failure(
                    .sdesItemPastEnd(chunkIndex: index, itemType: type, itemBytes: 2, available: end - offset))
            }
            let itemBytes = 2 + Int(bytes[offset + 1])
            guard offset + itemBytes <= end else {
                return .failure(
                    .sdesItemPastEnd(chunkIndex: index, itemType: type, itemBytes: itemBytes, available: end - offset))
            }
            if type == cnameItemType && cname == nil {
                cname = (offset + 2)..<(offset + itemBytes)
            }
            offset += itemBytes
        }
    }

    /// Appends an SDES with one chunk: `ssrc` and its CNAME.
    public static func write(ssrc: UInt32, cname: String, into writer: inout RTCPWriter) throws(RTCPError) {
        try write(chunks: CollectionOfOne((ssrc: ssrc, cname: cname)), into: &writer)
    }

    /// Appends an SDES with a CNAME chunk per entry, up to 31.
    public static func write(
        chunks: some Collection<(ssrc: UInt32, cname: String)>,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let count = chunks.count
        guard count <= 31 else { throw .tooManyItems(kind: .sourceDescription, count: count, maximum: 31) }
        var byteCount = RTCPHeader.byteCount
        for chunk in chunks {
            let textBytes = chunk.cname.utf8.count
            guard textBytes <= 255 else {
                throw .textTooLong(kind: .sourceDescription, byteCount: textBytes, maximum: 255)
            }
            byteCount += chunkByteCount(textBytes: textBytes)
        }
        let start = try writer.beginPacket(.sourceDescription, count: UInt8(count), byteCount: byteCount)
        let buffer = writer.buffer
        var offset = start + RTCPHeader.byteCount
        for chunk in chunks {
            let utf8 = chunk.cname.utf8
            let chunkBytes = chunkByteCount(textBytes: utf8.count)
            buffer.setUInt32(chunk.ssrc, at: offset)
            buffer[offset + 4] = cnameItemType
            buffer[offset + 5] = UInt8(utf8.count)
            writer.copy(utf8, to: offset + 6)
            let terminator = offset + 6 + utf8.count
            writer.zero(from: terminator, count: offset + chunkBytes - terminator)
            offset += chunkBytes
        }
        writer.commit(byteCount: byteCount)
    }

    /// SSRC, CNAME type and length, the text, then at least one null octet, rounded up to 32 bits.
    static func chunkByteCount(textBytes: Int) -> Int {
        RTCPWriter.padded(4 + 2 + textBytes + 1)
    }
}
