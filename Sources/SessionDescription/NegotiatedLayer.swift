/// One simulcast encoding of a publisher's video m-section: named by `rid` (`a=rid` with
/// `a=simulcast`, its SSRCs learned from packets) or by SSRC (`a=ssrc-group:SIM`).
public struct NegotiatedLayer: Sendable, Equatable {
    public var rid: String?
    public var ssrc: UInt32?
    public var rtxSSRC: UInt32?

    public init(rid: String? = nil, ssrc: UInt32? = nil, rtxSSRC: UInt32? = nil) {
        self.rid = rid
        self.ssrc = ssrc
        self.rtxSSRC = rtxSSRC
    }
}
