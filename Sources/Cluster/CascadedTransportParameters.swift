import MediaControl

/// What the router answers for a new transport, made here or on an edge: one shape for plain and
/// WebRTC, so a subscriber's transport is placed the same way whichever it is.
protocol CascadedTransportParameters: Sendable {
    var transportID: TransportID { get set }
    /// The parameters an edge's reply carries, when it carries this kind.
    static func from(_ reply: CascadeReply) -> Self?
}

extension PlainTransportParameters: CascadedTransportParameters {
    static func from(_ reply: CascadeReply) -> Self? {
        if case .plainTransport(let parameters) = reply { parameters } else { nil }
    }
}

extension WebRTCTransportParameters: CascadedTransportParameters {
    static func from(_ reply: CascadeReply) -> Self? {
        if case .webRTCTransport(let parameters) = reply { parameters } else { nil }
    }
}
