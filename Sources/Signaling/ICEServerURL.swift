/// A STUN or TURN server's URL as browsers take it in `RTCIceServer.urls`: `stun:host[:port]`
/// (RFC 7064), `turn:host[:port][?transport=udp|tcp]` and `turns:host[:port][?transport=tcp]`
/// (RFC 7065). Checked when the configuration is read, so a typo is refused at start rather than
/// found by the first user behind a firewall.
public struct ICEServerURL: Equatable, Sendable, CustomStringConvertible {
    public enum Scheme: String, Sendable, CaseIterable {
        case stun, turn, turns
    }

    public enum Transport: String, Sendable {
        case udp, tcp
    }

    public let scheme: Scheme
    public let host: String
    public let port: Int?
    public let transport: Transport?
    /// The URL as configured, scheme in lower case: what clients are given.
    public let description: String

    /// Whether clients need a username and credential for it: TURN allocations are authenticated,
    /// STUN Binding requests are not.
    public var needsCredentials: Bool { scheme != .stun }

    public init(parsing text: String) throws(ICEServerURLError) {
        guard let colon = text.firstIndex(of: ":") else { throw .noScheme }
        let schemeText = text[..<colon].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else { throw .unknownScheme(schemeText) }
        var rest = text[text.index(after: colon)...]
        var transport: Transport?
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...]
            rest = rest[..<question]
            guard query.hasPrefix("transport="), let named = Transport(rawValue: String(query.dropFirst("transport=".count))) else {
                throw .badQuery(String(query))
            }
            switch (scheme, named) {
            case (.stun, _): throw .transportOnSTUN
            case (.turns, .udp): throw .turnsOverUDP
            default: transport = named
            }
        }
        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .badHost(String(rest)) }
            host = rest[rest.startIndex...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badHost(String(rest)) }
                portText = after.dropFirst()
            }
        } else if let portColon = rest.firstIndex(of: ":") {
            host = rest[..<portColon]
            portText = rest[rest.index(after: portColon)...]
        } else {
            host = rest
        }
        let hostCharacters = host.hasPrefix("[") ? host.dropFirst().dropLast() : host
        guard !hostCharacters.isEmpty, hostCharacters.allSatisfy({ Self.isHostCharacter($0, bracketed: host.hasPrefix("[")) }) else {
            throw .badHost(String(host))
        }
        var port: Int?
        if let portText {
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portText), (1...65535).contains(number) else {
                throw .badPort(String(portText))
            }
            port = number
        }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        self.transport = transport
        description = schemeText + ":" + text[text.index(after: colon)...]
    }

    /// Host names and IPv4 addresses are letters, digits, dots and hyphens; a bracketed IPv6
    /// address is hex digits, colons and dots. Anything else (`/`, `@`, spaces) is not a host of a
    /// STUN or TURN URL, which has no path and no user part.
    private static func isHostCharacter(_ character: Character, bracketed: Bool) -> Bool {
        guard character.isASCII else { return false }
        if bracketed { return character.isHexDigit || character == ":" || character == "." }
        return character.isLetter || character.isNumber || character == "." || character == "-"
    }
}

/// Why a STUN or TURN URL was refused.
public enum ICEServerURLError: Error, Equatable, Sendable, CustomStringConvertible {
    case noScheme
    case unknownScheme(String)
    case badHost(String)
    case badPort(String)
    case badQuery(String)
    case transportOnSTUN
    case turnsOverUDP

    public var description: String {
        switch self {
        case .noScheme: "has no scheme; expected stun:, turn: or turns:"
        case .unknownScheme(let scheme): "scheme \"\(scheme)\" is not stun, turn or turns"
        case .badHost(let host): "host \"\(host)\" is not a host name, an IPv4 address or a bracketed IPv6 address"
        case .badPort(let port): "port \"\(port)\" is not a number within 1...65535"
        case .badQuery(let query): "\"?\(query)\" is not ?transport=udp or ?transport=tcp"
        case .transportOnSTUN: "a stun: URL takes no ?transport (RFC 7064)"
        case .turnsOverUDP: "turns: is TURN over TLS, which runs over TCP; browsers have no TURN over DTLS (use ?transport=tcp or none)"
        }
    }
}
