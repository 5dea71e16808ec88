import Quality
import Testing

/// The policy's defaults against input timelines, as a table: each scenario gives the path's loss
/// over time and the events it must produce, each within a window of seconds.
struct AudioFallbackScenarioTests {
    struct Expected: Sendable {
        var action: AudioFallbackAction
        var within: ClosedRange<Double>
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var duration: Double
        var loss: @Sendable (Double) -> Double
        var expected: [Expected]
        var testDescription: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "clean link", duration: 120, loss: { _ in 0 }, expected: []),
        Scenario(name: "2 % random loss", duration: 300, loss: { _ in 0.02 }, expected: []),
        Scenario(name: "3 % random loss", duration: 300, loss: { _ in 0.03 }, expected: []),
        Scenario(
            name: "sustained 30 % loss from 10 s", duration: 60, loss: { $0 >= 10 ? 0.3 : 0 },
            expected: [Expected(action: .warn, within: 10...12), Expected(action: .disableVideo, within: 10...14)]),
        Scenario(
            name: "30 % loss from 10 s to 40 s, then clean", duration: 90, loss: { (10..<40).contains($0) ? 0.3 : 0 },
            expected: [
                Expected(action: .warn, within: 10...12), Expected(action: .disableVideo, within: 10...14),
                Expected(action: .enableVideo, within: 40...46),
            ]),
        Scenario(
            name: "100 % loss from 5 s to 20 s", duration: 40, loss: { (5..<20).contains($0) ? 1 : 0 },
            expected: [
                Expected(action: .warn, within: 5...7), Expected(action: .disableVideo, within: 5...9),
                Expected(action: .enableVideo, within: 20...26),
            ]),
        Scenario(
            name: "9 % loss warns, and the warning lifts when it passes", duration: 60, loss: { (10..<30).contains($0) ? 0.09 : 0 },
            expected: [Expected(action: .warn, within: 10...20), Expected(action: .liftWarning, within: 30...35)]),
    ]

    @Test(arguments: scenarios)
    func producesExactlyTheExpectedEvents(_ scenario: Scenario) {
        var simulation = LinkSimulation()
        let actions = simulation.run(to: scenario.duration, loss: scenario.loss)
        #expect(actions.map(\.action) == scenario.expected.map(\.action), "\(actions)")
        for (actual, expected) in zip(actions, scenario.expected) {
            #expect(expected.within.contains(actual.time), "\(actual.action) at \(actual.time) s, expected within \(expected.within)")
        }
    }

    @Test func aBurstShorterThanTheDwellTimeGivesNothingOrAWarningThatIsLifted() {
        for burst in [0.5, 1.0] {
            for seed in UInt64(1)...20 {
                var simulation = LinkSimulation(seed: seed)
                let actions = simulation.run(to: 30, loss: { (10..<10 + burst).contains($0) ? 0.3 : 0 }).map(\.action)
                #expect(actions == [] || actions == [.warn, .liftWarning], "burst \(burst) s, seed \(seed): \(actions)")
            }
        }
    }

    @Test func anOscillatingLinkIsHeldOffByTheBackOff() {
        for seed in UInt64(1)...10 {
            var simulation = LinkSimulation(seed: seed)
            let actions = simulation.run(to: 300, loss: { Int($0 / 30) % 2 == 1 ? 0.3 : 0 }).map(\.action)
            let disables = actions.filter { $0 == .disableVideo }.count
            let enables = actions.filter { $0 == .enableVideo }.count
            #expect(enables <= 2, "seed \(seed): \(actions)")
            #expect(disables <= enables + 1, "seed \(seed): \(actions)")
            #expect(disables >= 1, "seed \(seed): the bad half must still turn video off: \(actions)")
        }
    }

    @Test func recoveryWaitsUntilTheProbedPathCarriesVideo() {
        var simulation = LinkSimulation()
        let bad = simulation.run(to: 20, loss: { $0 >= 5 ? 0.3 : 0 })
        #expect(bad.map(\.action) == [.warn, .disableVideo])
        // Loss stops but the path delivers no more than audio: not enough to carry the lowest video.
        var starved = simulation
        var quietTime = 20.0
        for _ in 0..<40 {
            quietTime += 0.5
            let audioOnly = QualitySample(intervalSeconds: 0.5, packetsExpected: 25, packetsLost: 0, bytes: 2_500)
            let action = starved.monitor.record(audioOnly, now: UInt64(quietTime * 1e9))
            #expect(action == nil)
        }
        let recovered = simulation.run(from: 20, to: 40, loss: { _ in 0 })
        #expect(recovered.map(\.action) == [.enableVideo])
    }

    @Test func noQualityEventsWhileAPersonsChoiceHasTheVideoOff() {
        var simulation = LinkSimulation()
        let actions = simulation.run(to: 60, loss: { $0 >= 10 ? 0.3 : 0 }, eligible: { $0 < 5 || $0 >= 40 })
        // Heavy loss from 10 s, but the subscriber turned video off from 5 s to 40 s: nothing until
        // the choice is undone, then the usual warning and disable.
        #expect(actions.map(\.action) == [.warn, .disableVideo])
        #expect(actions.allSatisfy { $0.time >= 40 }, "\(actions)")
    }

    @Test func aChoiceWhileVideoIsOffRestoresItSilently() {
        var monitor = LinkMonitor(configuration: AudioFallbackConfiguration())
        _ = monitor.setEnabled(true)
        var now: UInt64 = 0
        var actions: [AudioFallbackAction] = []
        for _ in 0..<20 {
            now += 500_000_000
            if let action = monitor.record(QualitySample(intervalSeconds: 0.5, packetsExpected: 75, packetsLost: 30, bytes: 40_000), now: now) {
                actions.append(action)
            }
        }
        #expect(actions == [.warn, .disableVideo])
        let restoreOnChoice = monitor.setEligible(false)
        #expect(restoreOnChoice, "the caller must restore the video")
        #expect(monitor.policy.state == .suspended)
        let restoreOnUndo = monitor.setEligible(true)
        #expect(!restoreOnUndo)
        #expect(monitor.policy.state == .videoOn)
        let restoreOnOff = monitor.setEnabled(false)
        #expect(!restoreOnOff)
        #expect(monitor.fallbackState == nil)
    }
}
