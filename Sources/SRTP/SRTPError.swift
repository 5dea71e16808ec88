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

extension SRTPError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .authenticationFailed: "authentication failed"
        case .replayed: "packet replayed"
        case .tooOld: "packet older than the replay window"
        case .malformedPacket: "not a well-formed RTP or RTCP packet"
        case .bufferTooSmall(let needed, let capacity): "buffer of \(capacity) bytes is too small; \(needed) needed"
        case .misalignedBuffer: "packet buffer is not 32-bit aligned"
        case .keyLengthMismatch(let profile, let expected, let found):
            "\(profile.rawValue) needs \(expected) bytes of master key and salt, found \(found)"
        case .invalidKeyParameter(let reason): "invalid key parameter: \(reason)"
        case .replayWindowOutOfRange(let size): "replay window \(size) is outside 64...32767"
        case .library(let operation, let status): "\(operation) failed with libsrtp status \(status)"
        }
    }
}
