/// An RTP header extension negotiated by `a=extmap` (RFC 8285 section 8): the id that packets carry and
/// the URI that says what it means.
public struct HeaderExtension: Sendable, Equatable {
    /// The id in the packets, 1...14 for one-byte headers, up to 255 for two-byte ones.
    public var id: UInt8
    /// What the extension is, such as `urn:ietf:params:rtp-hdrext:sdes:mid`.
    public var uri: String

    public init(id: UInt8, uri: String) {
        self.id = id
        self.uri = uri
    }

    /// Reads an attribute value such as `3 http://...` or `3/sendonly http://... <attributes>`. The
    /// optional direction and extension attributes are left in the line; the router needs neither.
    init(parsingExtmap attributeValue: String) throws(SDPError) {
        let fields = attributeValue.split(separator: " ")
        guard fields.count >= 2 else { throw SDPError(reason: "a=extmap needs <id>[/<direction>] <uri>") }
        let idAndDirection = fields[0].split(separator: "/", omittingEmptySubsequences: false)
        guard let id = UInt8(idAndDirection[0]), id > 0 else {
            throw SDPError(reason: "extmap id \"\(idAndDirection[0])\" is not a number from 1 to 255")
        }
        if idAndDirection.count > 2
            || idAndDirection.count == 2 && MediaDirection(rawValue: String(idAndDirection[1])) == nil
        {
            throw SDPError(
                reason: "extmap direction \"\(fields[0])\" is not <id>/sendrecv, sendonly, recvonly or inactive")
        }
        self.init(id: id, uri: String(fields[1]))
    }

    /// The attribute value: `3 http://...`.
    var attributeValue: String { "\(id) \(uri)" }
}
