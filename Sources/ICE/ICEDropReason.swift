/// Why the ICE-lite agent ignored a STUN message without answering. The raw values are dense from 0
/// so a caller can keep one counter per reason in a fixed array.
public enum ICEDropReason: Int, Hashable, Sendable, CaseIterable {
    /// The datagram is not a well-formed STUN message (`handle(datagram:from:now:)` only).
    case malformed
    /// Not a Binding request: another method, or a response (a lite agent sends no requests, so
    /// every response is unsolicited).
    case notBindingRequest
    /// A Binding indication: a keepalive (RFC 8445 section 11), which gets no response. Not an error.
    case indication
    /// No FINGERPRINT, which every ICE check carries (RFC 8445 section 7.2.2).
    case missingFingerprint
    /// FINGERPRINT does not match: damaged, or not STUN after all.
    case badFingerprint
    /// The USERNAME's first part is not our ufrag: the check is meant for another agent (or for our
    /// previous credentials after an ICE restart).
    case unknownUsername
    /// The remote credentials are known and the USERNAME's second part is not the remote ufrag.
    case wrongRemoteUsername
    /// An authenticated check carries a comprehension-required attribute this agent does not
    /// understand. RFC 8489 section 6.3.1 asks for a 420 response listing it; no ICE agent sends
    /// one in a check, so it is dropped and counted instead.
    case unknownComprehensionRequiredAttribute
}

extension ICEDropReason: CustomStringConvertible {
    public var description: String {
        switch self {
        case .malformed: "malformed STUN message"
        case .notBindingRequest: "not a Binding request"
        case .indication: "Binding indication (keepalive)"
        case .missingFingerprint: "no FINGERPRINT"
        case .badFingerprint: "FINGERPRINT mismatch"
        case .unknownUsername: "USERNAME not for our ufrag"
        case .wrongRemoteUsername: "USERNAME not from the remote ufrag"
        case .unknownComprehensionRequiredAttribute: "unknown comprehension-required attribute"
        }
    }
}
