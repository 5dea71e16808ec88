// Helpers shared by the RTCP tests. Named with an RTCP prefix so they cannot collide with helpers
// other test files in this target define.

@testable import RTPWire

/// Parses hex written as in RFC diagrams: whitespace is ignored and `#` starts a comment that runs to
/// the end of the line, so each golden can say how its bytes were derived.
func rtcpHex(_ text: String) -> [UInt8] {
    var digits: [UInt8] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        for character in code where !character.isWhitespace {
            digits.append(UInt8(String(character), radix: 16)!)
        }
    }
    precondition(digits.count % 2 == 0, "odd hex digit count")
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

/// Hands `body` a view of the one RTCP packet at the start of `bytes`.
func withRTCPPacket<R>(_ bytes: [UInt8], _ body: (RTCPPacketView) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in try body(try RTCPPacketView(parsing: raw)) }
}

/// Hands `body` the compound packet `bytes` holds.
func withRTCPCompound<R>(_ bytes: [UInt8], _ body: (RTCPCompoundPacket) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in try body(try RTCPCompoundPacket(parsing: raw)) }
}

/// A deterministic generator (SplitMix64) so randomized tests see the same inputs on every run.
struct RTCPSplitMix64: RandomNumberGenerator {
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
