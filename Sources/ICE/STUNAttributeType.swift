/// Attribute types this module reads or writes (RFC 8489 section 18.3, RFC 8445 section 16.1).
///
/// Types below 0x8000 are comprehension-required: a receiver that does not understand one must not
/// act on the message as if it were absent.
enum STUNAttributeType {
    static let mappedAddress: UInt16 = 0x0001
    static let username: UInt16 = 0x0006
    static let messageIntegrity: UInt16 = 0x0008
    static let errorCode: UInt16 = 0x0009
    static let unknownAttributes: UInt16 = 0x000A
    static let xorMappedAddress: UInt16 = 0x0020
    static let priority: UInt16 = 0x0024
    static let useCandidate: UInt16 = 0x0025
    static let software: UInt16 = 0x8022
    static let fingerprint: UInt16 = 0x8028
    static let iceControlled: UInt16 = 0x8029
    static let iceControlling: UInt16 = 0x802A

    /// Whether a receiver must understand the attribute to process the message.
    static func isComprehensionRequired(_ type: UInt16) -> Bool {
        type < 0x8000
    }
}
