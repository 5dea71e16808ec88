import CSystemShims
import Testing

@testable import SwitchyardServer

/// When the daemon gives freed memory back: after a burst of clients ends, once, and never in the
/// middle of a steady load; and whenever the freed memory glibc keeps resident has grown by the
/// schedule's step since the last trim, whatever the load.
struct MemoryTrimScheduleTests {
    private let start = ContinuousClock.now

    /// Feeds `loads`, one every 2 s (the service's check interval) from `offset` seconds, and returns
    /// the seconds at which the schedule said to trim.
    private func trims(_ loads: [Int], from offset: Int = 0, into schedule: inout MemoryTrimSchedule) -> [Int] {
        loads.enumerated().compactMap { index, load in
            let second = offset + 2 * index
            return schedule.observe(load: load, freedResidentBytes: 0, now: start + .seconds(second)) == .trim ? second : nil
        }
    }

    /// Feeds `freed` (MiB of freed memory kept resident) under a steady load of 10 clients, one every
    /// 2 s from `offset` seconds; after each trim the memory kept is `keptAfterTrim` MiB. Returns
    /// the seconds at which the schedule said to trim.
    private func trims(
        freed: [Double], keptAfterTrim: Double = 1, from offset: Int = 0, into schedule: inout MemoryTrimSchedule
    ) -> [Int] {
        freed.enumerated().compactMap { index, mebibytes in
            let second = offset + 2 * index
            guard
                schedule.observe(load: 10, freedResidentBytes: Int(mebibytes * 1_048_576), now: start + .seconds(second)) == .trim
            else { return nil }
            schedule.trimmed(freedResidentBytes: Int(keptAfterTrim * 1_048_576))
            return second
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

    @Test func freedMemoryThatGrowsUnderASteadyLoadIsTrimmed() {
        var schedule = MemoryTrimSchedule()
        // A chaos run's node: the same clients throughout, freed memory kept creeping up by a
        // quarter of a MiB at a time, then a slow reader's broadcasts leaving 6 MiB at once.
        #expect(trims(freed: [1, 1.5, 2, 2.5, 2.75], into: &schedule).isEmpty)
        #expect(trims(freed: [3, 3.25], from: 24, into: &schedule) == [24])
        #expect(trims(freed: [1.5, 7.5, 7.5], from: 60, into: &schedule) == [62])
    }

    @Test func freedMemoryCountsFromWhatTheLastTrimLeft() {
        var schedule = MemoryTrimSchedule()
        // The trim cannot give back everything (whole pages only): 2.5 MiB stay, and the next trim
        // waits for 2 MiB more than that, not more than the first reading.
        #expect(trims(freed: [0.5, 3, 4, 4.4, 4.6], keptAfterTrim: 2.5, into: &schedule) == [2, 8])
    }

    @Test func freedMemoryThatGrowsAgainAtOnceWaitsForTheInterval() {
        var schedule = MemoryTrimSchedule()
        #expect(trims(freed: [0, 4, 4, 4, 4], into: &schedule) == [2, 8])
    }

    @Test func memoryFreedInTheHeapIsSeenAndGivenBackByATrim() {
        // 32 MiB in 2 KiB blocks, touched, then all but one block in 16 freed: the pages between the
        // kept blocks are free to glibc but resident until a trim. On the daemons' trim queue, so no
        // daemon of another test trims in between.
        let blockSize = 2048
        let (before, freed, afterTrim) = MemoryReturnService.trimQueue.sync {
            let blocks = (0..<16_384).map { _ in
                let block = UnsafeMutableRawPointer.allocate(byteCount: blockSize, alignment: 16)
                block.initializeMemory(as: UInt8.self, repeating: 0xA5, count: blockSize)
                return block
            }
            let before = switchyard_freed_resident_bytes()
            for (index, block) in blocks.enumerated() where index % 16 != 0 { block.deallocate() }
            let freed = switchyard_freed_resident_bytes()
            _ = switchyard_return_free_memory()
            let afterTrim = switchyard_freed_resident_bytes()
            for (index, block) in blocks.enumerated() where index % 16 == 0 { block.deallocate() }
            return (before, freed, afterTrim)
        }
        // The reading itself may be below 0 in a busy process: memory allocated and not yet touched
        // counts as in use but is not resident. What the daemon acts on is its growth.
        #expect(before != -1, "/proc/self/statm was read")
        #expect(freed - before >= 16 << 20)
        #expect(freed - afterTrim >= 16 << 20)
    }
}
