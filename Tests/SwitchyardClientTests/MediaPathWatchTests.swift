import Testing

@testable import SwitchyardClient

/// A media path breaks after a silence while media is expected, mends with the next progress, and
/// reports each change once.
struct MediaPathWatchTests {
    private enum Step {
        case progress(seconds: Double)
        case check(seconds: Double, expecting: Bool = true)
    }

    /// What each step returned: whether it changed the path.
    private func run(_ steps: [Step]) -> [Bool] {
        var watch = MediaPathWatch(silence: 2_000_000_000)
        return steps.map { step in
            switch step {
            case .progress(let seconds): watch.progressed(now: UInt64(seconds * 1e9))
            case .check(let seconds, let expecting): watch.check(now: UInt64(seconds * 1e9), expecting: expecting)
            }
        }
    }

    @Test func aSilenceBreaksThePathOnceAndProgressMendsIt() {
        let changes = run([
            .check(seconds: 10), .progress(seconds: 10), .check(seconds: 11), .check(seconds: 12), .check(seconds: 13),
            .progress(seconds: 14), .progress(seconds: 14.1), .check(seconds: 15),
        ])
        #expect(changes == [false, false, false, true, false, true, false, false])
    }

    @Test func silenceWhileNothingIsExpectedBreaksNothing() {
        let changes = run([.progress(seconds: 0), .check(seconds: 5, expecting: false), .check(seconds: 6), .check(seconds: 7)])
        #expect(changes == [false, false, false, true], "the silence counts from when media was due again")
    }
}
