/// What was wrong with bytes offered as an Opus packet (RFC 6716 section 3).
public enum OpusTableOfContentsError: Error, Equatable, Sendable {
    /// The RTP payload has no bytes, so not even the TOC byte (RFC 6716 [R1]).
    case emptyPayload
    /// The TOC says code 3 (an arbitrary number of frames) but the frame count byte that must follow
    /// it is missing.
    case frameCountByteMissing
    /// A code 3 frame count byte says the packet holds zero frames (RFC 6716 [R5]).
    case frameCountZero
    /// A code 3 packet holds more than 120 ms of audio (RFC 6716 [R5]): `frameCount` frames of
    /// `samplesPerFrame` samples at 48 kHz each.
    case durationExceeds120Milliseconds(frameCount: Int, samplesPerFrame: Int)
}
