/// The class of a STUN message: the two class bits C1 C0 of the message type (RFC 8489 section 5).
public enum STUNMessageClass: UInt8, Hashable, Sendable, CaseIterable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11

    /// The 14-bit message type that carries `method` in this class.
    ///
    /// The class bits are interleaved with the method bits:
    ///
    ///      0                 1
    ///      2  3  4 5 6 7 8 9 0 1 2 3 4 5
    ///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
    ///     |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
    ///     |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
    ///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
    public func messageType(method: STUNMethod) -> UInt16 {
        let m = method.rawValue
        let c = UInt16(rawValue)
        return (m & 0x000F) | (m & 0x0070) << 1 | (m & 0x0F80) << 2 | (c & 0b01) << 4 | (c & 0b10) << 7
    }

    /// The class encoded in a message type.
    public init(messageType: UInt16) {
        let bits = UInt8(truncatingIfNeeded: (messageType >> 4) & 0b01 | (messageType >> 7) & 0b10)
        self = STUNMessageClass(rawValue: bits)!
    }
}

extension STUNMethod {
    /// The method encoded in a message type (the class bits removed).
    public init(messageType: UInt16) {
        self.init(rawValue: (messageType & 0x000F) | (messageType & 0x00E0) >> 1 | (messageType & 0x3E00) >> 2)
    }
}
