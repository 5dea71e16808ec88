/// The header extensions an SFU reads or writes, by the URI that SDP `a=extmap` lines negotiate.
public enum HeaderExtensionURI {
    /// RFC 8843 media identification (`mid`), an SDES item carried as an extension.
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// RFC 8852 RTP stream identifier (simulcast `rid`).
    public static let rtpStreamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
    /// RFC 8852 repaired RTP stream identifier (the `rid` an RTX stream repairs).
    public static let repairedRTPStreamID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id"
    /// Absolute send time, 24-bit 6.18 fixed-point seconds (used by REMB estimation).
    public static let absoluteSendTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// Transport-wide sequence number for transport-cc feedback.
    public static let transportWideSequenceNumber =
        "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// RFC 6464 client-to-mixer audio level.
    public static let audioLevel = "urn:ietf:params:rtp-hdrext:ssrc-audio-level"
}
