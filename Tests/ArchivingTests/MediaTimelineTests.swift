import Testing

@testable import Archiving

@Suite struct MediaTimelineTests {
    @Test func followsTheRTPClockFromTheFirstPacketsForwardingTime() {
        var timeline = MediaTimeline(clockRate: 90_000)
        #expect(timeline.milliseconds(rtpTimestamp: 1_000, forwardedMs: 500) == 500)
        // Arrival jitter does not move a frame: 33 ms of RTP clock is 33 ms on the timeline.
        #expect(timeline.milliseconds(rtpTimestamp: 1_000 + 2_970, forwardedMs: 580) == 533)
    }

    @Test func unwrapsTheTimestamp() {
        var timeline = MediaTimeline(clockRate: 48_000)
        #expect(timeline.milliseconds(rtpTimestamp: UInt32.max - 479, forwardedMs: 0) == 0)
        #expect(timeline.milliseconds(rtpTimestamp: 480, forwardedMs: 20) == 20)
    }

    @Test func anchorsAgainWhenTheRTPClockStoodStillThroughAPause() {
        var timeline = MediaTimeline(clockRate: 90_000)
        _ = timeline.milliseconds(rtpTimestamp: 0, forwardedMs: 0)
        // The publisher paused 5 s and its clock did not run: the frame goes where it arrived.
        #expect(timeline.milliseconds(rtpTimestamp: 3_000, forwardedMs: 5_000) == 5_000)
        #expect(timeline.milliseconds(rtpTimestamp: 6_000, forwardedMs: 5_040) == 5_033)
    }

    @Test func neverGoesBackwards() {
        var timeline = MediaTimeline(clockRate: 90_000)
        _ = timeline.milliseconds(rtpTimestamp: 9_000, forwardedMs: 100)
        #expect(timeline.milliseconds(rtpTimestamp: 8_910, forwardedMs: 101) == 101)
    }
}
