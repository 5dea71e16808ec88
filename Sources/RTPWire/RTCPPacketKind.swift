/// The RTCP packets this module parses and builds, named without their contents: what errors and
/// the compound iterator use to say which packet they mean.
public enum RTCPPacketKind: Hashable, Sendable, CaseIterable {
    case senderReport
    case receiverReport
    case sourceDescription
    case bye
    case genericNACK
    case pictureLossIndication
    case fullIntraRequest
    case receiverEstimatedMaximumBitrate
    case transportFeedback

    /// The PT byte packets of this kind carry.
    public var packetType: RTCPPacketType {
        switch self {
        case .senderReport: .senderReport
        case .receiverReport: .receiverReport
        case .sourceDescription: .sourceDescription
        case .bye: .bye
        case .genericNACK, .transportFeedback: .transportLayerFeedback
        case .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate: .payloadSpecificFeedback
        }
    }

    /// The FMT value in the count field for feedback kinds; nil where that field is a count.
    public var format: UInt8? {
        switch self {
        case .senderReport, .receiverReport, .sourceDescription, .bye: nil
        case .genericNACK: 1
        case .pictureLossIndication: 1
        case .fullIntraRequest: 4
        case .receiverEstimatedMaximumBitrate: 15
        case .transportFeedback: 15
        }
    }

    /// Bytes of the smallest valid packet of this kind, header included: what a length field must
    /// at least describe.
    public var minimumByteCount: Int {
        switch self {
        case .senderReport: 28  // header, sender SSRC, 20-byte sender info
        case .receiverReport: 8  // header, sender SSRC
        case .sourceDescription, .bye: 4  // a count of zero is legal
        case .genericNACK: 16  // header, two SSRCs, at least one PID/BLP item (RFC 4585 6.2.1)
        case .pictureLossIndication: 12  // header, two SSRCs, no FCI
        case .fullIntraRequest: 20  // header, two SSRCs, at least one FCI entry (RFC 5104 4.3.1.1)
        case .receiverEstimatedMaximumBitrate: 20  // header, two SSRCs, "REMB", count/exp/mantissa
        case .transportFeedback: 20  // header, two SSRCs, base/count, reference time/fb count
        }
    }
}
