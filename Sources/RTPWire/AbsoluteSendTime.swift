/// The abs-send-time header extension value: seconds in 6.18 fixed point, 24 bits, wrapping every
/// 64 seconds.
public struct AbsoluteSendTime: Equatable, Sendable {
    /// The 24-bit wire value.
    public var value: UInt32

    public init(value: UInt32) {
        self.value = value & 0x00FF_FFFF
    }

    /// The value for a clock reading in nanoseconds.
    public init(nanoseconds: UInt64) {
        // 2^18 ticks per second; multiply before dividing to keep precision, wrapping at 64 s.
        let ticks = ((nanoseconds % 64_000_000_000) << 18) / 1_000_000_000
        self.init(value: UInt32(truncatingIfNeeded: ticks))
    }

    /// The value in nanoseconds within its 64-second period.
    public var nanoseconds: UInt64 {
        (UInt64(value) * 1_000_000_000) >> 18
    }
}
