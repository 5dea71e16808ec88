import COpenSSL

/// HMAC-SHA1 through OpenSSL, the keyed hash of MESSAGE-INTEGRITY (RFC 8489 section 14.5).
enum HMACSHA1 {
    /// Bytes of an HMAC-SHA1 value.
    static let byteCount = 20

    /// Writes HMAC-SHA1(`key`, `data`) into the 20 bytes at `output`; false when OpenSSL failed
    /// (only possible when its default provider cannot be loaded).
    static func authenticate(
        key: [UInt8], data: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer
    ) -> Bool {
        var outputLength: UInt32 = 0
        // OpenSSL 3 refuses a NULL key even with length 0, and an empty array has no base address.
        var emptyKeyStandIn: UInt8 = 0
        let digest = key.withUnsafeBytes { keyBytes in
            withUnsafeMutablePointer(to: &emptyKeyStandIn) { standIn in
                HMAC(
                    EVP_sha1(),
                    keyBytes.baseAddress ?? UnsafeRawPointer(standIn), Int32(keyBytes.count),
                    data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
                    output.assumingMemoryBound(to: UInt8.self), &outputLength
                )
            }
        }
        return digest != nil && outputLength == UInt32(byteCount)
    }
}
