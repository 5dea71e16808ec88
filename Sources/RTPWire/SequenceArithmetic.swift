/// Comparison of RTP sequence numbers and timestamps that wrap around (RFC 3550 section A.1,
/// RFC 1982 serial number arithmetic): `a` is newer than `b` when it lies less than half the
/// number space ahead of it.
public enum SequenceArithmetic {
    /// Whether `a` comes after `b`, allowing for wrap-around.
    @inlinable
    public static func isNewer<Value: FixedWidthInteger & UnsignedInteger>(_ a: Value, than b: Value) -> Bool {
        let forward = a &- b
        return forward != 0 && forward < (Value(1) << (Value.bitWidth - 1))
    }

    /// The signed shortest distance from `b` to `a` (positive when `a` is newer).
    @inlinable
    public static func distance<Value: FixedWidthInteger & UnsignedInteger>(from b: Value, to a: Value) -> Int64 {
        let forward = a &- b
        let half = Value(1) << (Value.bitWidth - 1)
        if forward < half {
            return Int64(forward)
        }
        return -Int64(b &- a)
    }
}

/// Unwraps a wrapping counter (RTP sequence number or timestamp) into a monotonic 64-bit value.
///
/// The first value unwraps to itself; later values unwrap to the 64-bit value nearest to the previous
/// one, so reordering across a wrap lands on the right side of it.
public struct WrapAroundUnwrapper<Value: FixedWidthInteger & UnsignedInteger>: Sendable {
    @usableFromInline
    var last: Int64?

    public init() {}

    /// The unwrapped value of the most recent call, if any.
    public var lastUnwrapped: Int64? { last }

    /// Unwraps `value` relative to the previous value.
    @inlinable
    public mutating func unwrap(_ value: Value) -> Int64 {
        guard let previous = last else {
            let first = Int64(value)
            last = first
            return first
        }
        let unwrapped = previous + SequenceArithmetic.distance(from: Value(truncatingIfNeeded: previous), to: value)
        last = unwrapped
        return unwrapped
    }

    /// Unwraps `value` relative to the previous value without remembering it.
    @inlinable
    public func peek(_ value: Value) -> Int64 {
        guard let previous = last else { return Int64(value) }
        return previous + SequenceArithmetic.distance(from: Value(truncatingIfNeeded: previous), to: value)
    }
}

public typealias SequenceNumberUnwrapper = WrapAroundUnwrapper<UInt16>
public typealias TimestampUnwrapper = WrapAroundUnwrapper<UInt32>
