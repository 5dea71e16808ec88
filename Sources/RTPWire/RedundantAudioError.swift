/// What was wrong with bytes offered as an RFC 2198 redundant audio payload.
public enum RedundantAudioError: Error, Equatable, Sendable {
    /// The payload has no bytes, so not even the primary block's one-byte header.
    case emptyPayload
    /// A block header (4 bytes for a redundant block, 1 for the primary) runs past the payload.
    case headerPastEnd(offset: Int)
    /// The redundant blocks' declared lengths add up to more than the bytes after the headers.
    case blocksPastEnd(declaredBytes: Int, available: Int)
    /// Building a payload: a redundant block of more than the 1,023 bytes its 10-bit length can say,
    /// or a timestamp offset of more than the 16,383 ticks its 14 bits can.
    case redundantBlockTooLarge(bytes: Int, timestampOffset: UInt32)
    /// Building a payload: the blocks and their headers do not fit the buffer.
    case noRoom(needed: Int, capacity: Int)
}
