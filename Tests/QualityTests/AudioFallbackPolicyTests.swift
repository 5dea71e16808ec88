import Quality
import Testing

struct AudioFallbackPolicyTests {
    static let second: UInt64 = 1_000_000_000

    static func quality(loss: Double, delivered: Double? = 200_000) -> LinkQuality {
        LinkQuality(
            loss: loss, jitterSeconds: 0, roundTripSeconds: 0.05, deliveredBitrate: delivered, receiverEstimatedBitrate: nil,
            neededBitrate: 150_000)
    }

    /// Disables, then probes clean until enabled; returns the time video came back.
    static func cycle(_ policy: inout AudioFallbackPolicy, from start: UInt64) -> UInt64 {
        var now = start
        while !policy.isVideoOff {
            _ = policy.evaluate(quality(loss: 0.3), now: now)
            now += second / 2
        }
        while policy.isVideoOff {
            _ = policy.evaluate(quality(loss: 0), now: now)
            now += second / 2
        }
        return now
    }

    @Test func warningComesBeforeDisableEvenWhenTheLinkCollapsesAtOnce() {
        var policy = AudioFallbackPolicy(configuration: AudioFallbackConfiguration())
        let first = policy.evaluate(Self.quality(loss: 1), now: Self.second)
        let second = policy.evaluate(Self.quality(loss: 1), now: Self.second + Self.second / 2)
        let third = policy.evaluate(Self.quality(loss: 1), now: 2 * Self.second + Self.second / 2)
        #expect([first, second, third] == [.warn, nil, .disableVideo])
    }

    @Test func aSingleBadEvaluationBetweenGoodOnesResetsTheDwell() {
        var policy = AudioFallbackPolicy(configuration: AudioFallbackConfiguration(warnAfter: .seconds(1)))
        var now: UInt64 = 0
        for loss in [0.1, 0.0, 0.1, 0.0, 0.1, 0.0] {
            now += Self.second * 3 / 4
            let action = policy.evaluate(Self.quality(loss: loss), now: now)
            #expect(action == nil)
        }
    }

    @Test func quickReDisablesMultiplyTheRecoveryTime() {
        var policy = AudioFallbackPolicy(configuration: AudioFallbackConfiguration())
        #expect(policy.recoverAfter == .seconds(2))
        var now = Self.cycle(&policy, from: 0)
        #expect(policy.backoffLevel == 0)
        now = Self.cycle(&policy, from: now)
        #expect(policy.backoffLevel == 1)
        #expect(policy.recoverAfter == .seconds(8))
        now = Self.cycle(&policy, from: now)
        #expect(policy.recoverAfter == .seconds(32))
        now = Self.cycle(&policy, from: now)
        #expect(policy.recoverAfter == .seconds(64), "capped at maximumRecoverAfter")
        // Video that stays on longer than the back-off window starts over.
        _ = Self.cycle(&policy, from: now + 61 * Self.second)
        #expect(policy.backoffLevel == 0)
    }

    /// A link that is bad for 30 s and clean for 30 s, over and over: with a single encoding the
    /// back-off outgrows the clean spells (video stays off from the third on), while a caller that
    /// brings video back on a lower layer gets it back early in every clean spell and withholds full
    /// quality longer after each quick re-disable instead.
    @Test func videoThatReturnsOnALowerLayerComesBackInEveryCleanSpellWhileFullQualityBacksOff() {
        func run(returnsLower: Bool) -> (enabledAfter: [Double?], holds: [Duration]) {
            var policy = AudioFallbackPolicy(configuration: AudioFallbackConfiguration())
            var enabledAfter: [Double?] = []
            var holds: [Duration] = []
            for spell in 0..<5 {
                let badFrom = UInt64(spell) * 60 * Self.second
                let cleanFrom = badFrom + 30 * Self.second
                var enabledAt: UInt64?
                var now = badFrom
                while now < cleanFrom + 30 * Self.second {
                    let quality = Self.quality(loss: now < cleanFrom ? 0.3 : 0, delivered: policy.isVideoOff ? 160_000 : 600_000)
                    if policy.evaluate(quality, now: now, returnsLower: returnsLower) == .enableVideo, enabledAt == nil {
                        enabledAt = now
                        holds.append(policy.fullQualityHold(base: .seconds(10)))
                    }
                    now += Self.second / 2
                }
                enabledAfter.append(enabledAt.map { Double($0 - cleanFrom) / 1e9 })
            }
            return (enabledAfter, holds)
        }
        let single = run(returnsLower: false)
        #expect(single.enabledAfter[0] == 2 && single.enabledAfter[1] == 8)
        #expect(single.enabledAfter[2...].allSatisfy { $0 == nil }, "32 s of recovery outlasts a 30 s clean spell")
        let layered = run(returnsLower: true)
        #expect(layered.enabledAfter.allSatisfy { $0 == 2 })
        #expect(layered.holds == [.seconds(10), .seconds(40), .seconds(64), .seconds(64), .seconds(64)])
    }

    /// A policy that has just turned video off under 50 % loss, evaluated every 500 ms, and when.
    static func videoJustOff() -> (policy: AudioFallbackPolicy, now: UInt64) {
        var policy = AudioFallbackPolicy(configuration: AudioFallbackConfiguration())
        var now: UInt64 = 0
        while !policy.isVideoOff {
            now += second / 2
            _ = policy.evaluate(quality(loss: 0.5), now: now)
        }
        return (policy, now)
    }

    /// Evaluates `quality` every 500 ms after `now` until video comes back; returns when it did.
    static func enabledAt(_ policy: inout AudioFallbackPolicy, after now: UInt64, quality: LinkQuality) -> UInt64 {
        var now = now
        repeat { now += second / 2 } while policy.evaluate(quality, now: now) != .enableVideo
        return now
    }

    @Test func probingNeedsTheDeliveredRateAsWellAsTheScore() {
        var (policy, now) = Self.videoJustOff()
        for _ in 0..<20 {
            now += Self.second / 2
            let action = policy.evaluate(Self.quality(loss: 0, delivered: 100_000), now: now)
            #expect(action == nil)
        }
        #expect(Self.enabledAt(&policy, after: now, quality: Self.quality(loss: 0, delivered: 160_000)) - now >= 2 * Self.second)
    }

    /// A path that carries part of the probe cleanly has not shown it would carry video: only
    /// intervals probed at the full rate count, and a partial one restarts the recovery time.
    @Test func onlyIntervalsProbedAtTheFullRateCountTowardRecovery() {
        var (policy, now) = Self.videoJustOff()
        for _ in 0..<20 {
            now += Self.second / 2
            #expect(policy.evaluate(Self.quality(loss: 0, delivered: 200_000), now: now, probedAtFullRate: false) == nil)
        }
        for _ in 0..<3 {
            now += Self.second / 2
            #expect(policy.evaluate(Self.quality(loss: 0, delivered: 200_000), now: now) == nil)
        }
        now += Self.second / 2
        #expect(policy.evaluate(Self.quality(loss: 0, delivered: 200_000), now: now, probedAtFullRate: false) == nil)
        // The first full-rate interval after the partial one starts the 2 s afresh.
        let fullFrom = now + Self.second / 2
        #expect(Self.enabledAt(&policy, after: now, quality: Self.quality(loss: 0, delivered: 200_000)) - fullFrom == 2 * Self.second)
    }

    @Test func suspendedPolicySaysNothing() {
        var policy = AudioFallbackPolicy(configuration: AudioFallbackConfiguration())
        policy.suspend()
        for step in 1...20 {
            let action = policy.evaluate(Self.quality(loss: 1), now: UInt64(step) * Self.second)
            #expect(action == nil)
        }
        policy.resume()
        let afterResume = policy.evaluate(Self.quality(loss: 1), now: 21 * Self.second)
        #expect(afterResume == .warn)
    }

    @Test func configurationProblemsAreNamed() {
        #expect(AudioFallbackConfiguration().problem == nil)
        #expect(AudioFallbackConfiguration(warningScore: 40, disableScore: 45).problem?.contains("disableScore") == true)
        #expect(AudioFallbackConfiguration(recoveryScore: 60).problem?.contains("recoveryScore") == true)
        #expect(AudioFallbackConfiguration(backoffFactor: 0.5).problem?.contains("backoffFactor") == true)
        #expect(AudioFallbackConfiguration(smoothing: 0).problem?.contains("smoothing") == true)
        #expect(AudioFallbackConfiguration(probeBitrate: 0).problem?.contains("probeBitrate") == true)
        #expect(AudioFallbackConfiguration(recoverAfter: .seconds(10), maximumRecoverAfter: .seconds(5)).problem?.contains("maxRecoverAfterMs") == true)
    }
}
