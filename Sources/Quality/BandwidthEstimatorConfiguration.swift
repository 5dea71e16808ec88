/// Bounds of a send-side bandwidth estimate, bits per second.
public struct BandwidthEstimatorConfiguration: Equatable, Sendable {
    /// The estimate before any feedback.
    public var startBitrate: Double
    public var minimumBitrate: Double
    public var maximumBitrate: Double

    public init(startBitrate: Double = 1_000_000, minimumBitrate: Double = 30_000, maximumBitrate: Double = 20_000_000) {
        self.startBitrate = startBitrate
        self.minimumBitrate = minimumBitrate
        self.maximumBitrate = maximumBitrate
    }
}
