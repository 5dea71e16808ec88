import Quality
import TestSupport

/// A subscriber's link driven by a loss timeline, reported on every `reportInterval` like a client's
/// receiver reports, through a `LinkMonitor` on a manual clock. What is sent depends on the policy's
/// own decisions: video plus audio while video is on, probe padding plus audio while it is off.
struct LinkSimulation {
    /// Packets and bytes per second of the stream the router forwards.
    static let videoPacketsPerSecond = 100.0
    static let videoBitrate = 600_000.0
    static let audioPacketsPerSecond = 50.0
    static let audioBitrate = 40_000.0

    var monitor: LinkMonitor
    var reportInterval: Double = 0.5
    private var generator: SeededGenerator

    init(configuration: AudioFallbackConfiguration = AudioFallbackConfiguration(), seed: UInt64 = 7) {
        monitor = LinkMonitor(configuration: configuration)
        _ = monitor.setEnabled(true)
        generator = SeededGenerator(seed: seed)
    }

    /// Runs from `start` to `end` seconds; `loss` gives the path's loss probability at a time.
    /// `eligible` says whether nobody's choice has the video off. Returns the actions with their times.
    mutating func run(
        from start: Double = 0, to end: Double, loss: (Double) -> Double, eligible: (Double) -> Bool = { _ in true }
    ) -> [(time: Double, action: AudioFallbackAction)] {
        var actions: [(Double, AudioFallbackAction)] = []
        var time = start + reportInterval
        while time <= end + 1e-9 {
            _ = monitor.setEligible(eligible(time))
            let probability = loss(time - reportInterval / 2)
            let videoOff = monitor.policy.isVideoOff
            let probeBitrate = Double(monitor.policy.configuration.probeBitrate)
            let packetsPerSecond = Self.audioPacketsPerSecond + (videoOff ? probeBitrate / 8 / 267 : Self.videoPacketsPerSecond)
            let bitrate = Self.audioBitrate + (videoOff ? probeBitrate : Self.videoBitrate)
            let expected = Int((packetsPerSecond * reportInterval).rounded())
            var lost = 0
            for _ in 0..<expected where Double.random(in: 0..<1, using: &generator) < probability { lost += 1 }
            let sample = QualitySample(
                intervalSeconds: reportInterval, packetsExpected: expected, packetsLost: lost,
                bytes: Int(bitrate / 8 * reportInterval), jitterSeconds: 0.005, roundTripSeconds: 0.05)
            if let action = monitor.record(sample, now: UInt64((time * 1e9).rounded())) {
                actions.append((time, action))
            }
            time += reportInterval
        }
        return actions
    }
}
