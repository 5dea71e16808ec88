import Testing
@testable import Quality

/// The estimator's parts, each on hand-made input.
@Suite struct BandwidthEstimatorPartsTests {
    static let millisecond: UInt64 = 1_000_000

    @Test func packetsSentWithinFiveMillisecondsFormOneGroup() {
        var grouping = PacketGrouping()
        // Group A at 0–4 ms, group B at 10–12 ms, group C at 20 ms; each arrives 30 ms later, B 2 ms late.
        var deltas: [PacketGroupDelta] = []
        for (send, extra) in [(0, 0), (2, 0), (4, 0), (10, 2), (12, 2), (20, 0), (40, 0)] {
            let sendTime = UInt64(send) * Self.millisecond
            if let delta = grouping.add(sendTime: sendTime, arrivalTime: Int64(sendTime + 30 * Self.millisecond) + Int64(extra) * 1_000_000) {
                deltas.append(delta)
            }
        }
        #expect(deltas.count == 2)
        #expect(deltas[0].sendDeltaMilliseconds == 8 && deltas[0].delayVariationMilliseconds == 2)
        #expect(deltas[1].sendDeltaMilliseconds == 8 && deltas[1].delayVariationMilliseconds == -2)
        // A packet sent before the open group began (reordered) changes nothing.
        #expect(grouping.add(sendTime: 1 * Self.millisecond, arrivalTime: 99_000_000) == nil)
    }

    @Test func aGrowingQueueGivesAPositiveTrendAndASteadyOneNone() {
        var growing = TrendlineFilter()
        var steady = TrendlineFilter()
        var growingTrend = 0.0
        var steadyTrend = 0.0
        for index in 1...40 {
            let time = Double(index) * 10
            growingTrend = growing.update(PacketGroupDelta(sendDeltaMilliseconds: 10, arrivalDeltaMilliseconds: 11, arrivalTimeMilliseconds: time))
            steadyTrend = steady.update(PacketGroupDelta(sendDeltaMilliseconds: 10, arrivalDeltaMilliseconds: 10, arrivalTimeMilliseconds: time))
        }
        #expect(growingTrend > 12.5)
        #expect(steadyTrend == 0)
    }

    @Test func overuseNeedsTheTrendAboveTheThresholdForTenMillisecondsAndTwoDeltas() {
        var detector = OveruseDetector()
        #expect(detector.detect(trend: 50, deltaCount: 1, sendDeltaMilliseconds: 5, nowMilliseconds: 0) == .normal)
        #expect(detector.detect(trend: 50, deltaCount: 2, sendDeltaMilliseconds: 5, nowMilliseconds: 5) == .normal)
        #expect(detector.detect(trend: 50, deltaCount: 3, sendDeltaMilliseconds: 5, nowMilliseconds: 10) == .normal)
        #expect(detector.detect(trend: 51, deltaCount: 4, sendDeltaMilliseconds: 5, nowMilliseconds: 15) == .overusing)
        #expect(detector.detect(trend: -50, deltaCount: 5, sendDeltaMilliseconds: 5, nowMilliseconds: 20) == .underusing)
        #expect(detector.detect(trend: 0, deltaCount: 6, sendDeltaMilliseconds: 5, nowMilliseconds: 25) == .normal)
    }

    @Test func theThresholdFollowsASteadyTrendSlowlyUpAndFasterDown() {
        var detector = OveruseDetector()
        for step in 0..<100 {
            _ = detector.detect(trend: 20, deltaCount: 10, sendDeltaMilliseconds: 10, nowMilliseconds: Double(step) * 10)
        }
        let raised = detector.threshold
        #expect(raised > 12.5 && raised < 20)
        for step in 100..<200 {
            _ = detector.detect(trend: 0, deltaCount: 10, sendDeltaMilliseconds: 10, nowMilliseconds: Double(step) * 10)
        }
        #expect(detector.threshold == 6)
    }

    @Test func overuseCutsTo85PercentOfTheAcknowledgedRateAndGrowthStopsAtOneAndAHalfTimesIt() {
        var controller = AIMDRateController(configuration: BandwidthEstimatorConfiguration(startBitrate: 1_000_000))
        let cut = controller.update(usage: .overusing, acknowledgedBitrate: 800_000, roundTripSeconds: 0.05, now: 0)
        #expect(cut == 680_000)
        // A second overuse within 200 ms does not cut again unless the acknowledged rate halved.
        #expect(controller.update(usage: .overusing, acknowledgedBitrate: 800_000, roundTripSeconds: 0.05, now: 100 * Self.millisecond) == 680_000)
        var rate = 0.0
        for step in 1...200 {
            rate = controller.update(usage: .normal, acknowledgedBitrate: 100_000, roundTripSeconds: 0.05, now: UInt64(step) * 100 * Self.millisecond + 100 * Self.millisecond)
        }
        #expect(rate == 680_000, "more than 1.5 × 100 kbps is not reached by growth, and growth never lowers the rate")
        var fresh = AIMDRateController(configuration: BandwidthEstimatorConfiguration(startBitrate: 100_000))
        _ = fresh.update(usage: .normal, acknowledgedBitrate: 1_000_000, roundTripSeconds: 0.05, now: 0)
        let afterOneSecond = fresh.update(usage: .normal, acknowledgedBitrate: 1_000_000, roundTripSeconds: 0.05, now: 1_000 * Self.millisecond)
        #expect(abs(afterOneSecond - 108_000) < 1, "8 % a second far from any capacity found")
    }

    @Test func lossBelowTenPercentSetsNoCeilingAndAboveItCutsByHalfTheLoss() {
        var bound = LossBasedBound()
        func judge(lost: Int, of total: Int, at milliseconds: UInt64, estimate: Double = 1_000_000) -> Double? {
            for index in 0..<total { bound.count(received: index >= lost) }
            return bound.update(estimate: estimate, delayBased: 1_000_000, acknowledged: nil, now: milliseconds * Self.millisecond)
        }
        #expect(judge(lost: 9, of: 100, at: 0) == nil)
        #expect(judge(lost: 20, of: 100, at: 600) == 900_000)
        #expect(judge(lost: 5, of: 100, at: 1_200, estimate: 900_000) == 900_000, "2–10 % holds")
        let grown = judge(lost: 0, of: 100, at: 2_200, estimate: 900_000)
        #expect(grown != nil && abs(grown! - (900_000 * 1.08 + 1000)) < 1)
        #expect(judge(lost: 0, of: 100, at: 3_200, estimate: 973_000) == nil, "past the delay-based rate, the ceiling goes")
        // Too few packets to judge: nothing changes.
        #expect(judge(lost: 10, of: 10, at: 4_200) == nil)
    }

    @Test func aProbeMeasuresTheRateItsBurstArrivedAtAtMostItsTarget() {
        let cluster = ProbeCluster(id: 1, targetBitrate: 2_000_000, packetBytes: 1200)
        #expect(cluster.packetCount == 4 || cluster.packetCount == ProbeCluster.minimumPackets)
        var measurement = ProbeMeasurement(cluster: cluster, startedAt: 0)
        // Five 1200-byte packets spaced 9.6 ms apart: 1 Mbps.
        for index in 0..<4 { measurement.add(size: 1200, arrivalTime: Int64(index) * 9_600_000) }
        #expect(measurement.provenBitrate != nil)
        #expect(abs(measurement.provenBitrate! - 1_000_000) < 1)
        var fast = ProbeMeasurement(cluster: cluster, startedAt: 0)
        for index in 0..<5 { fast.add(size: 1200, arrivalTime: Int64(index) * 1_000_000) }
        #expect(fast.provenBitrate == 2_000_000)
        var thin = ProbeMeasurement(cluster: cluster, startedAt: 0)
        thin.add(size: 1200, arrivalTime: 0)
        #expect(thin.provenBitrate == nil, "one packet of five says nothing")
    }

    @Test func probesGoOutOnlyWhenMoreIsWantedAndAFailedOneWaitsThreeSeconds() {
        var estimator = SendSideBandwidthEstimator(configuration: BandwidthEstimatorConfiguration(startBitrate: 500_000))
        #expect(estimator.nextProbe(now: 0) == nil, "nothing wanted")
        estimator.desiredBitrate = 400_000
        #expect(estimator.nextProbe(now: 0) == nil, "wanted is below the estimate")
        estimator.desiredBitrate = 3_000_000
        let first = estimator.nextProbe(now: 0)
        #expect(first?.targetBitrate == 1_000_000)
        #expect(estimator.nextProbe(now: 500 * Self.millisecond) == nil, "one at a time")
        // No feedback: after a second it has failed, and the next waits three seconds from then.
        #expect(estimator.nextProbe(now: 1_000 * Self.millisecond) == nil)
        #expect(estimator.nextProbe(now: 3_900 * Self.millisecond) == nil)
        #expect(estimator.nextProbe(now: 4_000 * Self.millisecond)?.id == 2)
    }

    @Test func aProbeThatArrivesIntactRaisesTheEstimate() {
        var estimator = SendSideBandwidthEstimator(configuration: BandwidthEstimatorConfiguration(startBitrate: 500_000))
        estimator.desiredBitrate = 3_000_000
        guard let probe = estimator.nextProbe(now: 0) else {
            Issue.record("no probe")
            return
        }
        for index in 0..<probe.packetCount {
            estimator.record(PacketFeedback(sendTime: 0, arrivalTime: 40_000_000 + Int64(index) * 1_000_000, size: 1200, probeCluster: probe.id))
        }
        #expect(estimator.finishFeedback(now: 50 * Self.millisecond) == 1_000_000)
        #expect(estimator.nextProbe(now: 50 * Self.millisecond)?.targetBitrate == 2_000_000, "a probe that proved its target is followed at once")
    }
}
