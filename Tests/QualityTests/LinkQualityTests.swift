import Quality
import RTPWire
import Testing

struct LinkQualityTests {
    @Test func scoreFollowsTheDocumentedFormula() {
        #expect(LinkQuality.score(loss: 0, jitterSeconds: 0, roundTripSeconds: 0.001, availableBitrate: nil, neededBitrate: 150_000) == 100)
        #expect(abs(LinkQuality.score(loss: 0.05, jitterSeconds: 0, roundTripSeconds: 0, availableBitrate: nil, neededBitrate: 150_000) - 80) < 1e-9)
        #expect(LinkQuality.score(loss: 0.3, jitterSeconds: 0, roundTripSeconds: 0, availableBitrate: nil, neededBitrate: 150_000) == 0)
        // 500 ms round trip + 2 × 50 ms jitter is 300 ms over the allowance: 15 points.
        #expect(abs(LinkQuality.score(loss: 0, jitterSeconds: 0.05, roundTripSeconds: 0.5, availableBitrate: nil, neededBitrate: 150_000) - 85) < 1e-9)
        // A REMB of half what the lowest video needs: 25 points.
        #expect(abs(LinkQuality.score(loss: 0, jitterSeconds: 0, roundTripSeconds: 0, availableBitrate: 75_000, neededBitrate: 150_000) - 75) < 1e-9)
        #expect(LinkQuality.score(loss: 0, jitterSeconds: 0, roundTripSeconds: 0, availableBitrate: 1_000_000, neededBitrate: 150_000) == 100)
    }

    @Test func oneBadReportDoesNotSwingTheScore() {
        var estimator = LinkQualityEstimator(smoothing: 0.5, neededBitrate: 150_000)
        for _ in 0..<10 { estimator.record(QualitySample(intervalSeconds: 0.5, packetsExpected: 75, packetsLost: 0, bytes: 40_000)) }
        estimator.record(QualitySample(intervalSeconds: 0.5, packetsExpected: 75, packetsLost: 22, bytes: 40_000))
        #expect(abs(estimator.quality.loss - 22.0 / 75 / 2) < 1e-9)
        estimator.record(QualitySample(intervalSeconds: 0.5, packetsExpected: 75, packetsLost: 0, bytes: 40_000))
        #expect(estimator.quality.loss < 0.08)
    }

    @Test func smallSamplesWeighLess() {
        var estimator = LinkQualityEstimator(smoothing: 0.5, neededBitrate: 150_000)
        estimator.record(QualitySample(intervalSeconds: 0.5, packetsExpected: 2, packetsLost: 2, bytes: 200))
        // 2 of 20 packets' worth of weight: 0.5 × 0.1 of a full swing to 100 %.
        #expect(abs(estimator.quality.loss - 0.05) < 1e-9)
    }

    @Test func deliveredRateIsWhatWasSentLessWhatWasLost() {
        let sample = QualitySample(intervalSeconds: 0.5, packetsExpected: 100, packetsLost: 25, bytes: 50_000)
        #expect(sample.deliveredBitrate == 600_000)
        var estimator = LinkQualityEstimator(smoothing: 0.5, neededBitrate: 150_000)
        estimator.record(sample)
        #expect(estimator.quality.availableBitrate == 600_000)
        estimator.recordReceiverEstimate(bitsPerSecond: 300_000)
        #expect(estimator.quality.availableBitrate == 300_000, "the receiver's own estimate wins")
    }

    @Test func reportIntervalsComeFromTheCumulativeFields() {
        func block(highest: UInt32, lost: Int32) -> RTCPReportBlock {
            RTCPReportBlock(
                ssrc: 1, fractionLost: 0, cumulativeLost: lost, extendedHighestSequenceNumber: highest, jitter: 0,
                lastSenderReport: 0, delaySinceLastSenderReport: 0)
        }
        #expect(ReportInterval(from: block(highest: 100, lost: 3), to: block(highest: 175, lost: 10)) == ReportInterval(packetsExpected: 75, packetsLost: 7))
        #expect(ReportInterval(from: block(highest: 0xFFFF, lost: 0), to: block(highest: 0x1_0009, lost: 1)) == ReportInterval(packetsExpected: 10, packetsLost: 1))
        #expect(ReportInterval(from: block(highest: 500, lost: 0), to: block(highest: 100, lost: 0)) == nil, "a restarted receiver")
        #expect(ReportInterval(from: block(highest: 100, lost: 5), to: block(highest: 110, lost: 2)) == ReportInterval(packetsExpected: 10, packetsLost: 0), "duplicates lower the count")
    }
}
