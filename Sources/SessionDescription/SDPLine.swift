/// One `<type>=<value>` line of a session description (RFC 8866 section 5), kept as written so that
/// lines this package does not interpret survive a round trip.
public struct SDPLine: Sendable, Equatable, CustomStringConvertible {
    /// The type letter, such as `a` for an attribute or `c` for connection data.
    public var type: Character
    /// Everything after the `=`.
    public var value: String
    /// Where the line was in the parsed text (1-based), or nil for a line built in code.
    public var sourceLine: Int?

    public init(type: Character, value: String, sourceLine: Int? = nil) {
        self.type = type
        self.value = value
        self.sourceLine = sourceLine
    }

    /// An `a=<name>` or `a=<name>:<value>` line.
    public static func attribute(_ name: String, _ value: String? = nil) -> SDPLine {
        SDPLine(type: "a", value: value.map { "\(name):\($0)" } ?? name)
    }

    /// The line as it appears in a description, without the line break.
    public var description: String { "\(type)=\(value)" }

    /// The attribute's name when this is an `a=` line: `rtpmap` for `a=rtpmap:96 VP8/90000`.
    public var attributeName: String? {
        guard type == "a" else { return nil }
        return String(value.prefix { $0 != ":" })
    }

    /// The attribute's value when this is an `a=` line that has one: `96 VP8/90000` for
    /// `a=rtpmap:96 VP8/90000`; nil for a property attribute such as `a=rtcp-mux`.
    public var attributeValue: String? {
        guard type == "a", let colon = value.firstIndex(of: ":") else { return nil }
        return String(value[value.index(after: colon)...])
    }

    /// Lines are equal when they say the same thing. Where they stood in some text does not count, so
    /// that a parsed description equals the same description built in code.
    public static func == (lhs: SDPLine, rhs: SDPLine) -> Bool {
        lhs.type == rhs.type && lhs.value == rhs.value
    }
}

extension SDPLine {
    /// Reads one line of text; `lineNumber` is where it stands, for errors.
    init(parsing text: String, lineNumber: Int) throws(SDPError) {
        let utf8 = text.utf8
        guard utf8.count >= 2,
            let letter = utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter),
            utf8[utf8.index(after: utf8.startIndex)] == UInt8(ascii: "=")
        else {
            throw SDPError(
                line: lineNumber, text: text,
                reason: "not an SDP line: every line is one lowercase letter, '=', and a value")
        }
        self.init(
            type: Character(Unicode.Scalar(letter)), value: String(decoding: utf8.dropFirst(2), as: UTF8.self),
            sourceLine: lineNumber)
    }
}

extension [SDPLine] {
    /// The first `a=<name>` line.
    func firstAttribute(named name: String) -> SDPLine? {
        first { $0.attributeName == name }
    }

    /// Every `a=<name>` line, in order.
    func allAttributes(named name: String) -> [SDPLine] {
        filter { $0.attributeName == name }
    }

    /// The value of the first `a=<name>:<value>` line.
    func firstValue(ofAttribute name: String) -> String? {
        firstAttribute(named: name)?.attributeValue
    }

    /// Whether an `a=<name>` line is present.
    func hasAttribute(_ name: String) -> Bool {
        contains { $0.attributeName == name }
    }

    /// The first media direction attribute (`a=sendrecv` and its kin).
    var direction: MediaDirection? {
        lazy.compactMap { $0.attributeName.flatMap(MediaDirection.init(rawValue:)) }.first
    }

    /// Every `a=fingerprint` line that parses, in order.
    var fingerprints: [DTLSFingerprint] {
        allAttributes(named: "fingerprint").compactMap { try? DTLSFingerprint(parsing: $0.attributeValue ?? "") }
    }

    /// The first `a=setup` role.
    var setup: DTLSSetupRole? {
        firstValue(ofAttribute: "setup").flatMap(DTLSSetupRole.init(rawValue:))
    }
}
