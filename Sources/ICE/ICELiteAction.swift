/// What the caller of `ICELiteAgent.handle` must do with a STUN message.
public enum ICELiteAction<Address> {
    /// The check succeeded: send the success response to the source. The source is now verified.
    case respond(ICELiteResponse)
    /// Send a Binding error response with `code` and `reason` to the source, with the message's
    /// transaction ID. When `authenticated`, the request passed MESSAGE-INTEGRITY and the response
    /// carries MESSAGE-INTEGRITY keyed with `ICELiteAgent.localIntegrityKey`; otherwise it carries
    /// none (RFC 8489 section 9.1.3).
    case respondError(code: Int, reason: String, authenticated: Bool)
    /// The check succeeded and nominated its source (USE-CANDIDATE from an address that was not the
    /// nominated one): send the response, and from now on send to `Address`. The first one means
    /// the transport is connected; later ones are re-nominations.
    case nominated(Address, respond: ICELiteResponse)
    /// Send nothing; count the reason.
    case drop(ICEDropReason)
}

extension ICELiteAction: Equatable where Address: Equatable {}
extension ICELiteAction: Hashable where Address: Hashable {}
extension ICELiteAction: Sendable where Address: Sendable {}

extension ICELiteAction {
    /// The success response to send, for `.respond` and `.nominated`.
    public var response: ICELiteResponse? {
        switch self {
        case .respond(let response), .nominated(_, let response): response
        case .respondError, .drop: nil
        }
    }
}
