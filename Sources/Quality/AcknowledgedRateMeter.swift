/// The rate the receiver acknowledged receiving, from the arrival times in feedback: bytes over
/// windows of at least `windowNanoseconds` of arrival time, smoothed. Probe packets count: they
/// share the bottleneck with the media.
public struct AcknowledgedRateMeter: Equatable, Sendable {
    static let windowNanoseconds: Int64 = 250_000_000
    static let smoothing = 0.7

    /// Bits per second, nil before the first full window.
    public private(set) var bitrate: Double?
    private var windowStart: Int64?
    private var windowBytes = 0

    public init() {}

    /// Takes one received packet, in send order.
    public mutating func add(size: Int, arrivalTime: Int64) {
        guard let start = windowStart else {
            windowStart = arrivalTime
            return
        }
        if arrivalTime < start {
            windowStart = arrivalTime
            windowBytes = 0
            return
        }
        windowBytes += size
        let span = arrivalTime - start
        guard span >= Self.windowNanoseconds else { return }
        let sample = Double(windowBytes) * 8 / (Double(span) / 1e9)
        bitrate = bitrate.map { $0 + Self.smoothing * (sample - $0) } ?? sample
        windowStart = arrivalTime
        windowBytes = 0
    }
}
