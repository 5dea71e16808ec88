/// The payload types a receiver chose for a consumer's media and its RFC 4588 retransmissions, when it
/// made the offer (a WHEP player); nil `retransmission` means it takes no RTX stream, and resends then
/// come on the media's own SSRC.
public struct ReceiverPayloadTypes: Equatable, Sendable, Codable {
    public var media: UInt8
    public var retransmission: UInt8?

    public init(media: UInt8, retransmission: UInt8?) {
        self.media = media
        self.retransmission = retransmission
    }
}
