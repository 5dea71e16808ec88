/// The parameters of a client's request that reach the media plane as they were sent, so that a
/// refusal can name the request field.
public enum MediaParameter: Equatable, Sendable, Codable {
    /// The SRTP profile name of a plain transport's keying.
    case srtpProfile
    /// The RFC 4568 key parameter of a plain transport's keying.
    case srtpKey
    /// The address a plain transport's client receives on.
    case remoteAddress
    /// The certificate fingerprint of a WebRTC client's SDP.
    case dtlsFingerprint
    /// The share of packets fault injection drops.
    case dropShare
    case rateCapBitrate
    /// The transport-wide sequence number's header extension id of a plain transport.
    case transportWideSequenceID
    /// The payload type at which a plain transport's client takes RFC 2198 redundant audio.
    case redundantAudioPayloadType
}
