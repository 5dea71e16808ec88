import Dispatch
import Glibc

/// The clocks of the media plane. Every function below the worker takes `now` as a parameter; only
/// the worker reads these, once per batch or timer tick.
enum MediaClock {
    /// Monotonic nanoseconds, for every interval and timeout.
    @inline(__always)
    static func monotonicNow() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// Wall-clock nanoseconds since 1970: the clock of the kernel's receive timestamps.
    @inline(__always)
    static func realtimeNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Seconds between the NTP epoch (1900) and the Unix epoch (1970).
    static let ntpEpochOffset: UInt64 = 2_208_988_800

    /// Wall-clock time as a 64-bit NTP timestamp (32.32 fixed-point seconds since 1900), for sender
    /// reports.
    static func ntpNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let seconds = UInt64(time.tv_sec) + ntpEpochOffset
        let fraction = (UInt64(time.tv_nsec) << 32) / 1_000_000_000
        return seconds << 32 | fraction
    }
}
