/// A STUN or TURN server a client's peer connections may use, in the shape of WebRTC's
/// `RTCIceServer`, so a browser client passes it to `RTCPeerConnection` as it is.
public struct ICEServer: Codable, Equatable, Sendable {
    /// `stun:`, `turn:` and `turns:` URLs (RFC 7064, RFC 7065).
    public var urls: [String]
    /// For TURN: `<expiry in Unix seconds>:<connection id>`; left out for STUN.
    public var username: String?
    /// For TURN: the password the TURN server derives from the username and its shared secret.
    public var credential: String?

    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}
