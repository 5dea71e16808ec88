/// The RFC 6464 audio level of a packet: a voice-activity flag and the level in -dBov (0 is loudest,
/// 127 is silence).
///
///      0 1 2 3 4 5 6 7
///     +-+-+-+-+-+-+-+-+
///     |V|    level    |
///     +-+-+-+-+-+-+-+-+
public struct AudioLevelIndication: Equatable, Sendable {
    public var voiceActivity: Bool
    /// Level in -dBov, 0...127.
    public var level: UInt8

    public init(voiceActivity: Bool, level: UInt8) {
        self.voiceActivity = voiceActivity
        self.level = min(level, 127)
    }

    @inlinable
    init(byte: UInt8) {
        self.voiceActivity = byte & 0x80 != 0
        self.level = byte & 0x7F
    }

    @inlinable
    var byte: UInt8 { (voiceActivity ? 0x80 : 0) | level & 0x7F }
}
