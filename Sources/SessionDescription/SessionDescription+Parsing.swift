extension SessionDescription {
    /// The letters RFC 8866 section 5 allows only at session level, besides `v`, `o` and `s`.
    private static let sessionOnlyTypes: Set<Character> = ["u", "e", "p", "t", "r", "z"]

    /// Parses `text`, whose lines may end in CRLF or LF.
    ///
    /// Refuses text that is not a session description: it must start `v=0`, `o=`, `s=`; every line must
    /// be `<letter>=<value>`; session-only lines may not appear inside an m-section; and the attributes
    /// this package interprets (rtpmap, fmtp, rtcp-fb, extmap, ssrc, ssrc-group, msid, rid, group,
    /// fingerprint, setup, mid, ice-ufrag, ice-pwd, simulcast) must be well formed. Each error names
    /// the line. Blank lines are skipped, so a trailing line break is fine.
    public init(parsing text: String) throws(SDPError) {
        var lines: [SDPLine] = []
        var lineNumber = 0
        for bytes in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let content = bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes
            if content.isEmpty { continue }
            lines.append(try SDPLine(parsing: String(decoding: content, as: UTF8.self), lineNumber: lineNumber))
        }
        guard let version = lines.first else { throw SDPError(reason: "the session description is empty") }
        guard version.type == "v", version.value == "0" else {
            throw SDPError("a session description starts with v=0", at: version)
        }
        let origin = try Self.requiredLine("o", named: "origin", at: 1, of: lines)
        let sessionName = try Self.requiredLine("s", named: "session name", at: 2, of: lines)

        let parsedOrigin: SDPOrigin
        do throws(SDPError) {
            parsedOrigin = try SDPOrigin(parsing: origin.value)
        } catch {
            throw error.located(at: origin)
        }

        self.init(origin: parsedOrigin, sessionName: sessionName.value)
        for line in lines.dropFirst(3) {
            if line.type == "m" {
                media.append(try MediaDescription(parsing: line))
                continue
            }
            if line.type == "v" || line.type == "o" || line.type == "s" {
                throw SDPError("\(line.type)= may appear only once, at the top of the description", at: line)
            }
            if !media.isEmpty, Self.sessionOnlyTypes.contains(line.type) {
                throw SDPError("\(line.type)= is a session-level line and belongs before the first m= line", at: line)
            }
            try SDPAttributeValue.check(line)
            if media.isEmpty {
                sessionLines.append(line)
            } else {
                media[media.count - 1].lines.append(line)
            }
        }
    }

    /// The line at `index`, which RFC 8866 section 5 requires to be of `type`.
    private static func requiredLine(
        _ type: Character, named name: String, at index: Int, of lines: [SDPLine]
    ) throws(SDPError) -> SDPLine {
        guard index < lines.count else {
            throw SDPError(reason: "the description ends before its \(type)= (\(name)) line")
        }
        guard lines[index].type == type else {
            throw SDPError(
                "expected \(type)= (\(name)) here; SDP starts with v=, o=, s= in that order", at: lines[index])
        }
        return lines[index]
    }
}
