/// Which side opens the DTLS connection, from `a=setup` (RFC 4145 section 4, RFC 5763 section 5).
public enum DTLSSetupRole: String, Sendable {
    /// The writer will open the connection (DTLS client).
    case active
    /// The writer will wait for the connection (DTLS server).
    case passive
    /// The writer will take either role; only an offer may say this.
    case actpass
    /// The writer does not want a connection now.
    case holdconn
}
