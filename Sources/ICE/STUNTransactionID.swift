/// The 96-bit transaction ID of a STUN message (RFC 8489 section 5), held as three big-endian words
/// so that it compares, hashes and copies without touching the heap.
public struct STUNTransactionID: Hashable, Sendable {
    /// Bytes 0 to 3 of the ID (bytes 8 to 11 of the message), big-endian.
    public var high: UInt32
    /// Bytes 4 to 7 of the ID, big-endian.
    public var middle: UInt32
    /// Bytes 8 to 11 of the ID, big-endian.
    public var low: UInt32

    /// Bytes in a transaction ID.
    public static let byteCount = 12

    public init(high: UInt32, middle: UInt32, low: UInt32) {
        self.high = high
        self.middle = middle
        self.low = low
    }

    /// An ID from exactly 12 bytes, in wire order.
    public init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == Self.byteCount, "a STUN transaction ID has 12 bytes, not \(bytes.count)")
        var words: (UInt32, UInt32, UInt32) = (0, 0, 0)
        for (index, byte) in bytes.enumerated() {
            let shift = UInt32(24 - 8 * (index % 4))
            switch index / 4 {
            case 0: words.0 |= UInt32(byte) << shift
            case 1: words.1 |= UInt32(byte) << shift
            default: words.2 |= UInt32(byte) << shift
            }
        }
        self.init(high: words.0, middle: words.1, low: words.2)
    }

    /// Reads the 12 bytes at `offset`, which the caller has checked are there.
    init(reading bytes: UnsafeRawBufferPointer, at offset: Int) {
        high = bytes.uint32(at: offset)
        middle = bytes.uint32(at: offset + 4)
        low = bytes.uint32(at: offset + 8)
    }

    /// Writes the 12 bytes at `offset`, which the caller has checked has room.
    func write(into bytes: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.setUInt32(high, at: offset)
        bytes.setUInt32(middle, at: offset + 4)
        bytes.setUInt32(low, at: offset + 8)
    }

    /// A fresh ID from the system's cryptographically secure generator, as RFC 8489 section 5 asks.
    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A fresh ID from `generator` (tests pass a seeded one).
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        let first = generator.next() as UInt64
        let second = generator.next() as UInt32
        return STUNTransactionID(
            high: UInt32(truncatingIfNeeded: first >> 32),
            middle: UInt32(truncatingIfNeeded: first),
            low: second
        )
    }

    /// The 12 bytes in wire order. Allocates; meant for tests and logs, not the packet path.
    public var bytes: [UInt8] {
        [high, middle, low].flatMap { word in
            [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) }
        }
    }
}

extension STUNTransactionID: CustomStringConvertible {
    /// 24 lowercase hex digits, as Wireshark shows the ID.
    public var description: String {
        [high, middle, low].map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 8 - digits.count) + digits
        }.joined()
    }
}
