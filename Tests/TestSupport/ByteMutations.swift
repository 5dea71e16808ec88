/// Inputs for randomized parser tests: random bytes, and valid inputs after a few edits of the kind
/// that find parser bugs. Drawn from a `SeededGenerator`, so a failure reproduces on every run.
public enum ByteMutations {
    /// Boundary values that tend to sit on a parser's edges: zero, one, sign and nibble limits, and
    /// the one-byte header-extension profile's 0xBEDE.
    public static let interestingBytes: [UInt8] = [0x00, 0x01, 0x0F, 0x10, 0x7F, 0x80, 0xBE, 0xDE, 0xF0, 0xFF]

    /// Random bytes, 0–64 of them, or one time in ten 65–1500.
    public static func randomBytes(using generator: inout SeededGenerator) -> [UInt8] {
        let count =
            Int.random(in: 0..<10, using: &generator) == 0
            ? Int.random(in: 65...1_500, using: &generator) : Int.random(in: 0...64, using: &generator)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// `seed` after one to three edits: bit flips, byte overwrites (random or boundary values) and
    /// truncations. Half the edits land in the first 32 bytes, where the flags and lengths are.
    public static func mutated(_ seed: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            guard !bytes.isEmpty else { break }
            let reach = Bool.random(using: &generator) ? min(bytes.count, 32) : bytes.count
            let index = Int.random(in: 0..<reach, using: &generator)
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            case 5, 6: bytes[index] = UInt8.random(in: 0...255, using: &generator)
            case 7: bytes[index] = interestingBytes.randomElement(using: &generator)!
            case 8: bytes.removeLast(Int.random(in: 1...min(bytes.count, 4), using: &generator))
            default: bytes.removeLast(Int.random(in: 1...bytes.count, using: &generator))
            }
        }
        return bytes
    }
}
