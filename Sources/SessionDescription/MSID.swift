/// The media stream and track an m-section or source belongs to, from `a=msid` (RFC 8830).
public struct MSID: Sendable, Equatable {
    /// The stream id as written; `-` means the track belongs to no stream.
    public var streamID: String
    /// The track id, when given.
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    /// Reads a value such as `stream-id track-id`.
    init(parsing value: String) throws(SDPError) {
        let fields = value.split(separator: " ")
        guard fields.count == 1 || fields.count == 2 else {
            throw SDPError(reason: "a=msid needs <stream id> [<track id>]")
        }
        self.init(streamID: String(fields[0]), trackID: fields.count == 2 ? String(fields[1]) : nil)
    }
}
