import Testing
@testable import Quality

/// The estimator against the recorded traces: a sender following it over a simulated bottleneck
/// (`BandwidthTraceSimulation`), each trace with a fixed seed. The sender wants 2 Mbps; the clean
/// link carries 2.5 Mbps.
@Suite struct BandwidthTraceTests {
    static let cleanCapacity = 2_500_000.0
    static let wanted = 2_000_000.0
    static let cap = 500_000.0

    static func cleanRun() -> [BandwidthTraceSimulation.Sample] {
        var simulation = BandwidthTraceSimulation(capacity: { _ in cleanCapacity }, wantedBitrate: wanted)
        return simulation.run(seconds: 30)
    }

    @Test func onACleanLinkProbesReachWhatTheSenderWantsWithinTwoSeconds() {
        let samples = Self.cleanRun()
        #expect(samples.mean(1, 2) >= Self.wanted)
        // Growth stops at 1.5 × the acknowledged rate + 10 kbps (probes add a little to what is acknowledged).
        #expect(samples.between(2, 30).allSatisfy { $0 >= Self.wanted && $0 <= 1.02 * (1.5 * Self.wanted + 10_000) })
    }

    @Test(arguments: [300_000.0, 1_500_000.0])
    func aCapOf500kbpsIsFoundWithinFiveSeconds(startBitrate: Double) {
        var simulation = BandwidthTraceSimulation(capacity: { _ in Self.cap }, wantedBitrate: Self.wanted, startBitrate: startBitrate)
        let samples = simulation.run(seconds: 30)
        let average = samples.mean(5, 30)
        #expect(abs(average - Self.cap) <= 0.15 * Self.cap, "mean \(average) from 5 s on")
        // The sawtooth of delay-based control: a cut to 85 % of the acknowledged rate, a climb back.
        for (offset, second) in samples.secondMeans(5, 30).enumerated() {
            #expect(second >= 0.75 * Self.cap && second <= 1.1 * Self.cap, "second \(5 + offset): \(second)")
        }
    }

    @Test func aPolicerUnderOneFixedEncodingIsFoundWithoutTheEstimateCollapsing() {
        // 1.2 Mbps forwarded as it comes into a 500 kbps policer (a queue of two packets): 58 % loss.
        var simulation = BandwidthTraceSimulation(capacity: { _ in Self.cap }, wantedBitrate: 1_200_000, startBitrate: 1_000_000)
        simulation.followsEstimate = false
        simulation.queueLimitBytes = 2400
        let samples = simulation.run(seconds: 20)
        for (offset, second) in samples.secondMeans(5, 20).enumerated() {
            #expect(second >= 0.7 * Self.cap && second <= 1.15 * Self.cap, "second \(5 + offset): \(second)")
        }
    }

    /// The bench's `bandwidth` scenario on a kernel-shaped link: one 832 kbps encoding (a key frame
    /// nine frames big every 5 s) forwarded as it comes into a 300 kbps drop-tail queue of 200 ms
    /// (7,500 bytes), 64 % lost. What arrives is the queue's rate, and the estimate stays there: it
    /// held at 0.85 of it while the floor of the loss-based ceiling was 85 % of the acknowledged rate
    /// (0.66-0.70 of the kernel's cap, whose rate counts the headers too), which the issue's
    /// 0.8-1.0 × target missed.
    @Test func oneFixedEncodingIntoAFullDropTailQueueIsEstimatedAtTheQueuesRate() {
        let cap = 300_000.0
        var simulation = BandwidthTraceSimulation(
            capacity: { $0 >= 10 && $0 < 20 ? cap : 2_000_000 }, wantedBitrate: 832_000, startBitrate: 1_000_000)
        simulation.followsEstimate = false
        simulation.queueLimitBytes = 7_500
        simulation.frames = (framesPerSecond: 30, keyFrameInterval: 5, keyFrameMultiple: 9)
        let samples = simulation.run(seconds: 30)
        let found = samples.first { $0.time >= 10 && $0.estimate <= 1.15 * cap }.map { $0.time - 10 }
        #expect(found.map { $0 <= 2 } == true, "the cap found after \(found.map { "\($0) s" } ?? "never")")
        for (offset, second) in samples.secondMeans(12, 20).enumerated() {
            #expect(second >= 0.9 * cap && second <= 1.1 * cap, "second \(12 + offset): \(second)")
        }
        let back = samples.first { $0.time >= 20 && $0.estimate >= 0.85 * 832_000 }.map { $0.time - 20 }
        #expect(back.map { $0 <= 10 } == true, "back after \(back.map { "\($0) s" } ?? "never")")
    }

    @Test func aCapThatDropsAndRecoversIsFollowedBothWays() {
        let clean = Self.cleanRun().mean(10, 15)
        var simulation = BandwidthTraceSimulation(
            capacity: { $0 < 15 || $0 >= 30 ? Self.cleanCapacity : Self.cap }, wantedBitrate: Self.wanted)
        let samples = simulation.run(seconds: 45)
        #expect(abs(samples.mean(15, 15.2) - clean) < 0.05 * clean, "not yet cut")
        let capped = samples.mean(20, 30)
        #expect(abs(capped - Self.cap) <= 0.15 * Self.cap, "mean under the cap \(capped)")
        #expect(samples.secondMeans(18, 30).allSatisfy { $0 <= 1.15 * Self.cap })
        // Back to 85 % of the clean rate well within 10 s of the cap's removal.
        let recovered = samples.first { $0.time >= 30 && $0.estimate >= 0.85 * clean }
        #expect(recovered != nil && recovered!.time - 30 <= 5, "recovered at \(recovered?.time ?? -1)")
        #expect(samples.mean(35, 45) >= 0.95 * clean)
    }

    @Test func twoPercentRandomLossCostsLessThanATenth() {
        let clean = Self.cleanRun().mean(5, 30)
        var simulation = BandwidthTraceSimulation(capacity: { _ in Self.cleanCapacity }, wantedBitrate: Self.wanted)
        simulation.lossProbability = { _ in 0.02 }
        let lossy = simulation.run(seconds: 30).mean(5, 30)
        #expect(lossy >= 0.9 * clean, "\(lossy) against \(clean)")
    }

    @Test func tenPercentRandomLossBendsTheEstimateWithoutCollapsingIt() {
        let clean = Self.cleanRun().mean(5, 30)
        var simulation = BandwidthTraceSimulation(capacity: { _ in Self.cleanCapacity }, wantedBitrate: Self.wanted)
        simulation.lossProbability = { _ in 0.10 }
        let samples = simulation.run(seconds: 30)
        let lossy = samples.mean(5, 30)
        #expect(lossy >= 0.5 * clean && lossy <= 0.9 * clean, "\(lossy) against \(clean)")
        #expect(samples.between(5, 30).allSatisfy { $0 >= 0.3 * clean })
    }

    @Test func jitterWithoutLossIsNotTakenForCongestion() {
        let clean = Self.cleanRun().mean(5, 30)
        var simulation = BandwidthTraceSimulation(capacity: { _ in Self.cleanCapacity }, wantedBitrate: Self.wanted)
        simulation.jitterMilliseconds = 20
        let samples = simulation.run(seconds: 30)
        #expect(samples.mean(5, 30) >= 0.75 * clean, "\(samples.mean(5, 30)) against \(clean)")
        #expect(samples.mean(15, 30) >= 0.93 * clean, "\(samples.mean(15, 30)) against \(clean)")
    }

    @Test func afterAStretchOfHeavyLossWhatArrivesCleanlyIsBelievedAtOnce() {
        // One 700 kbps encoding forwarded as it comes (key frames every 2 s), 30 % loss from 5 s to 10 s:
        // the loss-based ceiling comes down, and once loss is gone the rate that arrives without loss
        // lifts it, where growing 8 % a second would take the estimate ten seconds and more.
        var simulation = BandwidthTraceSimulation(capacity: { _ in Self.cleanCapacity }, wantedBitrate: 700_000, startBitrate: 1_000_000)
        simulation.followsEstimate = false
        simulation.frames = (30, 2, 10)
        simulation.lossProbability = { $0 >= 5 && $0 < 10 ? 0.3 : 0 }
        let samples = simulation.run(seconds: 20)
        #expect(samples.mean(8, 10) < 0.8 * 700_000, "the loss brought the ceiling down: \(samples.mean(8, 10))")
        let seconds = samples.secondMeans(12, 20)
        #expect(seconds.allSatisfy { $0 >= 0.95 * 700_000 }, "\(seconds.map { Int($0 / 1000) }) kbps from 12 s")
    }

    @Test func burstyVideoOnACleanLinkIsNotTakenForCongestion() {
        // Key frames ten times a delta frame's size, every frame's packets sent at once: each key frame
        // queues at a 2.5 Mbps bottleneck for ~130 ms. The estimate still never drops under what is sent.
        for capacity in [Self.cleanCapacity, 100_000_000] {
            var simulation = BandwidthTraceSimulation(capacity: { _ in capacity }, wantedBitrate: 1_000_000, startBitrate: 1_000_000)
            simulation.followsEstimate = false
            simulation.frames = (30, 2, 10)
            let seconds = simulation.run(seconds: 20).secondMeans(0, 20)
            #expect(seconds.allSatisfy { $0 >= 1_000_000 }, "capacity \(capacity): \(seconds.map { Int($0 / 1000) }) kbps")
        }
    }

    @Test func aKeyFrameBurstAtALayerSwitchIsNotTakenForCongestion() {
        // A router forwarding a 150 kbps layer switches to the 1 Mbps one at 5 s and at 15 s, each time
        // starting with a key frame of ~57 KB sent at once: at a 3 Mbps bottleneck it queues ~150 ms.
        // Judged as sent, that burst is overuse and cuts the estimate to 85 % of the 150 kbps
        // acknowledged (seen: 130 kbps), which would send the subscriber back down a layer.
        var simulation = BandwidthTraceSimulation(capacity: { _ in 3_000_000 }, wantedBitrate: 1_000_000, startBitrate: 1_000_000)
        simulation.followsEstimate = false
        simulation.frames = (30, 5, 15)
        simulation.queueLimitBytes = 75_000
        simulation.sendingBitrate = { ($0 >= 5 && $0 < 10) || $0 >= 15 ? 1_000_000 : 150_000 }
        let samples = simulation.run(seconds: 20)
        for start in [5.0, 15.0] {
            let lowest = samples.between(start, start + 2).min() ?? 0
            #expect(lowest >= 900_000, "lowest estimate \(Int(lowest)) in the 2 s after the switch at \(start) s")
        }
    }
}
