/// A certificate fingerprint from `a=fingerprint` (RFC 8122 section 5): the hash function and the
/// digest of the certificate the peer will present in the DTLS handshake.
public struct DTLSFingerprint: Sendable, Equatable, CustomStringConvertible {
    /// The hash function's name as in the IANA registry, lowercased: `sha-256`.
    public var algorithm: String
    /// The digest.
    public var bytes: [UInt8]

    public init(algorithm: String, bytes: [UInt8]) {
        self.algorithm = algorithm.lowercased()
        self.bytes = bytes
    }

    /// Reads an attribute value such as `sha-256 AB:CD:...`.
    public init(parsing attributeValue: String) throws(SDPError) {
        let fields = attributeValue.split(separator: " ")
        guard fields.count == 2 else {
            throw SDPError(reason: "a=fingerprint needs a hash function and colon-separated hex bytes")
        }
        let algorithm = fields[0].lowercased()
        var bytes: [UInt8] = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.utf8.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw SDPError(reason: "fingerprint byte \"\(pair)\" is not two hex digits")
            }
            bytes.append(byte)
        }
        if let expected = Self.digestLengths[algorithm], expected != bytes.count {
            throw SDPError(reason: "a \(algorithm) fingerprint has \(expected) bytes, not \(bytes.count)")
        }
        self.init(algorithm: algorithm, bytes: bytes)
    }

    /// The attribute value: `sha-256 AB:CD:...`, hex in uppercase as RFC 8122 asks.
    public var description: String {
        "\(algorithm) " + bytes.map(Self.hex).joined(separator: ":")
    }

    /// The hash functions whose fingerprints the router accepts, in order of preference. MD5 and MD2
    /// are broken, and RFC 8122 forbids them.
    static let negotiableAlgorithms = ["sha-256", "sha-384", "sha-512", "sha-1"]

    /// Digest sizes of the hash functions browsers and common stacks use, so a truncated fingerprint is
    /// caught at parse time instead of as a failed handshake later.
    private static let digestLengths = [
        "md5": 16, "md2": 16, "sha-1": 20, "sha-224": 28, "sha-256": 32, "sha-384": 48, "sha-512": 64,
    ]

    private static let hexDigits = Array("0123456789ABCDEF")

    private static func hex(_ byte: UInt8) -> String {
        String([hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
    }
}
