/// One m-section: the `m=` line and every line after it up to the next `m=` (RFC 8866 section 5.14).
///
/// Lines are kept as written, unknown ones included; the typed views in `MediaDescription+Attributes`
/// read them. Those views see only this section's own lines; for ICE, DTLS and direction attributes
/// that a writer may put at session level instead, ask the `SessionDescription` (`iceUfrag(for:)` and
/// its kin).
public struct MediaDescription: Sendable, Equatable {
    /// `audio`, `video`, `application`, ...
    public var kind: String
    /// 0 rejects the m-section (RFC 8866 section 5.14, RFC 3264 section 6).
    public var port: UInt16
    /// The count after a slash in `m=audio 49170/2 ...`, rare outside multicast.
    public var portCount: UInt16?
    /// Such as `UDP/TLS/RTP/SAVPF` or `UDP/DTLS/SCTP`.
    public var transportProtocol: String
    /// RTP payload types as text for RTP protocols; other protocols define their own, such as
    /// `webrtc-datachannel`.
    public var formats: [String]
    /// Every line after the `m=` line, in order.
    public var lines: [SDPLine]
    /// The line number of the `m=` line in the parsed text, for errors; 0 for a section built in code.
    public var line: Int

    public init(
        kind: String, port: UInt16, portCount: UInt16? = nil, transportProtocol: String, formats: [String],
        lines: [SDPLine] = [], line: Int = 0
    ) {
        self.kind = kind
        self.port = port
        self.portCount = portCount
        self.transportProtocol = transportProtocol
        self.formats = formats
        self.lines = lines
        self.line = line
    }

    /// The `m=` line.
    public var mediaLine: SDPLine {
        let port = portCount.map { "\(self.port)/\($0)" } ?? "\(self.port)"
        return SDPLine(
            type: "m", value: ([kind, port, transportProtocol] + formats).joined(separator: " "),
            sourceLine: line > 0 ? line : nil)
    }

    /// Whether the formats are RTP payload types (RFC 8866 section 5.14: any `RTP/AVP` profile).
    public var carriesRTP: Bool {
        transportProtocol.split(separator: "/").contains { $0.hasPrefix("AVP") || $0.hasPrefix("SAVP") }
    }

    /// Sections are equal when they say the same thing; where they stood in a text does not count.
    public static func == (lhs: MediaDescription, rhs: MediaDescription) -> Bool {
        lhs.kind == rhs.kind && lhs.port == rhs.port && lhs.portCount == rhs.portCount
            && lhs.transportProtocol == rhs.transportProtocol && lhs.formats == rhs.formats && lhs.lines == rhs.lines
    }
}

extension MediaDescription {
    /// Reads an `m=` line; the lines after it are added by the caller.
    init(parsing mediaLine: SDPLine) throws(SDPError) {
        let fields = mediaLine.value.split(separator: " ")
        guard fields.count >= 4 else {
            throw SDPError("m= needs <media> <port> <protocol> <format>...", at: mediaLine)
        }
        let portAndCount = fields[1].split(separator: "/", omittingEmptySubsequences: false)
        guard portAndCount.count <= 2, let port = UInt16(portAndCount[0]) else {
            throw SDPError("port \"\(fields[1])\" is not a number from 0 to 65535", at: mediaLine)
        }
        var portCount: UInt16?
        if portAndCount.count == 2 {
            guard let count = UInt16(portAndCount[1]), count > 0 else {
                throw SDPError("port count \"\(portAndCount[1])\" is not a positive number", at: mediaLine)
            }
            portCount = count
        }
        self.init(
            kind: String(fields[0]), port: port, portCount: portCount, transportProtocol: String(fields[2]),
            formats: fields.dropFirst(3).map(String.init), line: mediaLine.sourceLine ?? 0)
        if carriesRTP {
            for format in formats {
                do throws(SDPError) {
                    _ = try SDPAttributeValue.payloadType(format[...])
                } catch {
                    throw error.located(at: mediaLine)
                }
            }
        }
    }
}
