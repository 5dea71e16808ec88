/// What feeding a DTLS connection a datagram or a timer led to.
public enum DTLSEvent: Equatable, Sendable {
    /// Nothing the transport must act on (the handshake goes on; replies, if any, wait in `takeOutgoing`).
    case none
    /// The handshake finished and the peer's certificate matched its fingerprint: SRTP can start.
    case connected(DTLSSRTPKeys)
    /// The handshake or the fingerprint check failed; the transport must be torn down.
    case failed(DTLSError)
    /// The peer closed the association (close_notify).
    case closed
}
