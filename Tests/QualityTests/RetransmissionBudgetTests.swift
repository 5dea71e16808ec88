import Testing
import Quality

/// The bound on resends toward a subscriber: its downlink estimate, as a token bucket.
@Suite struct RetransmissionBudgetTests {
    @Test func withoutAnEstimateEveryResendGoes() {
        var budget = RetransmissionBudget()
        let granted = (0..<1000).filter { _ in budget.spend(1200, now: 0) }
        #expect(granted.count == 1000)
    }

    @Test func aBurstTakesHalfASecondOfTheEstimateAndTheRestWaitsForTheRefill() {
        var budget = RetransmissionBudget()
        // 480 kbps: 60,000 bytes a second, a bucket of 30,000.
        budget.setRate(bitsPerSecond: 480_000, now: 0)
        var sent = 0
        let start: UInt64 = 2_000_000_000
        while budget.spend(1000, now: start) { sent += 1 }
        #expect(sent == 30)
        let after10Milliseconds = budget.spend(1000, now: start + 10_000_000)
        #expect(!after10Milliseconds, "10 ms bring 600 bytes")
        let after20Milliseconds = budget.spend(1000, now: start + 20_000_000)
        #expect(after20Milliseconds, "20 ms bring 1,200")
        // A long quiet spell fills the bucket to its depth, no further.
        var afterRest = 0
        while budget.spend(1000, now: start + 60_000_000_000) { afterRest += 1 }
        #expect(afterRest == 30)
    }

    @Test func aLowEstimateStillLetsAFewPacketsThrough() {
        var budget = RetransmissionBudget()
        budget.setRate(bitsPerSecond: 16_000, now: 0)
        var sent = 0
        while budget.spend(1200, now: 5_000_000_000) { sent += 1 }
        #expect(sent == 10, "the 12,000-byte floor")
    }

    @Test func aFallingEstimateShrinksWhatIsHeldAndAVanishedOneLiftsTheBound() {
        var budget = RetransmissionBudget()
        budget.setRate(bitsPerSecond: 8_000_000, now: 0)
        budget.setRate(bitsPerSecond: 8_000_000, now: 1_000_000_000)
        budget.setRate(bitsPerSecond: 192_000, now: 1_000_000_000)
        var sent = 0
        while budget.spend(1000, now: 1_000_000_000) { sent += 1 }
        #expect(sent == 12, "held 500,000 bytes, now 12,000 at most")
        budget.setRate(bitsPerSecond: nil, now: 1_000_000_000)
        let unbounded = budget.spend(100_000, now: 1_000_000_000)
        #expect(unbounded)
    }
}
