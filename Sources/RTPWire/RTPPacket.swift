/// A view of an RTP packet (RFC 3550 section 5.1) over a caller-owned buffer, read and rewritten in
/// place. The view never copies or allocates: fields are read big-endian on demand.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                           timestamp                           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           synchronization source (SSRC) identifier            |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |            contributing source (CSRC) identifiers             |
///     |                             ....                              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  defined by profile (0xBEDE)  |           length              |  if X
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     header extension elements                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     payload ...   | padding ... | pad count   |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// `storage` may be longer than the packet: the tail room lets header extensions be added in place,
/// and lets SRTP append its authentication tag.
public struct RTPPacket {
    public static let fixedHeaderLength = 12
    public static let version: UInt8 = 2

    /// The buffer the packet lives in; the packet is its first `length` bytes.
    public let storage: UnsafeMutableRawBufferPointer
    /// Bytes of the packet, from the first header byte through the padding count.
    public internal(set) var length: Int
    /// Bytes from the start of the packet to the payload (fixed header, CSRCs, extension block).
    public internal(set) var headerLength: Int
    /// Bytes of padding at the end, including the count byte; 0 when the P bit is clear.
    public internal(set) var paddingLength: Int

    /// Parses the first `length` bytes of `storage` (all of it when `length` is nil), validating every
    /// length field so that later reads stay in bounds.
    public init(parsing storage: UnsafeMutableRawBufferPointer, length: Int? = nil) throws(RTPPacketError) {
        let length = min(length ?? storage.count, storage.count)
        self.storage = storage
        self.length = length
        guard length >= Self.fixedHeaderLength else { throw .shorterThanFixedHeader(length: length) }
        let first = storage[0]
        let version = first >> 6
        guard version == Self.version else { throw .versionNotTwo(found: version) }
        let csrcCount = Int(first & 0x0F)
        var offset = Self.fixedHeaderLength + 4 * csrcCount
        guard offset <= length else { throw .csrcListPastEnd(csrcCount: csrcCount, length: length) }
        if first & 0x10 != 0 {
            guard offset + 4 <= length else { throw .extensionHeaderPastEnd(offset: offset, length: length) }
            let blockLength = 4 * Int(storage.uint16(at: offset + 2))
            let available = length - offset - 4
            guard blockLength <= available else {
                throw .extensionLengthPastEnd(declaredBytes: blockLength, available: available)
            }
            if let form = HeaderExtensionForm(profile: storage.uint16(at: offset)) {
                try Self.validateElements(in: storage, from: offset + 4, to: offset + 4 + blockLength, form: form)
            }
            offset += 4 + blockLength
        }
        self.headerLength = offset
        if first & 0x20 != 0 {
            let padding = Int(storage[length - 1])
            guard padding != 0 else { throw .paddingCountZero }
            guard padding <= length - offset else {
                throw .paddingLongerThanPayload(padding: padding, available: length - offset)
            }
            self.paddingLength = padding
        } else {
            self.paddingLength = 0
        }
    }

    /// Writes a fresh header with no CSRCs and no extension, followed by `payload`, at the start of
    /// `storage`.
    public init(
        writingInto storage: UnsafeMutableRawBufferPointer,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        marker: Bool = false,
        payload: UnsafeRawBufferPointer
    ) throws(RTPPacketError) {
        let length = Self.fixedHeaderLength + payload.count
        guard length <= storage.count else { throw .noRoom(needed: length, capacity: storage.count) }
        self.storage = storage
        self.length = length
        self.headerLength = Self.fixedHeaderLength
        self.paddingLength = 0
        storage[0] = Self.version << 6
        storage[1] = 0
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        if let source = payload.baseAddress, let destination = storage.baseAddress, !payload.isEmpty {
            (destination + Self.fixedHeaderLength).copyMemory(from: source, byteCount: payload.count)
        }
    }

    /// The packet's bytes.
    @inlinable
    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[0..<length])
    }

    @inlinable public var version: UInt8 { storage[0] >> 6 }
    @inlinable public var hasPadding: Bool { storage[0] & 0x20 != 0 }
    @inlinable public var hasExtension: Bool { storage[0] & 0x10 != 0 }
    @inlinable public var csrcCount: Int { Int(storage[0] & 0x0F) }

    @inlinable
    public var marker: Bool {
        get { storage[1] & 0x80 != 0 }
        nonmutating set { storage[1] = newValue ? storage[1] | 0x80 : storage[1] & 0x7F }
    }

    /// The 7-bit payload type; setting keeps the marker bit and ignores the value's top bit.
    @inlinable
    public var payloadType: UInt8 {
        get { storage[1] & 0x7F }
        nonmutating set { storage[1] = storage[1] & 0x80 | newValue & 0x7F }
    }

    @inlinable
    public var sequenceNumber: UInt16 {
        get { storage.uint16(at: 2) }
        nonmutating set { storage.setUInt16(newValue, at: 2) }
    }

    @inlinable
    public var timestamp: UInt32 {
        get { storage.uint32(at: 4) }
        nonmutating set { storage.setUInt32(newValue, at: 4) }
    }

    @inlinable
    public var ssrc: UInt32 {
        get { storage.uint32(at: 8) }
        nonmutating set { storage.setUInt32(newValue, at: 8) }
    }

    /// The CSRC at `index`, which must be below `csrcCount`.
    @inlinable
    public func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index out of range")
        return storage.uint32(at: Self.fixedHeaderLength + 4 * index)
    }

    /// Offset of the 4-byte extension header, when the X bit is set.
    @inlinable
    public var extensionHeaderOffset: Int? {
        hasExtension ? Self.fixedHeaderLength + 4 * csrcCount : nil
    }

    /// The "defined by profile" field of the extension header, when the X bit is set.
    @inlinable
    public var extensionProfile: UInt16? {
        extensionHeaderOffset.map { storage.uint16(at: $0) }
    }

    /// The RFC 8285 form of the extension block, when there is one in either form.
    @inlinable
    public var extensionForm: HeaderExtensionForm? {
        extensionProfile.flatMap { HeaderExtensionForm(profile: $0) }
    }

    @inlinable
    public var payloadOffset: Int { headerLength }

    @inlinable
    public var payloadLength: Int { length - headerLength - paddingLength }

    /// The payload, between the header and the padding.
    @inlinable
    public var payload: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[headerLength..<(headerLength + payloadLength)])
    }

    /// Removes the padding, clearing the P bit: forwarded packets need not carry a sender's padding.
    public mutating func removePadding() {
        guard paddingLength > 0 else { return }
        length -= paddingLength
        paddingLength = 0
        storage[0] &= ~0x20
    }

    /// Changes the payload length, keeping the header; the new bytes are not initialised. Padding is
    /// removed first.
    public mutating func setPayloadLength(_ payloadLength: Int) throws(RTPPacketError) {
        removePadding()
        let needed = headerLength + payloadLength
        guard needed <= storage.count else { throw .noRoom(needed: needed, capacity: storage.count) }
        length = needed
    }

    static func validateElements(
        in storage: UnsafeMutableRawBufferPointer,
        from start: Int,
        to end: Int,
        form: HeaderExtensionForm
    ) throws(RTPPacketError) {
        var offset = start
        switch form {
        case .oneByte:
            while offset < end {
                let byte = storage[offset]
                let id = byte >> 4
                if id == 0 {
                    guard byte == 0 else { throw .extensionPaddingWithLength(offset: offset) }
                    offset += 1
                    continue
                }
                guard id != 15 else { throw .extensionReservedID15(offset: offset) }
                let valueEnd = offset + 1 + Int(byte & 0x0F) + 1
                guard valueEnd <= end else { throw .extensionElementPastEnd(id: id, offset: offset) }
                offset = valueEnd
            }
        case .twoByte:
            while offset < end {
                let id = storage[offset]
                if id == 0 {
                    offset += 1
                    continue
                }
                guard offset + 2 <= end else { throw .extensionElementPastEnd(id: id, offset: offset) }
                let valueEnd = offset + 2 + Int(storage[offset + 1])
                guard valueEnd <= end else { throw .extensionElementPastEnd(id: id, offset: offset) }
                offset = valueEnd
            }
        }
    }
}

extension RTPPacket {
    /// Copies this already-validated packet to the start of `destination` and returns a view of the copy,
    /// without validating again; nil when `destination` is too small. The forwarder copies each packet
    /// into a per-subscriber buffer this way before rewriting and encrypting it.
    @inlinable
    public func copy(into destination: UnsafeMutableRawBufferPointer) -> RTPPacket? {
        guard length <= destination.count, let target = destination.baseAddress, let source = storage.baseAddress
        else { return nil }
        target.copyMemory(from: source, byteCount: length)
        return RTPPacket(
            validatedStorage: destination, length: length, headerLength: headerLength, paddingLength: paddingLength)
    }

    @usableFromInline
    init(validatedStorage storage: UnsafeMutableRawBufferPointer, length: Int, headerLength: Int, paddingLength: Int) {
        self.storage = storage
        self.length = length
        self.headerLength = headerLength
        self.paddingLength = paddingLength
    }
}

extension RTPPacket {
    /// Makes room for `count` bytes at the start of the payload, moving the payload down (padding is
    /// removed first): how a packet becomes an RFC 4588 retransmission that leads with its original
    /// sequence number. The new bytes are not initialised.
    public mutating func insertLeadingPayloadBytes(_ count: Int) throws(RTPPacketError) {
        removePadding()
        let needed = length + count
        guard needed <= storage.count else { throw .noRoom(needed: needed, capacity: storage.count) }
        storage.moveBytes(from: headerLength, to: headerLength + count, count: payloadLength)
        length = needed
    }

    /// Removes the first `count` payload bytes, moving the rest of the payload up: how an RFC 4588
    /// retransmission sheds its original-sequence-number field. Padding is removed first.
    public mutating func removeLeadingPayloadBytes(_ count: Int) throws(RTPPacketError) {
        removePadding()
        guard count <= payloadLength else {
            throw .paddingLongerThanPayload(padding: count, available: payloadLength)
        }
        storage.moveBytes(from: headerLength + count, to: headerLength, count: payloadLength - count)
        length -= count
    }
}
