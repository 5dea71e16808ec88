/// The packet type (PT) byte of an RTCP common header.
///
/// A struct rather than an enum so that types this module does not parse (APP, XR, IJ, ...) still
/// have a value the compound iterator can carry past.
public struct RTCPPacketType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The PT byte.
    public var rawValue: UInt8

    /// The packet type with PT `rawValue`, known here or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// SR, RFC 3550 section 6.4.1.
    public static let senderReport = RTCPPacketType(rawValue: 200)
    /// RR, RFC 3550 section 6.4.2.
    public static let receiverReport = RTCPPacketType(rawValue: 201)
    /// SDES, RFC 3550 section 6.5.
    public static let sourceDescription = RTCPPacketType(rawValue: 202)
    /// BYE, RFC 3550 section 6.6.
    public static let bye = RTCPPacketType(rawValue: 203)
    /// APP, RFC 3550 section 6.7; not parsed here.
    public static let applicationDefined = RTCPPacketType(rawValue: 204)
    /// RTPFB, RFC 4585 section 6.2: generic NACK and transport-wide CC feedback, told apart by FMT.
    public static let transportLayerFeedback = RTCPPacketType(rawValue: 205)
    /// PSFB, RFC 4585 section 6.3: PLI, FIR and REMB, told apart by FMT.
    public static let payloadSpecificFeedback = RTCPPacketType(rawValue: 206)
    /// XR, RFC 3611; not parsed here.
    public static let extendedReport = RTCPPacketType(rawValue: 207)

    public var description: String { "PT \(rawValue)" }
}
