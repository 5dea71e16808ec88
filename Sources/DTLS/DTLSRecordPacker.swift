/// Packs the DTLS records OpenSSL wrote into a memory BIO into datagrams, never splitting a record.
///
///     0                   1                   2                   3
///     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |  content type |        version                |   epoch ...   |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |  ... epoch    |           sequence number (48 bits) ...       |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///    |  ... sequence number          |            length             |
///    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// A memory BIO keeps no datagram boundaries, so a whole flight comes out as one run of bytes; sent
/// as one datagram it could exceed the path MTU.
enum DTLSRecordPacker {
    static let headerBytes = 13

    static func datagrams(from bytes: ArraySlice<UInt8>, maximumBytes: Int) -> [[UInt8]] {
        var datagrams: [[UInt8]] = []
        var current: [UInt8] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            var recordEnd = bytes.endIndex
            if bytes.endIndex - offset >= headerBytes {
                let length = Int(bytes[offset + 11]) << 8 | Int(bytes[offset + 12])
                recordEnd = min(bytes.endIndex, offset + headerBytes + length)
            }
            let record = bytes[offset..<recordEnd]
            if !current.isEmpty, current.count + record.count > maximumBytes {
                datagrams.append(current)
                current = []
            }
            current.append(contentsOf: record)
            offset = recordEnd
        }
        if !current.isEmpty { datagrams.append(current) }
        return datagrams
    }
}
