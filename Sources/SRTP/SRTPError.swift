/// What went wrong protecting or unprotecting a packet, or setting up a session.
public enum SRTPError: Error, Equatable, Sendable {
    /// The packet's authentication tag did not verify: wrong key, tampering or corruption.
    case authenticationFailed
    /// The packet's index was already received (a replay).
    case replayed
    /// The packet's index is older than the replay window.
    case tooOld
    /// libsrtp could not parse the packet as RTP or RTCP.
    case malformedPacket
    /// The buffer lacks the tail room protecting needs.
    case bufferTooSmall(needed: Int, capacity: Int)
    /// libsrtp needs the packet to start on a 32-bit boundary.
    case misalignedBuffer
    /// The key material does not have the length the profile needs.
    case keyLengthMismatch(profile: SRTPProfile, expectedBytes: Int, foundBytes: Int)
    /// An SDES key parameter that is not RFC 4568 `inline:` key material we can use.
    case invalidKeyParameter(reason: String)
    /// The replay window size is outside what libsrtp accepts (64–32767).
    case replayWindowOutOfRange(Int)
    /// libsrtp refused for a reason with no case above; the status code is libsrtp's.
    case library(operation: String, status: Int32)
}
