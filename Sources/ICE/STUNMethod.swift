/// A STUN method: the 12 method bits of the message type (RFC 8489 section 5).
public struct STUNMethod: RawRepresentable, Hashable, Sendable {
    /// The method number, 0x000 to 0xFFF.
    public var rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue & 0x0FFF
    }

    /// Binding (0x001), the only method ICE uses.
    public static let binding = STUNMethod(rawValue: 0x001)
}
