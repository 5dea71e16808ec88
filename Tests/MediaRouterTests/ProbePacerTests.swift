import Testing

@testable import MediaRouter

/// The rate of the audio-fallback probe: half its configured bits per second beyond the audio, the
/// whole of it on tries after clean reports, less the bytes the router adds to that audio as RED, on a
/// clock the test drives.
@Suite struct ProbePacerTests {
    static let packetBytes = 267
    static let tick: UInt64 = 10_000_000

    /// Packets sent over `seconds` of ticks 10 ms apart, with `addedBytesPerTick` added each tick.
    private func packets(seconds: Int, bitsPerSecond: Int = 150_000, addedBytesPerTick: UInt64 = 0, pacer: inout ProbePacer, from start: UInt64 = 0)
        -> Int
    {
        var sent = 0
        var added: UInt64 = 0
        for step in 0...(seconds * 100) {
            sent += pacer.packetsDue(now: start + UInt64(step) * Self.tick, bitsPerSecond: bitsPerSecond, packetBytes: Self.packetBytes, addedBytes: added)
            added += addedBytesPerTick
        }
        return sent
    }

    /// A pacer at full rate: one clean report after it starts.
    private func fullRatePacer() -> ProbePacer {
        var pacer = ProbePacer()
        pacer.adapt(toReportedLoss: 0.05)
        return pacer
    }

    @Test func itStartsAtHalfTheRateAndTriesTheWholeRateAfterACleanReport() {
        var pacer = ProbePacer()
        #expect(!pacer.isAtFullRate)
        // 75 kbps is 9,375 bytes a second: 140.4 probes of 267 bytes in 4 s.
        #expect(packets(seconds: 4, pacer: &pacer) == 140)
        var full = fullRatePacer()
        #expect(full.isAtFullRate)
        // 150 kbps is 18,750 bytes a second: 280.9 probes of 267 bytes in 4 s.
        #expect(packets(seconds: 4, pacer: &full) == 280)
    }

    /// Reports a link too small for the full rate gives: clean at half, lossy at full. Each failed try
    /// doubles the clean reports before the next, up to 4; a lossy report at half starts the count
    /// again; a try that stays clean stays at full rate.
    @Test func eachFailedTryDoublesTheCleanReportsBeforeTheNextUpToFour() {
        var pacer = ProbePacer()
        var tries: [Int] = []
        for report in 0..<24 {
            let loss = pacer.isAtFullRate ? 0.2 : 0
            if pacer.isAtFullRate { tries.append(report) }
            pacer.adapt(toReportedLoss: loss)
        }
        #expect(tries == [1, 4, 9, 14, 19])
        pacer.adapt(toReportedLoss: 0)
        pacer.adapt(toReportedLoss: 0)
        pacer.adapt(toReportedLoss: 0.3)
        pacer.adapt(toReportedLoss: 0)
        pacer.adapt(toReportedLoss: 0)
        pacer.adapt(toReportedLoss: 0)
        #expect(!pacer.isAtFullRate && pacer.share == 0.5)
        pacer.adapt(toReportedLoss: 0)
        #expect(pacer.isAtFullRate)
        pacer.adapt(toReportedLoss: 0.01)
        #expect(pacer.isAtFullRate && pacer.share == 1)
        pacer.reset()
        #expect(!pacer.isAtFullRate)
        pacer.adapt(toReportedLoss: 0)
        #expect(pacer.isAtFullRate)
    }

    @Test func bytesTheRouterAddsAsRedCountAgainstTheProbe() {
        var pacer = fullRatePacer()
        // 40 kbps of repeated frames: 50 bytes every 10 ms.
        let sent = packets(seconds: 4, addedBytesPerTick: 50, pacer: &pacer)
        // (18,750 - 5,000) bytes a second, 4 s of it, in probes of 267 bytes.
        #expect(sent == 205)
    }

    @Test func moreAddedThanTheProbeSilencesItOnlyForAFewPacketsWorthOnceTheAddingStops() throws {
        var pacer = fullRatePacer()
        #expect(packets(seconds: 2, addedBytesPerTick: 400, pacer: &pacer) == 0)
        // The adding stops at 2 s; the debt was forgiven beyond 4 packets, so the first probe goes out
        // within 5 packets' time (71 ms at 150 kbps), to the next tick.
        let addedSoFar: UInt64 = 200 * 400
        let firstStep = (201...300).first { step in
            pacer.packetsDue(now: UInt64(step) * Self.tick, bitsPerSecond: 150_000, packetBytes: Self.packetBytes, addedBytes: addedSoFar) > 0
        }
        let waited = try #require(firstStep) - 200
        #expect(waited == 8)
    }

    @Test func aLateTickSendsAFewPacketsNotTheWholeGap() {
        var pacer = fullRatePacer()
        #expect(pacer.packetsDue(now: 0, bitsPerSecond: 150_000, packetBytes: Self.packetBytes, addedBytes: 0) == 0)
        #expect(pacer.packetsDue(now: 2_000_000_000, bitsPerSecond: 150_000, packetBytes: Self.packetBytes, addedBytes: 0) == 4)
    }

    @Test func afterAResetTheFirstTickOnlyStartsTheClockAndTheShareIsHalfAgain() {
        var pacer = fullRatePacer()
        _ = packets(seconds: 1, pacer: &pacer)
        pacer.reset()
        #expect(pacer.packetsDue(now: 60_000_000_000, bitsPerSecond: 150_000, packetBytes: Self.packetBytes, addedBytes: 0) == 0)
        // Back at half the rate: 93.75 bytes a tick, the first 267-byte probe on the third.
        let due = (1...3).map { pacer.packetsDue(now: 60_000_000_000 + UInt64($0) * Self.tick, bitsPerSecond: 150_000, packetBytes: Self.packetBytes, addedBytes: 0) }
        #expect(due == [0, 0, 1])
    }
}
