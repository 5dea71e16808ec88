import Testing
import TestSupport

/// The `signaling` fuzz target's invariants (`SignalingFuzzer`) hold on every seed in Fuzz/seeds/signaling, as `make fuzz`
/// needs them to before it can explore: a harness that drifted from the code fails here, in
/// `make test`. The seeds run in a child process, where a broken invariant's `fatalError` ends only it.
@Suite struct SignalingFuzzSeedTests {
    @Test func everySeedKeepsTheTargetsInvariants() async throws {
        #expect(try !FuzzSeeds.names(of: "signaling").isEmpty)
        let passed = await #expect(processExitsWith: .success) { try await FuzzSeeds.replay("signaling", through: SignalingFuzzer.check) } != nil
        if !passed {
            // A child's output is kept only when it exits as expected: run it again to say which seed broke what.
            let failed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                try await FuzzSeeds.replay("signaling", through: SignalingFuzzer.check)
            }
            Issue.record("\(FuzzSeeds.failureReport(standardError: failed?.standardErrorContent ?? []))")
        }
    }
}
