import Testing
import TestSupport

/// The `rtpwire` fuzz target's invariants (`RTPWireFuzzer`) hold on every seed in Fuzz/seeds/rtpwire, as `make fuzz`
/// needs them to before it can explore: a harness that drifted from the code fails here, in
/// `make test`. The seeds run in a child process, where a broken invariant's `fatalError` ends only it.
@Suite struct RTPWireFuzzSeedTests {
    @Test func everySeedKeepsTheTargetsInvariants() async throws {
        #expect(try !FuzzSeeds.names(of: "rtpwire").isEmpty)
        let passed = await #expect(processExitsWith: .success) { try await FuzzSeeds.replay("rtpwire", through: RTPWireFuzzer.check) } != nil
        if !passed {
            // A child's output is kept only when it exits as expected: run it again to say which seed broke what.
            let failed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                try await FuzzSeeds.replay("rtpwire", through: RTPWireFuzzer.check)
            }
            Issue.record("\(FuzzSeeds.failureReport(standardError: failed?.standardErrorContent ?? []))")
        }
    }
}
