/// The audio-fallback state machine of one link (a subscriber's downlink, or a publisher's uplink).
///
/// ```
///            score < warning for warnAfter          score < disable for disableAfter
///  videoOn ───────────────────────────────▶ warned ─────────────────────────────────▶ videoOff
///     ▲  ◀─────────────────────────────────   │                                         │
///     │   score ≥ recovery for liftAfter       │                                         │
///     │   (liftWarning)                        │                                         │
///     └────────────────────────────────────────┴─────────────────────────────────────────┘
///        probed path: full-rate probe, score ≥ recovery and delivered ≥ probe share,
///        for recoverAfter · factor^level
/// ```
///
/// Hysteresis comes from the gap between the thresholds and from the dwell times, which every
/// condition must hold for without interruption. A disable within `backoffWindow` of the last enable
/// raises the back-off level, multiplying the next recovery time by `backoffFactor`; a later disable
/// resets it. When the caller can bring video back on less than what failed (a simulcast stream's
/// lowest layer), video comes back after the base recovery time at every level, so it returns in
/// every clean spell of a link that comes and goes, and the back-off lengthens what the caller
/// withholds instead (`fullQualityHold`): a lower layer flickers, full quality does not. The policy
/// only decides; `evaluate` returns the action for the caller to perform, and every method takes
/// `now` (monotonic nanoseconds).
public struct AudioFallbackPolicy: Equatable, Sendable {
    public let configuration: AudioFallbackConfiguration
    public private(set) var state: AudioFallbackState = .videoOn
    /// Quick re-disables in a row; raises the recovery time exponentially.
    public private(set) var backoffLevel = 0
    private var belowWarningSince: UInt64?
    private var belowDisableSince: UInt64?
    private var aboveRecoverySince: UInt64?
    private var carryingSince: UInt64?
    private var lastEnabledAt: UInt64?

    private let warnAfter: UInt64
    private let disableAfter: UInt64
    private let liftAfter: UInt64
    private let backoffWindow: UInt64

    public init(configuration: AudioFallbackConfiguration) {
        self.configuration = configuration
        warnAfter = configuration.warnAfter.wholeNanoseconds
        disableAfter = configuration.disableAfter.wholeNanoseconds
        liftAfter = configuration.liftAfter.wholeNanoseconds
        backoffWindow = configuration.backoffWindow.wholeNanoseconds
    }

    /// How long the path must carry video before video comes back, at the current back-off level.
    public var recoverAfter: Duration {
        let base = configuration.recoverAfter
        let scaled = base * Double.pow(configuration.backoffFactor, backoffLevel)
        return min(scaled, configuration.maximumRecoverAfter)
    }

    /// How long a caller that brought video back on a lower layer withholds full quality: `base` the
    /// first time, multiplied by `backoffFactor` for each quick re-disable, never beyond
    /// `maximumRecoverAfter` (nor below `base`).
    public func fullQualityHold(base: Duration) -> Duration {
        min(base * Double.pow(configuration.backoffFactor, backoffLevel), max(base, configuration.maximumRecoverAfter))
    }

    /// Whether video is off for quality (the caller keeps probing while it is).
    public var isVideoOff: Bool { state == .videoOff }

    /// Takes the link's latest smoothed quality and says what to do, if anything.
    /// - Parameters:
    ///   - returnsLower: Video would come back on less than what failed (the lowest layer of a
    ///     simulcast stream), so the recovery time is not backed off.
    ///   - probedAtFullRate: While video is off, the caller's probe sent the whole `probeBitrate`
    ///     through the interval just measured; only such intervals count toward recovery, since a
    ///     path that carries part of the probe has not shown it would carry video.
    public mutating func evaluate(_ quality: LinkQuality, now: UInt64, returnsLower: Bool = false, probedAtFullRate: Bool = true) -> AudioFallbackAction? {
        switch state {
        case .suspended:
            return nil
        case .videoOn, .warned:
            return evaluateWhileVideoFlows(quality.score, now: now)
        case .videoOff:
            return evaluateWhileProbing(
                quality, now: now, recoverAfter: returnsLower ? configuration.recoverAfter : recoverAfter, probedAtFullRate: probedAtFullRate)
        }
    }

    /// Somebody's choice turned the video off (or the stream lost it): the policy stops watching and
    /// forgets its timers, and says nothing, because quality events never override a choice. The
    /// caller restarts nothing either; the video stays off for the choice. Back-off history is kept.
    public mutating func suspend() {
        state = .suspended
        clearTimers()
    }

    /// The choice is undone and video flows again: the policy watches afresh.
    public mutating func resume() {
        guard state == .suspended else { return }
        state = .videoOn
        clearTimers()
    }

    /// The caller answered a warning by lowering what it sends (a simulcast stream stepped down to
    /// its lowest layer) instead of announcing it: the policy watches the lighter stream afresh, so a
    /// warning comes only if even that degrades.
    public mutating func withdrawWarning() {
        guard state == .warned else { return }
        state = .videoOn
        clearTimers()
    }

    private mutating func evaluateWhileVideoFlows(_ score: Double, now: UInt64) -> AudioFallbackAction? {
        belowWarningSince = score < configuration.warningScore ? (belowWarningSince ?? now) : nil
        belowDisableSince = score < configuration.disableScore ? (belowDisableSince ?? now) : nil
        aboveRecoverySince = score >= configuration.recoveryScore ? (aboveRecoverySince ?? now) : nil
        if state == .videoOn {
            // A link bad enough to disable warns at once, so the warning always comes first.
            if let since = belowWarningSince, now - since >= warnAfter || belowDisableSince != nil {
                state = .warned
                return .warn
            }
            return nil
        }
        if let since = belowDisableSince, now - since >= disableAfter {
            disable(now: now)
            return .disableVideo
        }
        if let since = aboveRecoverySince, now - since >= liftAfter {
            state = .videoOn
            clearTimers()
            return .liftWarning
        }
        return nil
    }

    private mutating func evaluateWhileProbing(_ quality: LinkQuality, now: UInt64, recoverAfter: Duration, probedAtFullRate: Bool)
        -> AudioFallbackAction?
    {
        let neededDelivery = Double(configuration.probeBitrate) * configuration.probeDeliveredShare
        let carries = probedAtFullRate && quality.score >= configuration.recoveryScore && (quality.deliveredBitrate ?? 0) >= neededDelivery
        guard carries else {
            carryingSince = nil
            return nil
        }
        let since = carryingSince ?? now
        carryingSince = since
        guard now - since >= recoverAfter.wholeNanoseconds else { return nil }
        state = .videoOn
        lastEnabledAt = now
        clearTimers()
        return .enableVideo
    }

    private mutating func disable(now: UInt64) {
        if let lastEnabledAt, now - lastEnabledAt < backoffWindow {
            // Capped well below where the recovery time would overflow; maximumRecoverAfter caps it anyway.
            backoffLevel = min(backoffLevel + 1, 16)
        } else {
            backoffLevel = 0
        }
        state = .videoOff
        clearTimers()
    }

    private mutating func clearTimers() {
        belowWarningSince = nil
        belowDisableSince = nil
        aboveRecoverySince = nil
        carryingSince = nil
    }
}

extension Double {
    fileprivate static func pow(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<max(0, exponent) { result *= base }
        return result
    }
}
