/// What was wrong with bytes offered as an RTP packet, or with a change asked of one.
public enum RTPPacketError: Error, Equatable, Sendable {
    /// Fewer than the 12 bytes of the fixed header.
    case shorterThanFixedHeader(length: Int)
    /// The version field is not 2.
    case versionNotTwo(found: UInt8)
    /// The CSRC count says the CSRC list runs past the end of the packet.
    case csrcListPastEnd(csrcCount: Int, length: Int)
    /// The X bit is set but the 4-byte extension header does not fit.
    case extensionHeaderPastEnd(offset: Int, length: Int)
    /// The extension header's length (in 32-bit words) runs past the end of the packet.
    case extensionLengthPastEnd(declaredBytes: Int, available: Int)
    /// A one-byte-form element uses ID 15, which RFC 8285 reserves.
    case extensionReservedID15(offset: Int)
    /// A one-byte-form element with ID 0 (padding) carries a non-zero length.
    case extensionPaddingWithLength(offset: Int)
    /// An extension element's data runs past the end of the extension block.
    case extensionElementPastEnd(id: UInt8, offset: Int)
    /// The P bit is set but the padding count (the last byte) is zero.
    case paddingCountZero
    /// The padding count is larger than what follows the header.
    case paddingLongerThanPayload(padding: Int, available: Int)
    /// Building or growing the packet needs more room than the buffer has.
    case noRoom(needed: Int, capacity: Int)
    /// Too many CSRCs for the 4-bit CSRC count.
    case tooManyCSRCs(count: Int)
    /// An extension ID outside what the packet's extension form allows (one-byte: 1–14, two-byte: 1–255).
    case extensionIDOutOfRange(id: UInt8, form: HeaderExtensionForm)
    /// An extension value length the packet's extension form cannot carry (one-byte: 1–16, two-byte: 0–255).
    case extensionLengthOutOfRange(length: Int, form: HeaderExtensionForm)
    /// The packet carries a header extension of a profile other than RFC 8285's two forms.
    case extensionProfileNotRFC8285(profile: UInt16)
    /// An RFC 2198 redundant block to add is longer than 1,023 bytes or older than 16,383 ticks, which
    /// its header cannot say.
    case redundantBlockNotRepresentable(bytes: Int, timestampOffset: UInt32)
}
