// NTP timestamps (RFC 5905) are 64-bit fixed point: seconds since 1900 in the high 32 bits, the
// fraction of a second in the low 32. RTCP's LSR, DLSR and round-trip arithmetic use "compact NTP",
// the middle 32 bits: 16 bits of seconds and 16 bits of fraction, wrapping every 18.2 hours.

extension ReceiverStatistics {
    /// Compact NTP units per second: the fraction has 16 bits.
    public static let compactNTPUnitsPerSecond: UInt64 = 1 << 16

    /// The middle 32 bits of a 64-bit NTP timestamp, as LSR carries it.
    @inlinable
    public static func compactNTP(fromNTPTimestamp ntpTimestamp: UInt64) -> UInt32 {
        UInt32(truncatingIfNeeded: ntpTimestamp >> 16)
    }

    /// The 64-bit NTP timestamp nearest to `reference` whose middle 32 bits are `compactNTP`, with
    /// the low 16 bits of the fraction zero.
    ///
    /// Compact NTP forgets the high 16 bits of seconds, so expanding it needs a nearby full timestamp,
    /// usually the current time; the result may lie up to 9.1 hours either side of it.
    @inlinable
    public static func ntpTimestamp(fromCompactNTP compactNTP: UInt32, nearest reference: UInt64) -> UInt64 {
        let offset = Int64(Int32(bitPattern: compactNTP &- Self.compactNTP(fromNTPTimestamp: reference)))
        return (reference & ~0xFFFF) &+ UInt64(bitPattern: offset << 16)
    }

    /// A 64-bit NTP timestamp for a time counted in nanoseconds since the NTP epoch (1900-01-01
    /// 00:00 UTC), so a sender can stamp sender reports and the arrival of receiver reports from
    /// one clock.
    @inlinable
    public static func ntpTimestamp(nanosecondsSinceNTPEpoch nanoseconds: UInt64) -> UInt64 {
        let seconds = nanoseconds / nanosecondsPerSecond
        let fraction = (nanoseconds % nanosecondsPerSecond) << 32 / nanosecondsPerSecond
        return seconds << 32 | fraction
    }

    /// A time interval in compact NTP units (1/65536 s), rounded down; saturates at `UInt32.max`
    /// (about 18.2 hours), as DLSR should rather than wrap to a short delay.
    @inlinable
    public static func compactNTPInterval(nanoseconds: UInt64) -> UInt32 {
        let seconds = nanoseconds / nanosecondsPerSecond
        guard seconds < compactNTPUnitsPerSecond else { return .max }
        let fraction = (nanoseconds % nanosecondsPerSecond) * compactNTPUnitsPerSecond / nanosecondsPerSecond
        return UInt32(seconds * compactNTPUnitsPerSecond + fraction)
    }

    /// A compact NTP interval in nanoseconds, rounded down.
    @inlinable
    public static func nanoseconds(fromCompactNTPInterval interval: UInt32) -> UInt64 {
        UInt64(interval) * nanosecondsPerSecond / compactNTPUnitsPerSecond
    }

    /// The round-trip time a media sender derives from a report block about its stream
    /// (RFC 3550 section 6.4.1): RTT = A - LSR - DLSR, in compact NTP.
    ///
    /// The subtraction wraps, so the result is right across the 18-hour wrap of compact NTP. A result
    /// that would be negative, which only clock adjustment or a lying receiver produce, is reported
    /// as 0 rather than as a wrapped 18-hour round trip.
    ///
    /// - Parameters:
    ///   - arrivalCompactNTP: A, when the receiver report arrived, as compact NTP on the clock the
    ///     sender stamps its sender reports with.
    ///   - lastSenderReport: LSR from the report block.
    ///   - delaySinceLastSenderReport: DLSR from the report block.
    /// - Returns: the round-trip time in 1/65536 s, or nil when LSR is 0: the receiver has not seen a
    ///   sender report yet, so the block says nothing about the round trip.
    @inlinable
    public static func roundTripTime(
        arrivalCompactNTP: UInt32,
        lastSenderReport: UInt32,
        delaySinceLastSenderReport: UInt32
    ) -> UInt32? {
        guard lastSenderReport != 0 else { return nil }
        let roundTrip = arrivalCompactNTP &- lastSenderReport &- delaySinceLastSenderReport
        return Int32(bitPattern: roundTrip) < 0 ? 0 : roundTrip
    }

    /// The round-trip time of `roundTripTime(arrivalCompactNTP:lastSenderReport:delaySinceLastSenderReport:)`
    /// as a `Duration`, nil when LSR is 0.
    @inlinable
    public static func roundTripDuration(
        arrivalCompactNTP: UInt32,
        lastSenderReport: UInt32,
        delaySinceLastSenderReport: UInt32
    ) -> Duration? {
        guard
            let roundTrip = roundTripTime(
                arrivalCompactNTP: arrivalCompactNTP,
                lastSenderReport: lastSenderReport,
                delaySinceLastSenderReport: delaySinceLastSenderReport
            )
        else { return nil }
        return .nanoseconds(Int64(nanoseconds(fromCompactNTPInterval: roundTrip)))
    }
}
