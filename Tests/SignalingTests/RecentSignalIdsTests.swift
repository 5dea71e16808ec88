import Testing

@testable import Signaling

/// Signal ids are remembered for the grace period and up to a count, so a resent signal is
/// delivered once and the memory a connection holds stays bounded.
struct RecentSignalIdsTests {
    /// Which of `ids`, offered in turn at `nowMilliseconds`, were new.
    private func firstSightings(_ ids: [String], at nowMilliseconds: Int64, in recent: inout RecentSignalIds) -> [Bool] {
        ids.map { recent.isFirstSighting(of: $0, nowMilliseconds: nowMilliseconds) }
    }

    @Test func anIdSeenWithinTheWindowIsADuplicate() {
        var recent = RecentSignalIds(capacity: 8, window: .seconds(20))
        #expect(firstSightings(["a"], at: 0, in: &recent) == [true])
        #expect(firstSightings(["a", "b"], at: 19_000, in: &recent) == [false, true])
        #expect(firstSightings(["a"], at: 20_001, in: &recent) == [true], "forgotten once the window passed")
    }

    @Test func theOldestIdsAreForgottenPastTheCapacity() {
        var recent = RecentSignalIds(capacity: 3, window: .seconds(20))
        #expect(firstSightings(["a", "b", "c", "d"], at: 1, in: &recent) == [true, true, true, true])
        #expect(firstSightings(["a", "d"], at: 2, in: &recent) == [true, false])
    }
}
