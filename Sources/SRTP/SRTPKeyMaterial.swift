import Foundation

/// An SRTP master key and master salt.
public struct SRTPKeyMaterial: Equatable, Sendable {
    public let profile: SRTPProfile
    public let masterKey: [UInt8]
    public let masterSalt: [UInt8]

    /// Key material from raw bytes, as DTLS-SRTP's exporter produces them.
    public init(profile: SRTPProfile, masterKey: [UInt8], masterSalt: [UInt8]) throws(SRTPError) {
        guard masterKey.count == profile.masterKeyLength else {
            throw .keyLengthMismatch(
                profile: profile, expectedBytes: profile.masterKeyLength, foundBytes: masterKey.count)
        }
        guard masterSalt.count == profile.masterSaltLength else {
            throw .keyLengthMismatch(
                profile: profile, expectedBytes: profile.masterSaltLength, foundBytes: masterSalt.count)
        }
        self.profile = profile
        self.masterKey = masterKey
        self.masterSalt = masterSalt
    }

    /// Key material from the concatenated key and salt.
    public init(profile: SRTPProfile, keyAndSalt: [UInt8]) throws(SRTPError) {
        let expected = profile.masterKeyLength + profile.masterSaltLength
        guard keyAndSalt.count == expected else {
            throw .keyLengthMismatch(profile: profile, expectedBytes: expected, foundBytes: keyAndSalt.count)
        }
        try self.init(
            profile: profile,
            masterKey: Array(keyAndSalt.prefix(profile.masterKeyLength)),
            masterSalt: Array(keyAndSalt.suffix(profile.masterSaltLength)))
    }

    /// Key material from an RFC 4568 section 6.1 key parameter: `inline:<base64 key||salt>`, optionally
    /// followed by `|<lifetime>` (decimal or `2^n`). MKIs are not supported, because a transport has one
    /// key per direction.
    public init(profile: SRTPProfile, sdesKeyParameter parameter: String) throws(SRTPError) {
        guard parameter.hasPrefix("inline:") else {
            throw .invalidKeyParameter(reason: "key parameter must start with \"inline:\"")
        }
        let fields = parameter.dropFirst("inline:".count).split(separator: "|", omittingEmptySubsequences: false)
        guard let encoded = fields.first, let decoded = Data(base64Encoded: String(encoded)) else {
            throw .invalidKeyParameter(reason: "key and salt are not valid base64")
        }
        for field in fields.dropFirst() {
            if field.contains(":") {
                throw .invalidKeyParameter(reason: "MKI \"\(field)\" is not supported")
            }
            guard Self.isLifetime(field) else {
                throw .invalidKeyParameter(reason: "lifetime \"\(field)\" is neither a number nor 2^n")
            }
        }
        try self.init(profile: profile, keyAndSalt: [UInt8](decoded))
    }

    /// Fresh random key material from the system's cryptographic random source.
    public static func random(profile: SRTPProfile) -> SRTPKeyMaterial {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(profile.masterKeyLength + profile.masterSaltLength)).map { _ in
            UInt8.random(in: .min ... .max, using: &generator)
        }
        return try! SRTPKeyMaterial(profile: profile, keyAndSalt: bytes)
    }

    /// The key and salt concatenated, as libsrtp and RFC 4568 carry them.
    public var keyAndSalt: [UInt8] { masterKey + masterSalt }

    /// The RFC 4568 `inline:` key parameter for this material, without lifetime or MKI.
    public var sdesKeyParameter: String {
        "inline:" + Data(keyAndSalt).base64EncodedString()
    }

    private static func isLifetime(_ field: Substring) -> Bool {
        let digits = field.hasPrefix("2^") ? field.dropFirst(2) : field
        return !digits.isEmpty && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
    }
}
