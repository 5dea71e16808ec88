/// The username fragment and password of one side of an ICE session (RFC 8445 section 5.3), as
/// exchanged in SDP `a=ice-ufrag` and `a=ice-pwd`.
public struct ICECredentials: Hashable, Sendable {
    /// The ufrag: the first half of USERNAME in checks sent to this side.
    public var usernameFragment: String
    /// The password: the MESSAGE-INTEGRITY key of checks sent to this side and of its responses.
    public var password: String

    public init(usernameFragment: String, password: String) {
        self.usernameFragment = usernameFragment
        self.password = password
    }

    /// The ice-char set of RFC 8839 section 5.4: ALPHA / DIGIT / "+" / "/". 64 characters, so 6
    /// random bits pick one without bias.
    static let iceCharacters: [Character] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    /// Characters in a generated ufrag: 48 random bits, above the 24 RFC 8445 section 5.3 asks for.
    public static let generatedUsernameFragmentLength = 8
    /// Characters in a generated password: 144 random bits, above the 128 RFC 8445 section 5.3 asks for.
    public static let generatedPasswordLength = 24

    /// Fresh credentials from the system's cryptographically secure generator.
    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Fresh credentials from `generator` (tests pass a seeded one).
    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func text(count: Int) -> String {
            var text = ""
            text.reserveCapacity(count)
            for _ in 0..<count {
                let sixBits = generator.next() & 0x3F as UInt64
                text.append(iceCharacters[Int(sixBits)])
            }
            return text
        }
        let usernameFragment = text(count: generatedUsernameFragmentLength)
        return ICECredentials(usernameFragment: usernameFragment, password: text(count: generatedPasswordLength))
    }
}
