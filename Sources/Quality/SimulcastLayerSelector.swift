/// Which spatial layer of a simulcast stream one subscriber receives, and when it moves.
///
/// ```
///           allowed < target (preference lowered, budget shrank, layer stopped): at once
///   target ◀──────────────────────────────────────────────────────────────────────── target
///     │      allowed > target, held for upHold (and downBackoff after a down-switch)      ▲
///     └─────────────────────────────────────────────────────────────────────────────────┘
///   current follows target only on a key frame of the target layer: until it arrives the current
///   layer keeps flowing, so a switch never freezes the picture.
/// ```
///
/// The selector only decides; the caller asks the publisher for key frames and forwards the layer
/// `current` names. Every method takes `now` (monotonic nanoseconds). A selector pinned to one layer
/// (a relay leg to another node carries each layer on a consumer of its own) never moves.
public struct SimulcastLayerSelector: Equatable, Sendable {
    /// Why the target is the layer it is.
    public enum Reason: String, Equatable, Sendable {
        /// The highest layer the preference allows (or the highest there is): nothing holds it back.
        case preference
        /// The downlink estimate cannot carry a higher layer.
        case bandwidth
        /// The audio-fallback ladder holds the stream below what it could have (`FallbackLayerHold`).
        case fallback
        /// The publisher stopped sending the higher layers.
        case unavailable
    }

    /// How long a higher layer must stay affordable before the target moves up.
    public let upHold: UInt64
    /// After a down-switch for bandwidth, how long before the target may move up again.
    public let downBackoff: UInt64

    /// The layer to forward once its key frame arrives.
    public private(set) var target: Int
    /// The layer being forwarded, nil until the first key frame.
    public private(set) var current: Int?
    public private(set) var reason: Reason = .preference
    /// Forwards `target` and no other layer, whatever the budget or the preference says.
    public let isPinned: Bool
    private var higherAllowedSince: UInt64?
    private var lastDownSwitchAt: UInt64?

    public init(initialLayer: Int, upHold: Duration = .milliseconds(1500), downBackoff: Duration = .seconds(3)) {
        target = initialLayer
        self.upHold = upHold.wholeNanoseconds
        self.downBackoff = downBackoff.wholeNanoseconds
        isPinned = false
    }

    /// A selector that forwards `layer` only: it starts on that layer's key frame and stays.
    public init(pinnedLayer layer: Int) {
        target = layer
        upHold = 0
        downBackoff = 0
        isPinned = true
    }

    /// Takes the layers allowed now and returns the new target when it changed (the caller asks for a
    /// key frame on it).
    /// - Parameters:
    ///   - preferred: The highest layer the subscriber's preference allows among the active ones.
    ///   - affordable: The highest layer the downlink budget allows (`LayerBudget`).
    ///   - highestActive: The highest layer the publisher sends now.
    ///   - hold: What the audio-fallback ladder holds the stream to.
    ///   - preferredIfNoneStopped: The layer the preference would allow had the publisher not
    ///     stopped any layer it sent (`preferred` when none stopped): the reason is `unavailable`
    ///     when a stopped layer is what holds the target below the preference.
    public mutating func update(
        preferred: Int, affordable: Int, highestActive: Int, hold: FallbackLayerHold = .none, preferredIfNoneStopped: Int? = nil,
        now: UInt64
    ) -> Int? {
        guard !isPinned else { return nil }
        let unheld = max(0, min(preferred, affordable, highestActive))
        let allowed = min(unheld, hold.ceiling(fullQuality: max(0, min(preferred, highestActive))))
        let stoppedAbove = (preferredIfNoneStopped ?? preferred) > preferred
        let newReason: Reason =
            allowed < unheld ? .fallback
            : allowed == preferred ? (stoppedAbove ? .unavailable : .preference)
            : allowed == highestActive ? .unavailable : .bandwidth
        if allowed < target {
            if newReason == .bandwidth || newReason == .fallback { lastDownSwitchAt = now }
            higherAllowedSince = nil
            reason = newReason
            target = allowed
            return target
        }
        guard allowed > target else {
            higherAllowedSince = nil
            reason = newReason
            return nil
        }
        let since = higherAllowedSince ?? now
        higherAllowedSince = since
        let backoffOver = lastDownSwitchAt.map { now - $0 >= downBackoff } ?? true
        guard now - since >= upHold || (reason == .preference && backoffOver), backoffOver else {
            // A layer back from a stop is held like any other, and is still why the target is low.
            if reason != .unavailable { reason = .bandwidth }
            return nil
        }
        higherAllowedSince = nil
        target = allowed
        reason = newReason
        return target
    }

    /// A key frame of `layer` arrived: returns true when forwarding moves to it now. While nothing
    /// flows, a key frame of any layer up to the target starts it (a picture now beats a better one
    /// later); once something flows, only the target's key frame moves it.
    public mutating func keyFrameArrived(layer: Int) -> Bool {
        guard let flowing = current else {
            guard isPinned ? layer == target : layer <= target else { return false }
            current = layer
            return true
        }
        guard layer == target, flowing != layer else { return false }
        current = layer
        return true
    }

    /// Forwarding stopped (pause, or the stream went away): the next key frame of the target starts it.
    public mutating func stopForwarding() {
        current = nil
    }

    /// The highest temporal layer whose frame rate is not above `preferredFrameRate`, for an encoding
    /// of `frameRate` frames per second in `temporalLayerCount` layers (each layer doubling the rate of
    /// the ones below, as VP8 encoders arrange them). Layer 0 when even it is above the preference; the
    /// top layer when there is no preference.
    public static func temporalLayer(preferredFrameRate: Double?, frameRate: Double, temporalLayerCount: Int) -> Int {
        let top = max(temporalLayerCount, 1) - 1
        guard let preferredFrameRate, frameRate > 0 else { return top }
        var layer = top
        var rate = frameRate
        // A little slack so 30 fps cameras delivering 29.97 still count as 30.
        while layer > 0, rate > preferredFrameRate * 1.05 {
            layer -= 1
            rate /= 2
        }
        return layer
    }
}
