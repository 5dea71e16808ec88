import Glibc

/// Clock readings in nanoseconds. Every process on a machine shares CLOCK_MONOTONIC, which is what
/// lets a publisher's abs-send-time and a subscriber's arrival time be compared for latency.
public enum MonotonicClock {
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Nanoseconds since the NTP epoch (1900), from the wall clock, for sender reports.
    static func nanosecondsSinceNTPEpoch() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return (UInt64(time.tv_sec) + 2_208_988_800) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
