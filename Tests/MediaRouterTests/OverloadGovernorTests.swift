import Testing

@testable import MediaRouter

/// The governor's decisions from the waits it is fed, on a clock the test moves.
struct OverloadGovernorTests {
    static let millisecond: UInt64 = 1_000_000
    static let configuration = OverloadShedding(
        videoQueueLimit: .milliseconds(150), audioQueueLimit: .milliseconds(200), shedAbove: .milliseconds(20), stepShare: 0.1,
        restoreAfter: .seconds(2), restoreBelowBusyShare: 0.85)

    /// Feeds `wait` and evaluates every 100 ms from `start` to `end`, the worker `busyShare` busy, and
    /// returns what the governor asked for, keeping `shed` as the worker would.
    static func run(
        _ governor: inout OverloadGovernor, from start: UInt64, to end: UInt64, wait: UInt64, late: Bool = false, busyShare: Double = 1, hasRoom: Bool = true,
        subscribers: Int, shed: inout Int
    ) -> [(at: UInt64, action: OverloadGovernor.Action)] {
        var actions: [(UInt64, OverloadGovernor.Action)] = []
        var now = start
        while now <= end {
            governor.observe(wait: wait, late: late)
            if let action = governor.evaluate(now: now, busyShare: busyShare, hasRoom: hasRoom, subscribers: subscribers, shed: shed) {
                actions.append((now, action))
                switch action {
                case .shed(let count): shed += count
                case .restore(let count): shed -= count
                }
            }
            now += 100 * millisecond
        }
        return actions
    }

    @Test func waitsUnderTheThresholdShedNothing() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        let actions = Self.run(&governor, from: 0, to: 10_000 * Self.millisecond, wait: 19 * Self.millisecond, hasRoom: false, subscribers: 1000, shed: &shed)
        #expect(actions.isEmpty)
        #expect(!governor.isShedding(shed: shed))
    }

    @Test func longWaitsShedAStepAtATimeOnceEachStepHasSettledAndNeverMoreThanThereAre() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        let actions = Self.run(&governor, from: 0, to: 3_000 * Self.millisecond, wait: 300 * Self.millisecond, subscribers: 25, shed: &shed)
        #expect(actions.first?.action == .shed(3), "a tenth of 25, rounded up")
        let times = actions.map(\.at)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= OverloadGovernor.settleTime }, "each step settles first")
        #expect(shed == 25, "all of them, at the end, and no more")
        #expect(actions.last?.action == .shed(1), "the last step is what was left")
        #expect(governor.isShedding(shed: shed))
    }

    @Test func videoComesBackHalfAStepAtATimeAfterCalmAndNotWhileTheWorkerHasNoRoom() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        _ = Self.run(&governor, from: 0, to: 500 * Self.millisecond, wait: 100 * Self.millisecond, subscribers: 100, shed: &shed)
        #expect(shed == 20)
        let busy = Self.run(
            &governor, from: 600 * Self.millisecond, to: 10_000 * Self.millisecond, wait: 0, hasRoom: false, subscribers: 100, shed: &shed)
        #expect(busy.isEmpty, "a worker with no room under restoreBelowBusyShare takes nothing back")
        let waiting = Self.run(
            &governor, from: 10_100 * Self.millisecond, to: 20_000 * Self.millisecond, wait: 5 * Self.millisecond, subscribers: 100, shed: &shed)
        #expect(waiting.isEmpty, "waits of a quarter of shedAbove or more are no calm")
        let calm = Self.run(&governor, from: 20_100 * Self.millisecond, to: 26_200 * Self.millisecond, wait: 0, subscribers: 100, shed: &shed)
        #expect(calm.map(\.action) == [.restore(5), .restore(5), .restore(5)], "half a step, every 2 s of calm")
        #expect(calm.first.map { $0.at - 20_100 * Self.millisecond } == 2_000 * Self.millisecond)
    }

    @Test func lateDropsCountAsABacklogThoughThePromptestPacketsWentOutAtOnce() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        let actions = Self.run(&governor, from: 0, to: 200 * Self.millisecond, wait: Self.millisecond, late: true, subscribers: 10, shed: &shed)
        #expect(actions.map(\.action) == [.shed(1)])
    }

    @Test func longWaitsOfAWorkerWithTimeToSpareShedNothing() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        let actions = Self.run(
            &governor, from: 0, to: 5_000 * Self.millisecond, wait: 100 * Self.millisecond, late: true, busyShare: 0.79, subscribers: 10,
            shed: &shed)
        #expect(actions.isEmpty, "a key frame's burst behind a half-idle worker is no overload")
        #expect(!governor.isShedding(shed: shed))
    }

    @Test func oneLongWaitAloneShedsNothing() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        var actions = Self.run(&governor, from: 0, to: 100 * Self.millisecond, wait: 500 * Self.millisecond, subscribers: 10, shed: &shed)
        actions += Self.run(&governor, from: 200 * Self.millisecond, to: 5_000 * Self.millisecond, wait: 0, subscribers: 10, shed: &shed)
        #expect(actions.isEmpty, "a stall of one evaluation is not a backlog")
    }

    @Test func sheddingSoonAfterAStepBackOnDoublesTheWaitBeforeTheNext() {
        var governor = OverloadGovernor(configuration: Self.configuration)
        var shed = 0
        _ = Self.run(&governor, from: 0, to: 200 * Self.millisecond, wait: 100 * Self.millisecond, subscribers: 10, shed: &shed)
        #expect(shed == 1)
        let back = Self.run(&governor, from: 500 * Self.millisecond, to: 2_500 * Self.millisecond, wait: 0, subscribers: 10, shed: &shed)
        #expect(back.map(\.action) == [.restore(1)])
        let again = Self.run(&governor, from: 2_600 * Self.millisecond, to: 2_700 * Self.millisecond, wait: 100 * Self.millisecond, subscribers: 10, shed: &shed)
        #expect(again.map(\.action) == [.shed(1)])
        #expect(governor.backoff == 2)
        let calm = Self.run(&governor, from: 2_800 * Self.millisecond, to: 8_000 * Self.millisecond, wait: 0, subscribers: 10, shed: &shed)
        #expect(calm.map { $0.at - 2_800 * Self.millisecond } == [4_000 * Self.millisecond], "4 s of calm now, not 2")
    }

    @Test func turnedOffItDecidesNothing() {
        var off = Self.configuration
        off.enabled = false
        var governor = OverloadGovernor(configuration: off)
        var shed = 0
        #expect(Self.run(&governor, from: 0, to: 5_000 * Self.millisecond, wait: 1_000 * Self.millisecond, subscribers: 100, shed: &shed).isEmpty)
        #expect(!governor.isShedding(shed: 0))
    }
}
