/// What was wrong with bytes offered as a VP8 payload descriptor (RFC 7741 section 4.2), or with a
/// rewrite asked of one.
public enum VP8DescriptorError: Error, Equatable, Sendable {
    /// The RTP payload has no bytes at all, so not even the required first descriptor octet.
    case emptyPayload
    /// A flag announces `field`, but the payload ends before it: the descriptor needs `needed` bytes
    /// up to and including that field and the payload has only `available`.
    case truncated(field: Field, needed: Int, available: Int)
    /// A picture ID rewrite was asked of a descriptor whose I bit is clear: there is no field to
    /// write, and adding one would shift the payload.
    case pictureIDAbsent
    /// A TL0PICIDX rewrite was asked of a descriptor whose L bit is clear.
    case tl0PictureIndexAbsent

    /// The optional descriptor octets, named after the flag that announces them.
    public enum Field: Equatable, Sendable {
        /// The `I|L|T|K|RSV` octet announced by X.
        case extendedControlBits
        /// The 7- or 15-bit PictureID announced by I (and widened by M).
        case pictureID
        /// The TL0PICIDX octet announced by L.
        case tl0PictureIndex
        /// The `TID|Y|KEYIDX` octet announced by T or K.
        case temporalLayerAndKeyIndex
    }
}
