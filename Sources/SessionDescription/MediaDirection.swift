/// Which way media flows in an m-section, from the point of view of the side that wrote it
/// (RFC 8866 section 6.7).
public enum MediaDirection: String, Sendable {
    case sendrecv, sendonly, recvonly, inactive

    /// Whether the writer of the description sends media in this direction.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
