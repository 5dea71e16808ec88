/// A host candidate the router listens on. The router is ICE-lite (RFC 8445 section 2.5) and only
/// gathers host candidates: over UDP, and passive over TCP (RFC 6544) for clients whose network
/// blocks UDP.
public struct ICECandidate: Sendable, Equatable {
    public enum TransportProtocol: Sendable, Equatable {
        case udp
        /// RFC 6544 `tcptype passive`: the router accepts the connection the client opens.
        case passiveTCP
    }

    /// The IP address (v4 or v6) the router's socket is bound to, as announced.
    public var host: String
    public var port: UInt16
    /// RFC 8445 section 5.1.2 priority.
    public var priority: UInt32
    /// Candidates with the same foundation share a base and type (RFC 8445 section 5.1.1.3).
    public var foundation: String
    public var transportProtocol: TransportProtocol

    public init(host: String, port: UInt16, priority: UInt32, foundation: String, transportProtocol: TransportProtocol = .udp) {
        self.host = host
        self.port = port
        self.priority = priority
        self.foundation = foundation
        self.transportProtocol = transportProtocol
    }

    /// The `a=candidate` value (RFC 8839 section 5.1), component 1 because RTP and RTCP share a port.
    var attributeValue: String {
        switch transportProtocol {
        case .udp: "\(foundation) 1 udp \(priority) \(host) \(port) typ host"
        case .passiveTCP: "\(foundation) 1 tcp \(priority) \(host) \(port) typ host tcptype passive"
        }
    }
}
