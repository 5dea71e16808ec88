/// One synchronization source an m-section announces, gathered from its `a=ssrc` lines
/// (RFC 5576 section 4.1).
public struct SSRCDescription: Sendable, Equatable {
    public var ssrc: UInt32
    /// Source attributes by name: `cname`, `msid`, and whatever else the writer added. When a name
    /// repeats, the first value is kept.
    public var attributes: [String: String]

    public init(ssrc: UInt32, attributes: [String: String] = [:]) {
        self.ssrc = ssrc
        self.attributes = attributes
    }

    /// The RTCP canonical name of the source.
    public var cname: String? { attributes["cname"] }

    /// The stream and track the source belongs to, from the legacy `a=ssrc:<ssrc> msid:` form.
    public var msid: MSID? { attributes["msid"].flatMap { try? MSID(parsing: $0) } }
}
