import Testing

@testable import Signaling

@Suite struct MessageRateLimiterTests {
    @Test func aBurstIsAcceptedThenRefusedThenDisconnected() {
        var limiter = MessageRateLimiter(rate: 10, burst: 5, violationsBeforeDisconnect: 3)
        let now = Duration.seconds(100)
        let decisions = (0..<8).map { _ in limiter.admit(now: now) }
        #expect(decisions == [.accept, .accept, .accept, .accept, .accept, .refuse, .refuse, .disconnect])
    }

    @Test func tokensRefillAtTheRate() {
        var limiter = MessageRateLimiter(rate: 10, burst: 2, violationsBeforeDisconnect: 100)
        #expect(limiter.admit(now: .zero) == .accept)
        #expect(limiter.admit(now: .zero) == .accept)
        #expect(limiter.admit(now: .milliseconds(50)) == .refuse)
        #expect(limiter.admit(now: .milliseconds(150)) == .accept)
        #expect(limiter.admit(now: .seconds(10)) == .accept)
        #expect(limiter.admit(now: .seconds(10)) == .accept)
        #expect(limiter.admit(now: .seconds(10)) == .refuse)
    }

    @Test func anAcceptedMessageResetsTheViolationCount() {
        var limiter = MessageRateLimiter(rate: 1, burst: 1, violationsBeforeDisconnect: 2)
        #expect(limiter.admit(now: .zero) == .accept)
        #expect(limiter.admit(now: .zero) == .refuse)
        #expect(limiter.admit(now: .seconds(1)) == .accept)
        #expect(limiter.admit(now: .seconds(1)) == .refuse)
        #expect(limiter.admit(now: .seconds(1)) == .disconnect)
    }
}
