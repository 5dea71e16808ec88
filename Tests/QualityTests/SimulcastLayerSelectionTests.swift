import Quality
import Testing

struct SimulcastLayerSelectionTests {
    static let second: UInt64 = 1_000_000_000
    /// Three layers as a camera sends them: 180p, 360p, 720p.
    static let bitrates: [Double] = [150_000, 500_000, 1_500_000]

    // MARK: - LayerBudget

    @Test func withoutAnEstimateEveryStreamGetsItsPreferenceCap() {
        let demands = [
            LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 0),
            LayerBudget.Demand(layerBitrates: Array(Self.bitrates[0...1]), currentLayer: 0),
        ]
        #expect(LayerBudget.allocate(available: nil, demands: demands) == [2, 1])
    }

    @Test func theBudgetKeepsWhatFitsAndMovesUpOnlyWithHeadroom() {
        let flowing = [LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 1)]
        // 520 kbps keeps 360p (500) but is short of 500 · 1.15 for a move up from 180p.
        #expect(LayerBudget.allocate(available: 520_000, demands: flowing) == [1])
        let low = [LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 0)]
        #expect(LayerBudget.allocate(available: 520_000, demands: low) == [0])
        #expect(LayerBudget.allocate(available: 600_000, demands: low) == [1])
        #expect(LayerBudget.allocate(available: 1_800_000, demands: low) == [2])
    }

    @Test func aShrinkingBudgetStepsTheHighestStreamDownFirstAndNeverBelowTheLowestLayer() {
        let demands = [
            LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 2),
            LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 1),
        ]
        #expect(LayerBudget.allocate(available: 1_100_000, demands: demands) == [1, 1])
        // Both on 360p and still too much: one steps down (the first, on a tie).
        #expect(LayerBudget.allocate(available: 700_000, demands: demands) == [0, 1])
        #expect(LayerBudget.allocate(available: 100_000, demands: demands) == [0, 0])
    }

    @Test func upgradesGoToTheStreamOnTheLowestLayerFirst() {
        let demands = [
            LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 1),
            LayerBudget.Demand(layerBitrates: Self.bitrates, currentLayer: 0),
        ]
        // 650 + 350 for the second stream's step fits 1.2 Mbps with headroom; a 1 Mbps step for the first does not.
        #expect(LayerBudget.allocate(available: 1_200_000, demands: demands) == [1, 1])
    }

    // MARK: - SimulcastLayerSelector

    @Test func aDownSwitchIsPromptAndAnUpSwitchWaitsForTheHoldAndTheBackoff() {
        var selector = SimulcastLayerSelector(initialLayer: 2, upHold: .milliseconds(1500), downBackoff: .seconds(3))
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, now: 0) == nil)
        #expect(selector.update(preferred: 2, affordable: 0, highestActive: 2, now: Self.second) == 0)
        #expect(selector.reason == .bandwidth)
        // Headroom returns at 2 s: the hold (1.5 s) and the back-off after the down-switch (3 s) both apply.
        var now = 2 * Self.second
        var movedAt: UInt64?
        while now < 10 * Self.second, movedAt == nil {
            if selector.update(preferred: 2, affordable: 2, highestActive: 2, now: now) != nil { movedAt = now }
            now += Self.second / 10
        }
        #expect(movedAt == 4 * Self.second)
        #expect(selector.target == 2)
        #expect(selector.reason == .preference)
    }

    @Test func anAffordableLayerThatComesAndGoesNeverFlaps() {
        var selector = SimulcastLayerSelector(initialLayer: 0)
        var now: UInt64 = 0
        var changes = 0
        for step in 0..<100 {
            let affordable = step % 10 < 2 ? 0 : 1
            if selector.update(preferred: 2, affordable: affordable, highestActive: 2, now: now) != nil { changes += 1 }
            now += Self.second / 10
        }
        #expect(changes == 0)
        #expect(selector.target == 0)
    }

    @Test func aRaisedPreferenceMovesUpAtOnceWhenTheBudgetAlreadyAllowsIt() {
        var selector = SimulcastLayerSelector(initialLayer: 0)
        #expect(selector.update(preferred: 0, affordable: 2, highestActive: 2, now: 0) == nil)
        #expect(selector.reason == .preference)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, now: Self.second / 10) == 2)
    }

    @Test func theFlowingLayerChangesOnlyOnATargetKeyFrame() {
        var selector = SimulcastLayerSelector(initialLayer: 0)
        var moved = selector.keyFrameArrived(layer: 1)
        #expect(!moved)
        moved = selector.keyFrameArrived(layer: 0)
        #expect(moved)
        moved = selector.keyFrameArrived(layer: 0)
        #expect(!moved)
        #expect(selector.current == 0)
        _ = selector.update(preferred: 1, affordable: 1, highestActive: 2, now: 0)
        #expect(selector.target == 1)
        moved = selector.keyFrameArrived(layer: 2)
        #expect(!moved)
        #expect(selector.current == 0)
        moved = selector.keyFrameArrived(layer: 1)
        #expect(moved)
        #expect(selector.current == 1)
        selector.stopForwarding()
        #expect(selector.current == nil)
    }

    @Test func aPinnedSelectorStartsOnlyOnItsLayerAndNeverMoves() {
        var selector = SimulcastLayerSelector(pinnedLayer: 1)
        var moved = selector.keyFrameArrived(layer: 0)
        #expect(!moved, "a lower layer's key frame does not start a pinned selector")
        moved = selector.keyFrameArrived(layer: 1)
        #expect(moved)
        #expect(selector.update(preferred: 0, affordable: 0, highestActive: 2, hold: .lowest, now: 0) == nil)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, now: 10 * Self.second) == nil)
        moved = selector.keyFrameArrived(layer: 2)
        #expect(!moved)
        #expect(selector.target == 1 && selector.current == 1 && selector.reason == .preference)
    }

    @Test func holdingTheLowestLayerForFallbackNamesTheReason() {
        var selector = SimulcastLayerSelector(initialLayer: 2)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, hold: .lowest, now: 0) == 0)
        #expect(selector.reason == .fallback)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 1, now: Self.second) == nil)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 1, now: 5 * Self.second) == 1)
        #expect(selector.reason == .unavailable)
    }

    /// After video came back from a quick re-disable the stream climbs as its budget allows, but not
    /// to the top of what it could have; a subscriber whose preference or budget keeps it lower is not
    /// held any further.
    @Test func withholdingTheTopLayerLetsTheStreamClimbToTheOneBelow() {
        var selector = SimulcastLayerSelector(initialLayer: 2)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, hold: .lowest, now: 0) == 0)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, hold: .belowTop, now: 10 * Self.second) == nil)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, hold: .belowTop, now: 12 * Self.second) == 1)
        #expect(selector.reason == .fallback)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, hold: .belowTop, now: 40 * Self.second) == nil)
        #expect(selector.target == 1)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, now: 41 * Self.second) == nil, "the up-switch hold applies")
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, now: 43 * Self.second) == 2)
        #expect(selector.reason == .preference)

        var budgeted = SimulcastLayerSelector(initialLayer: 0)
        #expect(budgeted.update(preferred: 2, affordable: 0, highestActive: 2, hold: .belowTop, now: 0) == nil)
        #expect(budgeted.reason == .bandwidth, "the budget, not the hold, is what keeps it on the lowest layer")
        var modest = SimulcastLayerSelector(initialLayer: 1)
        #expect(modest.update(preferred: 1, affordable: 2, highestActive: 2, hold: .belowTop, now: 0) == 0)
        #expect(modest.reason == .fallback, "full quality for a subscriber who prefers the middle layer is the middle layer")
    }

    /// The publisher stops the layer a subscriber receives: the target moves down at once, and the
    /// reason is that the layer is unavailable, not the subscriber's preference; when the layer comes
    /// back the target returns after the up-switch hold, unavailable until then.
    @Test func aStoppedLayerMovesTheTargetDownAtOnceAsUnavailable() {
        var selector = SimulcastLayerSelector(initialLayer: 2)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, preferredIfNoneStopped: 2, now: 0) == nil)
        #expect(selector.reason == .preference)
        #expect(selector.update(preferred: 1, affordable: 2, highestActive: 1, preferredIfNoneStopped: 2, now: Self.second / 10) == 1)
        #expect(selector.reason == .unavailable)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, preferredIfNoneStopped: 2, now: Self.second / 5) == nil)
        #expect(selector.reason == .unavailable)
        #expect(selector.update(preferred: 2, affordable: 2, highestActive: 2, preferredIfNoneStopped: 2, now: 2 * Self.second) == 2)
        #expect(selector.reason == .preference)
    }

    /// A layer the preference rules out stopping changes nothing: the reason stays the preference.
    @Test func aStoppedLayerAboveThePreferenceLeavesThePreferenceAsTheReason() {
        var selector = SimulcastLayerSelector(initialLayer: 0)
        #expect(selector.update(preferred: 0, affordable: 2, highestActive: 1, preferredIfNoneStopped: 0, now: 0) == nil)
        #expect(selector.reason == .preference)
    }

    @Test func temporalLayersFollowThePreferredFrameRate() {
        #expect(SimulcastLayerSelector.temporalLayer(preferredFrameRate: nil, frameRate: 30, temporalLayerCount: 3) == 2)
        #expect(SimulcastLayerSelector.temporalLayer(preferredFrameRate: 30, frameRate: 30, temporalLayerCount: 3) == 2)
        #expect(SimulcastLayerSelector.temporalLayer(preferredFrameRate: 15, frameRate: 30, temporalLayerCount: 3) == 1)
        #expect(SimulcastLayerSelector.temporalLayer(preferredFrameRate: 7.5, frameRate: 30, temporalLayerCount: 3) == 0)
        #expect(SimulcastLayerSelector.temporalLayer(preferredFrameRate: 1, frameRate: 30, temporalLayerCount: 3) == 0)
        #expect(SimulcastLayerSelector.temporalLayer(preferredFrameRate: 15, frameRate: 30, temporalLayerCount: 1) == 0)
    }
}
