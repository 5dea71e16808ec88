import Foundation

/// Identifiers of sessions, connections, streams and subscribers.
public enum SessionIdentifier {
    static let rule = "must be 1 to 128 characters of A-Z a-z 0-9 - _"

    /// Session ids come from the app (tokens, REST), so they are checked.
    static func isValid(_ identifier: String) -> Bool {
        (1...128).contains(identifier.utf8.count)
            && identifier.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    /// A new random identifier: a prefix and 128 random bits in base64url.
    public static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return prefix + text
    }
}
