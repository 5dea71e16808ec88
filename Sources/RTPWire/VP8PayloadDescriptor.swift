/// The VP8 payload descriptor at the start of every VP8 RTP payload (RFC 7741 section 4.2), parsed
/// from caller-owned memory without allocating.
///
///            0 1 2 3 4 5 6 7
///           +-+-+-+-+-+-+-+-+
///           |X|R|N|S|R| PID | (REQUIRED)
///           +-+-+-+-+-+-+-+-+
///      X:   |I|L|T|K| RSV   | (OPTIONAL)
///           +-+-+-+-+-+-+-+-+
///      I:   |M| PictureID   | (OPTIONAL)
///           +-+-+-+-+-+-+-+-+
///      M:   |   PictureID   | (present when M = 1: 15-bit PictureID)
///           +-+-+-+-+-+-+-+-+
///      L:   |   TL0PICIDX   | (OPTIONAL)
///           +-+-+-+-+-+-+-+-+
///      T/K: |TID|Y| KEYIDX  | (OPTIONAL)
///           +-+-+-+-+-+-+-+-+
///
/// The descriptor is followed by the VP8 payload header (RFC 7741 section 4.3) when the packet starts
/// a partition; its first octet carries the inverse key frame bit:
///
///            0 1 2 3 4 5 6 7
///           +-+-+-+-+-+-+-+-+
///           |Size0|H| VER |P|
///           +-+-+-+-+-+-+-+-+
///
/// The value keeps only the parsed fields, so it may outlive the buffer; the in-place rewrites take
/// the buffer again and must be given the payload this descriptor was parsed from.
public struct VP8PayloadDescriptor: Equatable, Sendable {
    /// How many bits the packet spends on its PictureID, chosen by the M bit.
    public enum PictureIDWidth: Equatable, Sendable {
        /// One octet, M = 0: values 0...127.
        case sevenBits
        /// Two octets, M = 1: values 0...32767.
        case fifteenBits

        /// The number of distinct values the field can hold; PictureIDs wrap modulo this.
        @inlinable
        public var modulus: UInt16 {
            switch self {
            case .sevenBits: 1 << 7
            case .fifteenBits: 1 << 15
            }
        }

        @inlinable
        var octets: Int {
            switch self {
            case .sevenBits: 1
            case .fifteenBits: 2
            }
        }
    }

    /// The offset of the PictureID: it always follows the required octet and the X octet.
    @usableFromInline
    static let pictureIDOffset = 2

    /// X: the extended control bits octet is present.
    public var hasExtendedControlBits: Bool
    /// N: the frame can be discarded without affecting any other frame.
    public var isNonReferenceFrame: Bool
    /// S: the packet starts a VP8 partition.
    public var isStartOfPartition: Bool
    /// PID: the index of the partition the first payload octet belongs to (0...7).
    public var partitionIndex: UInt8
    /// The PictureID, when I is set.
    public var pictureID: UInt16?
    /// The width the packet spends on `pictureID`, when I is set.
    public var pictureIDWidth: PictureIDWidth?
    /// TL0PICIDX, the running index of the temporal base layer frames, when L is set.
    public var tl0PictureIndex: UInt8?
    /// TID, the temporal layer index (0...3), when T is set.
    public var temporalLayerID: UInt8?
    /// Y: the frame depends only on base layer frames, so a receiver may switch up to its layer here.
    /// Always false when T is clear, since Y is then meaningless.
    public var isLayerSync: Bool
    /// KEYIDX, the running index of key frames (0...31), when K is set.
    public var keyIndex: UInt8?
    /// Bytes of descriptor, which is the offset of the VP8 payload header within the RTP payload.
    public var length: Int
    /// The first octet after the descriptor, nil when the payload ends with the descriptor.
    public var firstPayloadHeaderByte: UInt8?

    /// Whether this packet carries the first bytes of a frame: S = 1 and PID = 0.
    @inlinable
    public var isStartOfFrame: Bool {
        isStartOfPartition && partitionIndex == 0
    }

    /// Whether this packet starts a key frame (RFC 7741 section 4.3): it starts the frame and the
    /// payload header's P bit, the inverse key frame flag, is 0. False when the payload header is
    /// missing, since the packet then proves nothing.
    @inlinable
    public var isKeyFrame: Bool {
        guard isStartOfFrame, let header = firstPayloadHeaderByte else { return false }
        return header & 0x01 == 0
    }

    /// The offset of TL0PICIDX, which shifts with the PictureID width before it.
    @inlinable
    var tl0PictureIndexOffset: Int {
        Self.pictureIDOffset + (pictureIDWidth?.octets ?? 0)
    }

    /// Parses the descriptor at the start of an RTP payload, checking each optional octet's presence
    /// before reading it.
    @inlinable
    public init(parsing payload: UnsafeRawBufferPointer) throws(VP8DescriptorError) {
        let available = payload.count
        guard available > 0 else { throw .emptyPayload }
        let mandatory = payload.uint8(at: 0)
        hasExtendedControlBits = mandatory & 0x80 != 0
        isNonReferenceFrame = mandatory & 0x20 != 0
        isStartOfPartition = mandatory & 0x10 != 0
        partitionIndex = mandatory & 0x07
        pictureID = nil
        pictureIDWidth = nil
        tl0PictureIndex = nil
        temporalLayerID = nil
        isLayerSync = false
        keyIndex = nil
        var offset = 1

        if hasExtendedControlBits {
            guard available >= offset + 1 else {
                throw .truncated(field: .extendedControlBits, needed: offset + 1, available: available)
            }
            let extended = payload.uint8(at: offset)
            offset += 1
            if extended & 0x80 != 0 {
                guard available >= offset + 1 else {
                    throw .truncated(field: .pictureID, needed: offset + 1, available: available)
                }
                let high = payload.uint8(at: offset)
                if high & 0x80 != 0 {
                    guard available >= offset + 2 else {
                        throw .truncated(field: .pictureID, needed: offset + 2, available: available)
                    }
                    pictureID = payload.uint16(at: offset) & 0x7FFF
                    pictureIDWidth = .fifteenBits
                    offset += 2
                } else {
                    pictureID = UInt16(high)
                    pictureIDWidth = .sevenBits
                    offset += 1
                }
            }
            if extended & 0x40 != 0 {
                guard available >= offset + 1 else {
                    throw .truncated(field: .tl0PictureIndex, needed: offset + 1, available: available)
                }
                tl0PictureIndex = payload.uint8(at: offset)
                offset += 1
            }
            let hasTemporalLayer = extended & 0x20 != 0
            let hasKeyIndex = extended & 0x10 != 0
            if hasTemporalLayer || hasKeyIndex {
                guard available >= offset + 1 else {
                    throw .truncated(field: .temporalLayerAndKeyIndex, needed: offset + 1, available: available)
                }
                let layer = payload.uint8(at: offset)
                if hasTemporalLayer {
                    temporalLayerID = layer >> 6
                    isLayerSync = layer & 0x20 != 0
                }
                if hasKeyIndex {
                    keyIndex = layer & 0x1F
                }
                offset += 1
            }
        }

        length = offset
        firstPayloadHeaderByte = offset < available ? payload.uint8(at: offset) : nil
    }

    /// Parses the descriptor at the start of a mutable RTP payload; see `init(parsing:)`.
    @inlinable
    public init(parsing payload: UnsafeMutableRawBufferPointer) throws(VP8DescriptorError) {
        try self.init(parsing: UnsafeRawBufferPointer(payload))
    }

    /// Overwrites the PictureID in `payload` and in this value, keeping the packet's width so that
    /// the payload does not move.
    ///
    /// A value wider than the field is reduced modulo the field's `modulus`: a 15-bit PictureID
    /// written into a 7-bit field keeps its low 7 bits (value mod 128), and bit 15 is always dropped.
    /// A forwarder that maps several senders onto one outgoing stream must therefore keep its own
    /// counter in the width of the packets it rewrites.
    ///
    /// - Throws: `.pictureIDAbsent` when the descriptor has no PictureID; `.truncated` when
    ///   `payload` is shorter than the field (it is not the payload this descriptor came from).
    @inlinable
    public mutating func rewrite(
        pictureID newValue: UInt16,
        in payload: UnsafeMutableRawBufferPointer
    ) throws(VP8DescriptorError) {
        guard let width = pictureIDWidth else { throw .pictureIDAbsent }
        let offset = Self.pictureIDOffset
        guard payload.count >= offset + width.octets else {
            throw .truncated(field: .pictureID, needed: offset + width.octets, available: payload.count)
        }
        let value = newValue % width.modulus
        switch width {
        case .sevenBits:
            payload.setUInt8(UInt8(truncatingIfNeeded: value), at: offset)
        case .fifteenBits:
            payload.setUInt16(0x8000 | value, at: offset)
        }
        pictureID = value
    }

    /// Overwrites TL0PICIDX in `payload` and in this value.
    ///
    /// - Throws: `.tl0PictureIndexAbsent` when L is clear; `.truncated` when `payload` is shorter
    ///   than the field (it is not the payload this descriptor came from).
    @inlinable
    public mutating func rewrite(
        tl0PictureIndex newValue: UInt8,
        in payload: UnsafeMutableRawBufferPointer
    ) throws(VP8DescriptorError) {
        guard tl0PictureIndex != nil else { throw .tl0PictureIndexAbsent }
        let offset = tl0PictureIndexOffset
        guard payload.count >= offset + 1 else {
            throw .truncated(field: .tl0PictureIndex, needed: offset + 1, available: payload.count)
        }
        payload.setUInt8(newValue, at: offset)
        tl0PictureIndex = newValue
    }
}
