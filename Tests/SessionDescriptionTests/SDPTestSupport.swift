@testable import SessionDescription

/// The 1-based number of the `occurrence`th line of `text` that starts with `prefix`, so tests name
/// fixture lines by content rather than by a count that drifts when a fixture changes.
func lineNumber(of prefix: String, in text: String, occurrence: Int = 1) -> Int? {
    var seen = 0
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
    where line.hasPrefix(prefix) {
        seen += 1
        if seen == occurrence { return index + 1 }
    }
    return nil
}

/// `text` with its lines changed by `edit`.
func editing(_ text: String, _ edit: (inout [String]) -> Void) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    edit(&lines)
    return lines.joined(separator: "\n")
}

/// `text` without the lines that are exactly `line`, or only its `occurrence`th such line.
func removing(_ line: String, from text: String, occurrence: Int? = nil) -> String {
    editing(text) { lines in
        var seen = 0
        lines.removeAll { candidate in
            guard candidate == line else { return false }
            seen += 1
            return occurrence == nil || occurrence == seen
        }
    }
}

/// `text` with every line that is exactly `line` replaced by `replacement`.
func replacing(_ line: String, with replacement: String, in text: String) -> String {
    editing(text) { lines in
        lines = lines.map { $0 == line ? replacement : $0 }
    }
}

/// The router's transport as the tests give it: two host candidates, a SHA-256 certificate fingerprint.
let routerTransport = LocalTransportDescription(
    iceUsernameFragment: "swyd8Kq2",
    icePassword: "v7HcQx2mTn9LpR4sWz1bYk6e",
    fingerprint: DTLSFingerprint(algorithm: "SHA-256", bytes: (0..<32).map { UInt8($0 * 7 & 0xFF) }),
    candidates: [
        ICECandidate(host: "203.0.113.10", port: 40000, priority: 2_130_706_431, foundation: "1"),
        ICECandidate(host: "2001:db8::10", port: 40000, priority: 2_130_706_175, foundation: "2"),
    ])

/// The lines of a written description, without the line ends.
func lines(of description: SessionDescription) -> [String] {
    description.description.split(separator: "\r\n").map(String.init)
}
