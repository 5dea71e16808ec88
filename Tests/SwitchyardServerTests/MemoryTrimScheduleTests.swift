import Testing

@testable import SwitchyardServer

/// When the daemon gives freed memory back: after a burst of clients ends, once, and never in the
/// middle of a steady load.
struct MemoryTrimScheduleTests {
    private let start = ContinuousClock.now

    /// Feeds `loads`, one every 2 s (the service's check interval) from `offset` seconds, and returns
    /// the seconds at which the schedule said to trim.
    private func trims(_ loads: [Int], from offset: Int = 0, into schedule: inout MemoryTrimSchedule) -> [Int] {
        loads.enumerated().compactMap { index, load in
            let second = offset + 2 * index
            return schedule.observe(load: load, now: start + .seconds(second)) == .trim ? second : nil
        }
    }

    @Test func aBurstThatEndsIsTrimmedOnceAtItsEnd() {
        var schedule = MemoryTrimSchedule()
        // 500 idle sockets, 300 clients churning on top, then everyone gone and the daemon idle.
        let loads = [0, 500, 800, 800, 790, 810, 800, 0, 0, 0, 0, 0]
        #expect(trims(loads, into: &schedule) == [14])
    }

    @Test func aSteadyLoadIsNeverTrimmed() {
        var schedule = MemoryTrimSchedule()
        let loads = (0..<100).map { 300 + ($0 % 7) * 10 - 30 }
        #expect(trims(loads, into: &schedule).isEmpty)
    }

    @Test func aDropIsMeasuredFromThePeakNotFromTheLastReading() {
        var schedule = MemoryTrimSchedule()
        // Clients leaving a few at a time: 40 between two readings, 120 in all.
        #expect(trims([800, 760, 720, 680], into: &schedule) == [6])
    }

    @Test func aFewClientsComingAndGoingAreNotWorthATrim() {
        var schedule = MemoryTrimSchedule()
        #expect(trims([0, 15, 0, 15, 0], into: &schedule).isEmpty)
    }

    @Test func aLoadThatHalvesIsTrimmedEvenWhenTheDropIsSmall() {
        var schedule = MemoryTrimSchedule()
        // A fanout keeps 42 clients; the last 72 clients of a burst leave when their grace ends.
        #expect(trims([42, 114, 114, 42], into: &schedule) == [6])
    }

    @Test func aSecondDropWaitsForTheIntervalThenIsTrimmedAtTheNextReading() {
        var schedule = MemoryTrimSchedule()
        // The idle sockets time out mid-burst (a trim at 2 s); the churn ends 4 s later, inside the
        // 5 s interval: its trim comes at the first reading 5 s or more after the first.
        #expect(trims([800, 300, 300, 0, 0, 0], into: &schedule) == [2, 8])
    }

    @Test func afterATrimOnlyANewDropCounts() {
        var schedule = MemoryTrimSchedule()
        #expect(trims([600, 0], into: &schedule) == [2])
        // Back up by less than the smallest drop and down again, long after: nothing to return.
        #expect(trims([10, 0, 0], from: 60, into: &schedule).isEmpty)
        #expect(trims([400, 0], from: 120, into: &schedule) == [122])
    }
}
