import Testing

@testable import MediaRouter

private let millisecond: UInt64 = 1_000_000
private let second: UInt64 = 1_000_000_000

/// What happens to a throttle, in time order.
private enum Event {
    /// A subscriber's PLI / FIR or a consumer (re)starting asks for a key frame.
    case request(at: UInt64)
    /// A receiver that has just become able to forward asks for its first key frame.
    case newReceiver(at: UInt64)
    /// The caller's timer checks for a deferred request.
    case timer(at: UInt64)
    /// A key frame arrives from the publisher.
    case keyFrame(at: UInt64)
}

extension KeyFrameRequestThrottle {
    /// Plays `events` and returns the times at which a request went to the publisher.
    fileprivate mutating func play(_ events: [Event]) -> [UInt64] {
        var sent: [UInt64] = []
        for event in events {
            switch event {
            case .request(let now): if request(now: now) { sent.append(now) }
            case .newReceiver(let now): if request(now: now, forNewReceiver: true) { sent.append(now) }
            case .timer(let now): if due(now: now) { sent.append(now) }
            case .keyFrame(let now): keyFrameReceived(now: now)
            }
        }
        return sent
    }
}

@Suite struct KeyFrameRequestThrottleTests {
    @Test func twentyRequestsInOneWindowSendOnceNowAndOnceAfterTheInterval() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        let requests = (0..<20).map { Event.request(at: 5 * second + UInt64($0) * 10 * millisecond) }
        #expect(throttle.play(requests) == [5 * second])
        #expect(throttle.isPending)
        #expect(throttle.deferredCount == 19)
        #expect(throttle.deadline == 6 * second)
        // The deferred request goes out once the interval has passed, and only once.
        let timers: [Event] = [.timer(at: 6 * second - 1), .timer(at: 6 * second), .timer(at: 6 * second + 1), .timer(at: 20 * second)]
        #expect(throttle.play(timers) == [6 * second])
        #expect(throttle.sentCount == 2)
        #expect(throttle.deadline == nil)
    }

    @Test func theFirstRequestGoesOutAtOnceAndLeavesNothingPending() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        #expect(throttle.play([.request(at: 0), .timer(at: 10 * second)]) == [0])
        #expect(!throttle.isPending)
    }

    @Test func aKeyFrameAnswersThePendingRequest() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        let events: [Event] = [.request(at: 0), .request(at: 100 * millisecond), .keyFrame(at: 200 * millisecond), .timer(at: second)]
        #expect(throttle.play(events) == [0])
        #expect(!throttle.isPending)
        #expect(throttle.lastKeyFrameAt == 200 * millisecond)
    }

    @Test func aKeyFrameDoesNotShortenTheInterval() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        // Asked again after the key frame but within the interval: deferred to its end, not sent.
        let events: [Event] = [
            .request(at: 0), .keyFrame(at: 50 * millisecond), .request(at: 300 * millisecond),
            .timer(at: 999 * millisecond), .timer(at: second),
        ]
        #expect(throttle.play(events) == [0, second])
    }

    @Test func aRequestAfterAQuietIntervalGoesOutAtOnce() {
        var throttle = KeyFrameRequestThrottle(interval: 500 * millisecond)
        let events: [Event] = [.request(at: 0), .request(at: 500 * millisecond), .request(at: 2 * second)]
        #expect(throttle.play(events) == [0, 500 * millisecond, 2 * second])
        #expect(throttle.deferredCount == 0)
    }

    @Test func theNextWindowRunsFromTheDeferredSend() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        // The timer fires late; the deferred request goes out then, and the next window starts there.
        let events: [Event] = [
            .request(at: 0), .request(at: 10 * millisecond), .timer(at: 1_300 * millisecond),
            .request(at: 2_200 * millisecond), .timer(at: 2_299 * millisecond), .timer(at: 2_300 * millisecond),
        ]
        #expect(throttle.play(events) == [0, 1_300 * millisecond, 2_300 * millisecond])
    }

    @Test func nothingIsDueWithoutARequest() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        #expect(throttle.play([.timer(at: 0), .timer(at: 5 * second), .keyFrame(at: 6 * second)]) == [])
        #expect(throttle.deadline == nil)
    }

    /// A WebRTC subscriber joining a running stream: its consumer asked at subscribe, before its keys
    /// existed, and asks again 40 ms later when they do. That second request must not wait out the
    /// one-second interval (it did: the first decoded frame came after 1.06-1.11 s).
    @Test func aNewReceiversFirstRequestWaitsOnlyTheShortInterval() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        let events: [Event] = [
            .request(at: 0), .newReceiver(at: 40 * millisecond), .timer(at: 99 * millisecond), .timer(at: 100 * millisecond),
            .timer(at: second),
        ]
        #expect(throttle.play(events) == [0, 100 * millisecond])
        #expect(throttle.deadline == nil)
    }

    @Test func aNewReceiverAfterAQuietShortIntervalIsAnsweredAtOnce() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        #expect(throttle.play([.request(at: 0), .newReceiver(at: 150 * millisecond)]) == [0, 150 * millisecond])
    }

    @Test func aCrowdOfNewReceiversCostsOneRequestPerShortInterval() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        // 50 subscribers becoming able to forward within half a second, the timer every 20 ms.
        var events: [Event] = []
        for tick in 0..<25 {
            let now = UInt64(tick) * 20 * millisecond
            events += [.newReceiver(at: now), .newReceiver(at: now + millisecond), .timer(at: now + 2 * millisecond)]
        }
        let sent = throttle.play(events)
        #expect(sent.count == 5)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1 - $0 >= 100 * millisecond })
    }

    @Test func aKeyFrameAnswersANewReceiversPendingRequest() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        let events: [Event] = [.request(at: 0), .newReceiver(at: 40 * millisecond), .keyFrame(at: 60 * millisecond), .timer(at: 200 * millisecond)]
        #expect(throttle.play(events) == [0])
    }

    @Test func anOrdinaryRequestPendingBehindANewReceiversKeepsTheShortDeadline() {
        var throttle = KeyFrameRequestThrottle(interval: second)
        let events: [Event] = [.request(at: 0), .newReceiver(at: 10 * millisecond), .request(at: 20 * millisecond)]
        #expect(throttle.play(events) == [0])
        #expect(throttle.deadline == 100 * millisecond)
    }

    @Test func theShortIntervalIsNeverLongerThanTheInterval() {
        let throttle = KeyFrameRequestThrottle(interval: 50 * millisecond)
        #expect(throttle.newReceiverInterval == 50 * millisecond)
    }
}
