// Helpers shared by the RTPWire tests.

/// Parses hex with optional whitespace, for goldens written as they appear in RFC diagrams.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex digit count")
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// A deterministic generator for randomized tests (SplitMix64), so every run sees the same inputs.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
