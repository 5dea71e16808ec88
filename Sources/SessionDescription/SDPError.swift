/// Why a session description was refused: what was wrong, and where in the text it was.
///
/// The line number and the line itself travel with the reason so that whoever debugs a client can
/// find the offending line in the SDP their browser produced without re-parsing it by eye.
public struct SDPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The 1-based line number in the text, or nil when the problem belongs to the whole description.
    public var line: Int?
    /// The offending line as written, such as `m=video 9 UDP/TLS/RTP/SAVPF 102`.
    public var text: String?
    /// What is wrong, in words meant for a person.
    public var reason: String

    public init(line: Int? = nil, text: String? = nil, reason: String) {
        self.line = line
        self.text = text
        self.reason = reason
    }

    /// `line 12 (a=rtpmap:96 VP8): <reason>`, or as much of that as is known.
    public var description: String {
        switch (line, text) {
        case (let line?, let text?): "line \(line) (\(text)): \(reason)"
        case (let line?, nil): "line \(line): \(reason)"
        case (nil, let text?): "\(text): \(reason)"
        case (nil, nil): reason
        }
    }
}

extension SDPError {
    /// An error about `line`, or about the text it came from when it was parsed.
    init(_ reason: String, at line: SDPLine) {
        self.init(line: line.sourceLine, text: line.description, reason: reason)
    }

    /// An error about a whole media section, named by its `m=` line.
    init(_ reason: String, at media: MediaDescription) {
        self.init(reason, at: media.mediaLine)
    }

    /// This error placed at `line`; the value parsers that throw it do not know where their text came from.
    func located(at line: SDPLine) -> SDPError {
        SDPError(line: self.line ?? line.sourceLine, text: text ?? line.description, reason: reason)
    }
}
