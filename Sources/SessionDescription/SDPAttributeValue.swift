/// Readers for attribute values that have no type of their own, and the check that every attribute
/// this package interprets is well formed.
///
/// The check runs when a description is parsed, so a malformed line is refused with its line number
/// there; the typed views on `MediaDescription` and `SessionDescription` can then read the lines
/// without throwing.
enum SDPAttributeValue {
    /// Refuses `line` if it is an attribute this package interprets and its value does not parse.
    static func check(_ line: SDPLine) throws(SDPError) {
        guard let name = line.attributeName else { return }
        let value = line.attributeValue ?? ""
        do throws(SDPError) {
            switch name {
            case "rtpmap": _ = try RTPMap(parsing: value)
            case "fmtp": _ = try formatParameters(value)
            case "rtcp-fb": _ = try rtcpFeedback(value)
            case "extmap": _ = try HeaderExtension(parsingExtmap: value)
            case "ssrc": _ = try ssrcAttribute(value)
            case "ssrc-group": _ = try SSRCGroup(parsing: value)
            case "msid": _ = try MSID(parsing: value)
            case "rid": _ = try RID(parsing: value)
            case "group": _ = try group(value)
            case "fingerprint": _ = try DTLSFingerprint(parsing: value)
            case "setup":
                guard DTLSSetupRole(rawValue: value) != nil else {
                    throw SDPError(reason: "a=setup must be active, passive, actpass or holdconn")
                }
            case "mid", "ice-ufrag", "ice-pwd", "simulcast":
                guard !value.isEmpty else { throw SDPError(reason: "a=\(name) needs a value") }
            default: break
            }
        } catch {
            throw error.located(at: line)
        }
    }

    /// An RTP payload type, 0...127 (RFC 3550 section 5.1 leaves 7 bits for it).
    static func payloadType(_ text: Substring) throws(SDPError) -> UInt8 {
        guard let payloadType = UInt8(text), payloadType <= 127 else {
            throw SDPError(reason: "payload type \"\(text)\" is not a number from 0 to 127")
        }
        return payloadType
    }

    static func ssrc(_ text: Substring) throws(SDPError) -> UInt32 {
        guard let ssrc = UInt32(text) else {
            throw SDPError(reason: "SSRC \"\(text)\" is not a number from 0 to 4294967295")
        }
        return ssrc
    }

    /// `a=fmtp:<pt> <parameters>` (RFC 8866 section 6.15).
    static func formatParameters(_ value: String) throws(SDPError) -> (payloadType: UInt8, parameters: String) {
        let fields = value.split(separator: " ", maxSplits: 1)
        guard fields.count == 2 else { throw SDPError(reason: "a=fmtp needs <payload type> <parameters>") }
        return (try payloadType(fields[0]), String(fields[1]))
    }

    /// The value of `name` in `key=value;key=value` format parameters, such as `apt` in `apt=96`.
    static func formatParameter(named name: String, in parameters: String) -> String? {
        for pair in parameters.split(separator: ";") {
            let keyAndValue = pair.split(separator: "=", maxSplits: 1)
            if keyAndValue.count == 2, keyAndValue[0].trimmingSpaces() == name {
                return String(keyAndValue[1].trimmingSpaces())
            }
        }
        return nil
    }

    /// `a=rtcp-fb:<pt>|* <type> [<parameters>]` (RFC 4585 section 4.2); the feedback comes back with
    /// single spaces, as `nack pli`.
    static func rtcpFeedback(_ value: String) throws(SDPError) -> (target: RTCPFeedbackTarget, feedback: String) {
        let fields = value.split(separator: " ")
        guard fields.count >= 2 else { throw SDPError(reason: "a=rtcp-fb needs <payload type or *> <feedback>") }
        let target: RTCPFeedbackTarget =
            fields[0] == "*" ? .everyPayloadType : .payloadType(try payloadType(fields[0]))
        return (target, fields.dropFirst().joined(separator: " "))
    }

    /// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 section 4.1).
    static func ssrcAttribute(_ value: String) throws(SDPError) -> (ssrc: UInt32, name: String, value: String) {
        let fields = value.split(separator: " ", maxSplits: 1)
        guard fields.count == 2 else { throw SDPError(reason: "a=ssrc needs <ssrc> <attribute>[:<value>]") }
        let attribute = fields[1].split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        return (try ssrc(fields[0]), String(attribute[0]), attribute.count == 2 ? String(attribute[1]) : "")
    }

    /// `a=group:<semantics> <identification tag>...` (RFC 5888 section 5). A BUNDLE group may be empty
    /// when an answer rejected every m-section.
    static func group(_ value: String) throws(SDPError) -> (semantics: String, identifiers: [String]) {
        let fields = value.split(separator: " ")
        guard let semantics = fields.first else { throw SDPError(reason: "a=group needs <semantics> <mid>...") }
        return (String(semantics), fields.dropFirst().map(String.init))
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, which writers put around `;` and `=` in format parameters.
    func trimmingSpaces() -> SubSequence {
        guard let first = firstIndex(where: { $0 != " " }), let last = lastIndex(where: { $0 != " " }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
