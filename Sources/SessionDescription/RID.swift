/// One RTP stream an m-section restricts or names, from `a=rid` (RFC 8851); with `a=simulcast` these
/// are the simulcast layers.
public struct RID: Sendable, Equatable {
    /// Whether the writer sends or receives the stream.
    public enum Direction: String, Sendable {
        case send, recv
    }

    /// The stream's id, which packets carry in the rtp-stream-id header extension.
    public var id: String
    public var direction: Direction
    /// Restrictions as written, such as `pt=96;max-width=1280`.
    public var params: String?

    public init(id: String, direction: Direction, params: String? = nil) {
        self.id = id
        self.direction = direction
        self.params = params
    }

    /// Reads an attribute value such as `h send` or `f send max-width=1280`.
    init(parsing attributeValue: String) throws(SDPError) {
        let fields = attributeValue.split(separator: " ", maxSplits: 2)
        guard fields.count >= 2 else { throw SDPError(reason: "a=rid needs <id> send|recv [<restrictions>]") }
        guard let direction = Direction(rawValue: String(fields[1])) else {
            throw SDPError(reason: "rid direction \"\(fields[1])\" is neither send nor recv")
        }
        self.init(id: String(fields[0]), direction: direction, params: fields.count == 3 ? String(fields[2]) : nil)
    }
}
