/// Sources that belong together, from `a=ssrc-group` (RFC 5576 section 4.2): `FID` pairs a media
/// source with its RTX repair source, `SIM` lists simulcast layers.
public struct SSRCGroup: Sendable, Equatable {
    /// The relationship, such as `FID` or `SIM`.
    public var semantics: String
    /// The sources, in the order the semantics give meaning to.
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    /// Reads an attribute value such as `FID 1613396447 2617432384`.
    init(parsing attributeValue: String) throws(SDPError) {
        let fields = attributeValue.split(separator: " ")
        guard fields.count >= 2 else { throw SDPError(reason: "a=ssrc-group needs <semantics> <ssrc>...") }
        var ssrcs: [UInt32] = []
        for field in fields.dropFirst() {
            ssrcs.append(try SDPAttributeValue.ssrc(field))
        }
        self.init(semantics: String(fields[0]), ssrcs: ssrcs)
    }
}
