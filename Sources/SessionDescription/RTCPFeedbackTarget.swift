/// Which payload types an `a=rtcp-fb` line applies to (RFC 4585 section 4.2).
public enum RTCPFeedbackTarget: Hashable, Sendable {
    /// `a=rtcp-fb:* ...`: every payload type of the m-section.
    case everyPayloadType
    /// `a=rtcp-fb:<pt> ...`.
    case payloadType(UInt8)

    func applies(to payloadType: UInt8) -> Bool {
        switch self {
        case .everyPayloadType: true
        case .payloadType(let target): target == payloadType
        }
    }
}
