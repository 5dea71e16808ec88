/// A STUN message read in place (RFC 8489): a view of the datagram's bytes with the offsets of the
/// attributes ICE needs. Parsing validates the framing once; fields are read from the bytes on
/// demand, and nothing is copied or allocated.
///
/// The view borrows the buffer it was parsed from: use it only while that buffer is alive and
/// unchanged.
///
/// The header (RFC 8489 section 5):
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |0 0|     STUN Message Type     |         Message Length        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Magic Cookie                          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                                                               |
///     |                     Transaction ID (96 bits)                  |
///     |                                                               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// followed by attributes in type-length-value form (section 14), each value padded to 4 bytes:
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |         Type                  |            Length             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Value (variable)                ....
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Message Length counts the attribute bytes (padding included) after the 20-byte header. Of
/// repeated attributes only the first counts. Attributes after MESSAGE-INTEGRITY other than
/// FINGERPRINT are ignored, because the integrity check does not cover them (section 14.5).
public struct STUNMessage {
    /// Bytes of the fixed header.
    public static let headerByteCount = 20
    /// The constant in bytes 4 to 7 that tells STUN from other protocols on the same port.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// What the CRC-32 of FINGERPRINT is XORed with, so that it differs from CRCs of other protocols.
    static let fingerprintXOR: UInt32 = 0x5354_554E
    /// Bytes of a MESSAGE-INTEGRITY attribute, header included.
    static let messageIntegrityAttributeByteCount = 4 + HMACSHA1.byteCount
    /// Longest USERNAME value RFC 8489 section 14.3 allows.
    static let maximumUsernameByteCount = 513

    /// The whole message, header included.
    public let bytes: UnsafeRawBufferPointer
    /// The 14-bit message type: method and class interleaved.
    public let messageType: UInt16
    /// The transaction ID that pairs a response with its request.
    public let transactionID: STUNTransactionID

    /// Whether the message has USE-CANDIDATE: the controlling agent nominates this pair.
    public private(set) var hasUseCandidate = false
    /// PRIORITY: the priority the sender would give a peer-reflexive candidate learned from this check.
    public private(set) var priority: UInt32?
    /// ICE-CONTROLLING: the sender claims the controlling role; the value is its tie-breaker.
    public private(set) var iceControlling: UInt64?
    /// ICE-CONTROLLED: the sender claims the controlled role; the value is its tie-breaker.
    public private(set) var iceControlled: UInt64?
    /// The ERROR-CODE number (300 to 699) of an error response.
    public private(set) var errorCode: Int?
    /// The first comprehension-required attribute this module does not understand, if any.
    public private(set) var unknownComprehensionRequiredAttribute: UInt16?

    /// Offset of the USERNAME value and its length.
    private var usernameOffset = -1
    private var usernameLength = 0
    /// Offset of the MESSAGE-INTEGRITY attribute header.
    private var messageIntegrityOffset = -1
    /// Offset of the FINGERPRINT attribute header.
    private var fingerprintOffset = -1
    /// Offset of an IPv4 XOR-MAPPED-ADDRESS value.
    private var xorMappedIPv4Offset = -1

    /// Parses and validates the framing of the message that fills `bytes` exactly.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(STUNError) {
        guard bytes.count >= Self.headerByteCount else { throw .tooShort(length: bytes.count) }
        let first = bytes[0]
        guard first & 0xC0 == 0 else { throw .notSTUN(firstByte: first) }
        guard bytes.uint32(at: 4) == Self.magicCookie else { throw .badMagicCookie }
        let declared = Int(bytes.uint16(at: 2))
        guard declared % 4 == 0 else { throw .lengthNotMultipleOfFour(declared: declared) }
        let actual = bytes.count - Self.headerByteCount
        guard declared == actual else { throw .lengthMismatch(declared: declared, actual: actual) }

        self.bytes = bytes
        messageType = bytes.uint16(at: 0)
        transactionID = STUNTransactionID(reading: bytes, at: 8)
        try parseAttributes()
    }

    private mutating func parseAttributes() throws(STUNError) {
        var offset = Self.headerByteCount
        var afterIntegrity = false
        // The message length and every padded attribute are multiples of 4, so a whole attribute
        // header is always there when any byte is left.
        while offset < bytes.count {
            let type = bytes.uint16(at: offset)
            let length = Int(bytes.uint16(at: offset + 2))
            let valueOffset = offset + 4
            let paddedLength = (length + 3) & ~3
            guard paddedLength <= bytes.count - valueOffset else { throw .attributeOverrun(type: type) }
            guard fingerprintOffset < 0 else { throw .attributeAfterFingerprint(type: type) }

            switch type {
            case STUNAttributeType.fingerprint:
                guard length == 4 else { throw .badAttributeLength(type: type, length: length) }
                fingerprintOffset = offset
            case _ where afterIntegrity:
                break
            case STUNAttributeType.messageIntegrity:
                guard length == HMACSHA1.byteCount else { throw .badAttributeLength(type: type, length: length) }
                messageIntegrityOffset = offset
                afterIntegrity = true
            case STUNAttributeType.username:
                guard length <= Self.maximumUsernameByteCount else {
                    throw .badAttributeLength(type: type, length: length)
                }
                if usernameOffset < 0 {
                    usernameOffset = valueOffset
                    usernameLength = length
                }
            case STUNAttributeType.priority:
                guard length == 4 else { throw .badAttributeLength(type: type, length: length) }
                if priority == nil { priority = bytes.uint32(at: valueOffset) }
            case STUNAttributeType.iceControlling:
                guard length == 8 else { throw .badAttributeLength(type: type, length: length) }
                if iceControlling == nil { iceControlling = bytes.uint64(at: valueOffset) }
            case STUNAttributeType.iceControlled:
                guard length == 8 else { throw .badAttributeLength(type: type, length: length) }
                if iceControlled == nil { iceControlled = bytes.uint64(at: valueOffset) }
            case STUNAttributeType.useCandidate:
                guard length == 0 else { throw .badAttributeLength(type: type, length: length) }
                hasUseCandidate = true
            case STUNAttributeType.errorCode:
                try parseErrorCode(valueOffset: valueOffset, length: length)
            case STUNAttributeType.xorMappedAddress:
                try parseXORMappedAddress(valueOffset: valueOffset, length: length)
            case STUNAttributeType.mappedAddress, STUNAttributeType.unknownAttributes:
                // Understood but not needed by ICE: RFC 3489 servers' MAPPED-ADDRESS, and the list a
                // 420 response carries.
                break
            default:
                if STUNAttributeType.isComprehensionRequired(type), unknownComprehensionRequiredAttribute == nil {
                    unknownComprehensionRequiredAttribute = type
                }
            }
            offset = valueOffset + paddedLength
        }
    }

    /// ERROR-CODE (RFC 8489 section 14.8):
    ///
    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |           Reserved, should be 0         |Class|     Number    |
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |      Reason Phrase (variable)                                ..
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    private mutating func parseErrorCode(valueOffset: Int, length: Int) throws(STUNError) {
        guard length >= 4 else { throw .badAttributeLength(type: STUNAttributeType.errorCode, length: length) }
        if errorCode == nil {
            errorCode = Int(bytes[valueOffset + 2] & 0x07) * 100 + Int(bytes[valueOffset + 3])
        }
    }

    /// XOR-MAPPED-ADDRESS (RFC 8489 section 14.2):
    ///
    ///      0                   1                   2                   3
    ///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |0 0 0 0 0 0 0 0|    Family     |         X-Port                |
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |                X-Address (Variable)
    ///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
    ///
    /// Family 0x01 is IPv4 (4 address bytes), 0x02 IPv6 (16). The port is XORed with the top 16 bits
    /// of the magic cookie, an IPv4 address with the whole cookie.
    private mutating func parseXORMappedAddress(valueOffset: Int, length: Int) throws(STUNError) {
        let type = STUNAttributeType.xorMappedAddress
        guard length >= 4 else { throw .badAttributeLength(type: type, length: length) }
        switch bytes[valueOffset + 1] {
        case 0x01:
            guard length == 8 else { throw .badAttributeLength(type: type, length: length) }
            if xorMappedIPv4Offset < 0 { xorMappedIPv4Offset = valueOffset }
        case 0x02:
            guard length == 20 else { throw .badAttributeLength(type: type, length: length) }
        default:
            throw .badAttributeLength(type: type, length: length)
        }
    }

    // MARK: Fields

    /// The method: `.binding` for everything ICE sends.
    public var method: STUNMethod { STUNMethod(messageType: messageType) }
    /// Request, indication, success or error response.
    public var messageClass: STUNMessageClass { STUNMessageClass(messageType: messageType) }
    /// A Binding request: an ICE connectivity or consent check.
    public var isBindingRequest: Bool {
        messageType == STUNMessageClass.request.messageType(method: .binding)
    }
    /// A Binding indication: a keepalive that gets no response (RFC 8445 section 11).
    public var isBindingIndication: Bool {
        messageType == STUNMessageClass.indication.messageType(method: .binding)
    }

    /// The USERNAME value, unpadded; for ICE "receiver ufrag:sender ufrag" (RFC 8445 section 7.2.2).
    public var username: UnsafeRawBufferPointer? {
        guard usernameOffset >= 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[usernameOffset..<usernameOffset + usernameLength])
    }
    /// Whether the message carries MESSAGE-INTEGRITY (valid or not).
    public var hasMessageIntegrity: Bool { messageIntegrityOffset >= 0 }
    /// Whether the message carries FINGERPRINT (valid or not).
    public var hasFingerprint: Bool { fingerprintOffset >= 0 }

    /// An IPv4 XOR-MAPPED-ADDRESS, un-XORed: the address in host byte order and the port.
    public var xorMappedIPv4: (address: UInt32, port: UInt16)? {
        guard xorMappedIPv4Offset >= 0 else { return nil }
        let port = bytes.uint16(at: xorMappedIPv4Offset + 2) ^ UInt16(truncatingIfNeeded: Self.magicCookie >> 16)
        let address = bytes.uint32(at: xorMappedIPv4Offset + 4) ^ Self.magicCookie
        return (address, port)
    }

    // MARK: Verification

    /// Whether FINGERPRINT is present and equals the CRC-32 of everything before it XOR 0x5354554E
    /// (RFC 8489 section 14.7). FINGERPRINT is last, so the header's length already covers it as the
    /// computation requires.
    public func hasValidFingerprint() -> Bool {
        guard fingerprintOffset >= 0 else { return false }
        let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<fingerprintOffset])
        return CRC32.checksum(covered) ^ Self.fingerprintXOR == bytes.uint32(at: fingerprintOffset + 4)
    }

    /// Whether MESSAGE-INTEGRITY is present and equals HMAC-SHA1 with `key` over the message up to the
    /// attribute, with the header's length field set as if MESSAGE-INTEGRITY were the last attribute
    /// (RFC 8489 section 14.5). For ICE's short-term credentials the key is the password's bytes.
    ///
    /// When FINGERPRINT follows, the covered bytes are copied to a stack buffer so the length field can
    /// be adjusted without writing to the received datagram.
    public func hasValidMessageIntegrity(key: [UInt8]) -> Bool {
        guard messageIntegrityOffset >= 0 else { return false }
        let coveredCount = messageIntegrityOffset
        let adjustedLength = UInt16(coveredCount + Self.messageIntegrityAttributeByteCount - Self.headerByteCount)
        let received = UnsafeRawBufferPointer(
            rebasing: bytes[(coveredCount + 4)..<(coveredCount + Self.messageIntegrityAttributeByteCount)])

        return withUnsafeTemporaryAllocation(byteCount: HMACSHA1.byteCount, alignment: 8) { computed in
            let succeeded: Bool
            if adjustedLength == bytes.uint16(at: 2) {
                succeeded = HMACSHA1.authenticate(
                    key: key, data: UnsafeRawBufferPointer(rebasing: bytes[0..<coveredCount]),
                    into: computed.baseAddress!)
            } else {
                succeeded = withUnsafeTemporaryAllocation(byteCount: coveredCount, alignment: 8) { copy in
                    copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<coveredCount]))
                    copy.setUInt16(adjustedLength, at: 2)
                    return HMACSHA1.authenticate(
                        key: key, data: UnsafeRawBufferPointer(copy), into: computed.baseAddress!)
                }
            }
            guard succeeded else { return false }
            // Constant time, so response timing does not reveal how many leading bytes matched.
            var difference: UInt8 = 0
            for index in 0..<HMACSHA1.byteCount {
                difference |= computed[index] ^ received[index]
            }
            return difference == 0
        }
    }
}
