/// Parses hex written as in RFC diagrams: whitespace is ignored and `#` starts a comment that runs to
/// the end of the line, so each golden can say how its bytes were derived.
public func hexBytes(_ text: String) -> [UInt8] {
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
