import Testing
@testable import Webhooks

@Suite struct WebhookDeliveryRulesTests {
    @Test func aStatusDecidesBetweenDeliveredRetriedAndRefused() {
        #expect(WebhookAttemptResult(status: 200) == .delivered)
        #expect(WebhookAttemptResult(status: 204) == .delivered)
        #expect(WebhookAttemptResult(status: 500) == .retry(.status(500)))
        #expect(WebhookAttemptResult(status: 503) == .retry(.status(503)))
        #expect(WebhookAttemptResult(status: 408) == .retry(.status(408)))
        #expect(WebhookAttemptResult(status: 429) == .retry(.status(429)))
        #expect(WebhookAttemptResult(status: 400) == .rejected(status: 400))
        #expect(WebhookAttemptResult(status: 401) == .rejected(status: 401))
        #expect(WebhookAttemptResult(status: 404) == .rejected(status: 404))
        #expect(WebhookAttemptResult(status: 301) == .rejected(status: 301), "redirects are not followed")
        #expect(WebhookFailureCause.status(502).label == "status5xx")
        #expect(WebhookFailureCause.status(429).label == "status429")
    }

    @Test func theBackOffDoublesUpToItsCapWithinTheUpperHalfOfEachStep() {
        let policy = WebhookRetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60))
        #expect(policy.delay(afterFailedAttempts: 1, jitter: 0) == .milliseconds(500))
        #expect(policy.delay(afterFailedAttempts: 1, jitter: 0.999_999) <= .seconds(1))
        #expect(policy.delay(afterFailedAttempts: 2, jitter: 1) == .seconds(2))
        #expect(policy.delay(afterFailedAttempts: 3, jitter: 1) == .seconds(4))
        #expect(policy.delay(afterFailedAttempts: 7, jitter: 1) == .seconds(60), "64 s is capped at 60")
        #expect(policy.delay(afterFailedAttempts: 1_000, jitter: 0) == .seconds(30), "no overflow however many attempts")
        #expect(policy.delay(afterFailedAttempts: 4, jitter: 0.5) == .seconds(6))
    }

    @Test func queueFullDropsAreLoggedAtPowersOfTenOnly() {
        let logged = (1...1_000).filter { WebhookDispatcher.isPowerOfTen(UInt64($0)) }
        #expect(logged == [1, 10, 100, 1_000])
    }
}
