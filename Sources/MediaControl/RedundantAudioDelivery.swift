/// How a transport's consumers send audio that arrives as RFC 2198 redundant audio (`red/48000/2`,
/// docs/red.md).
public enum RedundantAudioDelivery: Equatable, Sendable, Codable {
    /// Each packet's primary frame alone, as plain Opus: for a receiver that did not negotiate RED.
    case primaryOnly
    /// Each packet as it arrives, at the receiver's RED payload type.
    case redundant(payloadType: UInt8)
    /// Each packet as it arrives, at the publisher's own RED payload type: a relay leg to another
    /// router, whose copy of the track knows that type from the leg's consumer.
    case asPublished
}
