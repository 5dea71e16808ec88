/// A parsed RTCP packet: one typed view per kind this module understands.
///
/// Iterating an `RTCPCompoundPacket` yields these. A packet whose framing is sound but whose body is
/// not comes back as `.malformed` rather than ending the iteration, so one bad feedback message
/// costs only itself and the caller can count it by reason.
public enum RTCPPacket {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case bye(RTCPBye)
    case genericNACK(RTCPGenericNACK)
    case pictureLossIndication(RTCPPictureLossIndication)
    case fullIntraRequest(RTCPFullIntraRequest)
    case receiverEstimatedMaximumBitrate(RTCPReceiverEstimatedMaximumBitrate)
    case transportFeedback(RTCPTransportFeedback)
    /// A packet of a known kind whose body failed validation.
    case malformed(RTCPPacketView, RTCPError)
}
