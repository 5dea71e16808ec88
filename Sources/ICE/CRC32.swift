/// CRC-32 as in ISO/IEC 3309 / ITU-T V.42 (the zlib and Ethernet CRC: reflected polynomial
/// 0xEDB88320, initial value and final XOR 0xFFFFFFFF), which RFC 8489 section 14.7 uses for
/// FINGERPRINT. Written here rather than taken from zlib so that ICE needs no more than OpenSSL.
enum CRC32 {
    /// The byte-at-a-time lookup table, computed once.
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return ~crc
    }
}
