/// Packets a router dropped, one counter per reason, so an operator can tell an attack from a bug
/// from a bad network.
public struct DropCounters: Equatable, Sendable {
    /// SRTP or SRTCP authentication failed (wrong key, tampering, corruption).
    public var authentication: UInt64 = 0
    /// SRTP replay protection refused the packet (a duplicate or one older than the window).
    public var replay: UInt64 = 0
    /// Not a well-formed RTP or RTCP packet.
    public var malformed: UInt64 = 0
    /// From an address other than the transport's remote address.
    public var wrongSource: UInt64 = 0
    /// An RTP packet whose SSRC no producer of the transport uses.
    public var unknownSSRC: UInt64 = 0
    /// Longer than 1500 bytes.
    public var oversize: UInt64 = 0
    /// Neither RTP nor RTCP (STUN or DTLS on a plain transport).
    public var notRTP: UInt64 = 0
    /// The kernel refused a send (socket buffer full).
    public var sendFailed: UInt64 = 0
    /// DTLS or media on a WebRTC transport from an address ICE has not verified.
    public var unverifiedSource: UInt64 = 0
    /// A STUN message refused: unknown username, bad MESSAGE-INTEGRITY or FINGERPRINT, malformed.
    public var stun: UInt64 = 0
    /// SRTP on a WebRTC transport before its DTLS handshake produced keys.
    public var beforeKeys: UInt64 = 0
    /// Dropped on purpose by the fault-injection test aid.
    public var faultInjected: UInt64 = 0
    /// Not queued to an ICE-TCP client whose connection already held its send queue's worth: the
    /// client reads slower than the router sends.
    public var sendQueueFull: UInt64 = 0
    /// Media that waited in its socket past its kind's limit while the worker was overloaded
    /// (`OverloadShedding`): it would have played too late.
    public var overloadLate: UInt64 = 0
    /// Not taken by an archive's writer, whose ring was full: the disk is slower than the media.
    public var recordingFull: UInt64 = 0

    public init() {}

    /// Adds another set of counters, to keep the drops of closed routers in the plane's totals.
    mutating func add(_ other: DropCounters) {
        authentication += other.authentication
        replay += other.replay
        malformed += other.malformed
        wrongSource += other.wrongSource
        unknownSSRC += other.unknownSSRC
        oversize += other.oversize
        notRTP += other.notRTP
        sendFailed += other.sendFailed
        unverifiedSource += other.unverifiedSource
        stun += other.stun
        beforeKeys += other.beforeKeys
        faultInjected += other.faultInjected
        sendQueueFull += other.sendQueueFull
        overloadLate += other.overloadLate
        recordingFull += other.recordingFull
    }

    /// The counters by name, for statistics and metrics.
    public var byReason: [String: UInt64] {
        [
            "authentication": authentication, "replay": replay, "malformed": malformed,
            "wrongSource": wrongSource, "unknownSSRC": unknownSSRC, "oversize": oversize, "notRTP": notRTP,
            "sendFailed": sendFailed, "unverifiedSource": unverifiedSource, "stun": stun, "beforeKeys": beforeKeys,
            "faultInjected": faultInjected, "sendQueueFull": sendQueueFull, "overloadLate": overloadLate,
            "recordingFull": recordingFull,
        ]
    }
}
