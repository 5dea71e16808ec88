/// Follows the frames a client sends on an upgraded connection, reading only their headers, and
/// finds the first unmasked one: RFC 6455 section 5.1 requires every client frame to be masked and
/// the server to fail a connection that sends one that is not, which the WebSocket layer we run on
/// does not check.
///
/// ```text
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// ```
struct WebSocketClientFrameCheck {
    enum Verdict: Equatable {
        case acceptable
        case unmaskedFrame
    }

    private var header: [UInt8] = []
    private var payloadLeft: UInt64 = 0

    init() {
        header.reserveCapacity(14)
    }

    /// Takes the next bytes from the client. After `.unmaskedFrame` the connection must be failed.
    mutating func scan(_ bytes: some Collection<UInt8>) -> Verdict {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if payloadLeft > 0 {
                let available = UInt64(bytes.distance(from: index, to: bytes.endIndex))
                let skipped = min(available, payloadLeft)
                payloadLeft -= skipped
                index = bytes.index(index, offsetBy: Int(skipped))
                continue
            }
            header.append(bytes[index])
            index = bytes.index(after: index)
            guard header.count >= 2 else { continue }
            guard header[1] & 0x80 != 0 else { return .unmaskedFrame }
            let lengthCode = header[1] & 0x7F
            let extendedBytes = lengthCode == 126 ? 2 : lengthCode == 127 ? 8 : 0
            guard header.count == 2 + extendedBytes + 4 else { continue }
            payloadLeft = extendedBytes == 0 ? UInt64(lengthCode) : header[2..<(2 + extendedBytes)].reduce(0) { $0 << 8 | UInt64($1) }
            header.removeAll(keepingCapacity: true)
        }
        return .acceptable
    }
}
