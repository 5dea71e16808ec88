/// Everything the router keeps to judge one direction of one transport: the smoothed quality, the
/// audio-fallback policy, and where the last sample left off. The policy runs only while the app has
/// it on (`isEnabled`) and nobody's choice has the video off (`isEligible`); otherwise it is suspended
/// and silent, while the quality is still measured for statistics.
public struct LinkMonitor: Equatable, Sendable {
    public private(set) var estimator: LinkQualityEstimator
    public private(set) var policy: AudioFallbackPolicy
    public private(set) var isEnabled = false
    public private(set) var isEligible = true
    /// Monotonic nanoseconds of the last sample, nil before the first.
    public var lastSampleAt: UInt64?
    /// The byte counter's value at the last sample.
    public var bytesAtLastSample: UInt64 = 0
    /// Packets expected and lost in reports that came too soon after the last sample to make one of
    /// their own; the next sample includes them.
    public var pendingInterval = ReportInterval(packetsExpected: 0, packetsLost: 0)

    public init(configuration: AudioFallbackConfiguration) {
        estimator = LinkQualityEstimator(configuration: configuration)
        policy = AudioFallbackPolicy(configuration: configuration)
        policy.suspend()
    }

    public var quality: LinkQuality { estimator.quality }

    /// The policy's state, or nil while the app has audio fallback off.
    public var fallbackState: AudioFallbackState? { isEnabled ? policy.state : nil }

    /// Takes an interval's sample and returns what the policy decided, if anything.
    /// - Parameters: See `AudioFallbackPolicy.evaluate(_:now:returnsLower:probedAtFullRate:)`.
    public mutating func record(_ sample: QualitySample, now: UInt64, returnsLower: Bool = false, probedAtFullRate: Bool = true) -> AudioFallbackAction? {
        estimator.record(sample)
        let action = policy.evaluate(estimator.quality, now: now, returnsLower: returnsLower, probedAtFullRate: probedAtFullRate)
        if action == .disableVideo || action == .enableVideo {
            // The sending rate just changed, so the old delivered rate says nothing about the path.
            estimator.resetDeliveredRate()
        }
        return action
    }

    /// See `AudioFallbackPolicy.withdrawWarning()`.
    public mutating func withdrawWarning() {
        policy.withdrawWarning()
    }

    public mutating func recordReceiverEstimate(bitsPerSecond: Double) {
        estimator.recordReceiverEstimate(bitsPerSecond: bitsPerSecond)
    }

    public mutating func recordSenderEstimate(bitsPerSecond: Double) {
        estimator.recordSenderEstimate(bitsPerSecond: bitsPerSecond)
    }

    /// The app turns the policy on or off. Returns true when video was off for quality and the
    /// caller must restore it, without telling anyone.
    public mutating func setEnabled(_ enabled: Bool) -> Bool {
        isEnabled = enabled
        return update()
    }

    /// A person's choice (or the stream's state) allows the policy to act, or not. Returns true when
    /// video was off for quality and the caller must restore it, without telling anyone.
    public mutating func setEligible(_ eligible: Bool) -> Bool {
        isEligible = eligible
        return update()
    }

    private mutating func update() -> Bool {
        if isEnabled && isEligible {
            policy.resume()
            return false
        }
        let wasVideoOff = policy.isVideoOff
        policy.suspend()
        return wasVideoOff
    }
}
