/// What was wrong with bytes offered as a STUN message (RFC 8489 section 5 and 14).
///
/// Lengths are byte counts of the datagram as offered unless the case says otherwise.
public enum STUNError: Error, Equatable, Sendable {
    /// Fewer than the 20 bytes of a STUN header; `length` is how many there were.
    case tooShort(length: Int)
    /// The two most significant bits of the first byte are not zero, so this is not STUN (it may be
    /// DTLS, RTP or something else sharing the port; see `PacketClass`).
    case notSTUN(firstByte: UInt8)
    /// Bytes 4 to 7 are not the magic cookie 0x2112A442 (an RFC 3489 message or not STUN at all).
    case badMagicCookie
    /// The header's message length is not a multiple of 4, which RFC 8489 section 5 forbids because
    /// every attribute is padded to 4 bytes.
    case lengthNotMultipleOfFour(declared: Int)
    /// The header's message length (`declared`) differs from the bytes that follow the 20-byte header
    /// (`actual`).
    case lengthMismatch(declared: Int, actual: Int)
    /// The attribute of type `type` claims a value (with its padding) longer than what remains.
    case attributeOverrun(type: UInt16)
    /// An attribute of type `type` follows FINGERPRINT, which must be the last attribute
    /// (RFC 8489 section 14.7).
    case attributeAfterFingerprint(type: UInt16)
    /// An attribute this module understands has a value length its definition does not allow
    /// (for example a PRIORITY that is not 4 bytes, or a MESSAGE-INTEGRITY that is not 20).
    case badAttributeLength(type: UInt16, length: Int)
}

extension STUNError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .tooShort(let length):
            "STUN message too short: \(length) bytes, a header needs 20"
        case .notSTUN(let firstByte):
            "not a STUN message: first byte \(firstByte) has one of its two top bits set"
        case .badMagicCookie:
            "not a STUN message: bytes 4 to 7 are not the magic cookie 0x2112A442"
        case .lengthNotMultipleOfFour(let declared):
            "STUN message length \(declared) is not a multiple of 4"
        case .lengthMismatch(let declared, let actual):
            "STUN message length says \(declared) bytes follow the header but \(actual) do"
        case .attributeOverrun(let type):
            "STUN attribute 0x\(hex16(type)) runs past the end of the message"
        case .attributeAfterFingerprint(let type):
            "STUN attribute 0x\(hex16(type)) follows FINGERPRINT, which must be last"
        case .badAttributeLength(let type, let length):
            "STUN attribute 0x\(hex16(type)) has a value of \(length) bytes, which its type does not allow"
        }
    }
}

/// Four lowercase hex digits, as attribute types are written in the RFCs.
func hex16(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
