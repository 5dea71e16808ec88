import Quality
import TestSupport

/// A sender driven by a `SendSideBandwidthEstimator` over one simulated bottleneck, on a 1 ms clock:
/// the sender sends 1200-byte packets at the estimate (as an encoder or a layer choice would follow
/// it), capped at what it wants to send, and sends the estimator's probes as bursts; the bottleneck
/// serves at `capacity(t)` with a drop-tail queue, adds random loss and order-keeping jitter; the
/// receiver sends transport-wide feedback every `feedbackInterval` that reaches the sender one
/// propagation delay later. The traces of the tests are runs of this with fixed seeds.
struct BandwidthTraceSimulation {
    struct Sample {
        var time: Double
        var estimate: Double
        var capacity: Double
    }

    private struct Sent {
        var sendTime: UInt64
        var size: Int
        var probeCluster: Int?
        var arrival: Int64?
    }

    var capacity: (Double) -> Double
    var wantedBitrate: Double
    var lossProbability: (Double) -> Double = { _ in 0 }
    var jitterMilliseconds = 0.0
    var propagationMilliseconds = 25.0
    var queueLimitBytes = 60_000
    var feedbackInterval = 0.05
    /// Whether the sender follows the estimate; a router forwarding one encoding does not.
    var followsEstimate = true
    /// Sends video as an encoder makes it and a router forwards it: every frame's packets at once,
    /// `framesPerSecond` frames a second, every `keyFrameInterval` seconds a key frame
    /// `keyFrameMultiple` times a delta frame's size. Nil sends evenly, packet by packet.
    var frames: (framesPerSecond: Double, keyFrameInterval: Double, keyFrameMultiple: Double)?
    /// What a sender that does not follow the estimate sends at each second (a router switching
    /// simulcast layers): with `frames`, each change starts with a key frame. Nil sends `wantedBitrate`.
    var sendingBitrate: ((Double) -> Double)?
    var estimator: SendSideBandwidthEstimator
    private var generator: SeededGenerator
    /// The receiver's clock runs this far from the sender's: only differences may matter.
    private let receiverClockOffset: Int64 = 123_456_789_000

    init(
        capacity: @escaping (Double) -> Double, wantedBitrate: Double, startBitrate: Double = 300_000, seed: UInt64 = 11
    ) {
        self.capacity = capacity
        self.wantedBitrate = wantedBitrate
        estimator = SendSideBandwidthEstimator(configuration: BandwidthEstimatorConfiguration(startBitrate: startBitrate))
        generator = SeededGenerator(seed: seed)
    }

    /// Runs for `seconds` and returns the estimate after every feedback.
    mutating func run(seconds: Double) -> [Sample] {
        let stepNanoseconds: UInt64 = 1_000_000
        let steps = Int(seconds * 1000)
        let packetBytes = 1200
        let propagation = UInt64(propagationMilliseconds * 1e6)
        var sent: [Sent] = []
        var departures: [(time: UInt64, size: Int)] = []
        var linkFreeAt: UInt64 = 0
        var lastArrival: UInt64 = 0
        var budget = 0.0
        var reportedUpTo = 0
        var nextFeedback = UInt64(feedbackInterval * 1e9)
        var pendingFeedback: [(deliverAt: UInt64, range: Range<Int>)] = []
        var samples: [Sample] = []
        var previousRate: Double?
        estimator.desiredBitrate = wantedBitrate
        estimator.roundTripSeconds = 2 * propagationMilliseconds / 1000

        func transmit(_ size: Int, cluster: Int?, now: UInt64, seconds: Double) {
            sent.append(Sent(sendTime: now, size: size, probeCluster: cluster, arrival: nil))
            departures.removeAll { $0.time <= now }
            let queued = departures.reduce(0) { $0 + $1.size }
            if Double.random(in: 0..<1, using: &generator) < lossProbability(seconds) { return }
            guard queued + size <= queueLimitBytes else { return }
            let departure = max(now, linkFreeAt) + UInt64(Double(size * 8) / capacity(seconds) * 1e9)
            linkFreeAt = departure
            departures.append((departure, size))
            let jitter = UInt64(Double.random(in: 0...max(jitterMilliseconds, 0), using: &generator) * 1e6)
            let arrival = max(lastArrival, departure + propagation + jitter)
            lastArrival = arrival
            sent[sent.count - 1].arrival = Int64(arrival) + receiverClockOffset
        }

        for step in 0..<steps {
            let now = UInt64(step) * stepNanoseconds
            let time = Double(step) / 1000
            if let probe = estimator.nextProbe(now: now) {
                for _ in 0..<probe.packetCount { transmit(packetBytes, cluster: probe.id, now: now, seconds: time) }
            }
            let rate = followsEstimate ? min(estimator.estimate, wantedBitrate) : sendingBitrate?(time) ?? wantedBitrate
            if let frames {
                let framePeriod = Int((1000 / frames.framesPerSecond).rounded())
                if step % framePeriod == 0 {
                    let keyPeriod = Int((frames.keyFrameInterval * 1000).rounded())
                    let switched = previousRate.map { $0 != rate } ?? false
                    previousRate = rate
                    let framesPerKeyPeriod = frames.keyFrameInterval * frames.framesPerSecond
                    // Delta frames shrink so that the key frames keep the mean at the rate.
                    let deltaBytes = rate * frames.keyFrameInterval / 8 / (framesPerKeyPeriod - 1 + frames.keyFrameMultiple)
                    budget += step % keyPeriod == 0 || switched ? deltaBytes * frames.keyFrameMultiple : deltaBytes
                    while budget > 0 {
                        let size = min(packetBytes, max(Int(budget), 100))
                        budget -= Double(size)
                        transmit(size, cluster: nil, now: now, seconds: time)
                    }
                }
            } else {
                budget += rate / 8 / 1000
                while budget >= Double(packetBytes) {
                    budget -= Double(packetBytes)
                    transmit(packetBytes, cluster: nil, now: now, seconds: time)
                }
            }
            if now >= nextFeedback {
                nextFeedback += UInt64(feedbackInterval * 1e9)
                // The receiver reports up to the last packet it has seen; later ones are still on the way.
                let receiverNow = Int64(now) + receiverClockOffset
                if let last = sent.lastIndex(where: { ($0.arrival ?? .max) <= receiverNow }), last >= reportedUpTo {
                    pendingFeedback.append((now + propagation, reportedUpTo..<(last + 1)))
                    reportedUpTo = last + 1
                }
            }
            while let first = pendingFeedback.first, first.deliverAt <= now {
                pendingFeedback.removeFirst()
                for packet in sent[first.range] {
                    estimator.record(
                        PacketFeedback(sendTime: packet.sendTime, arrivalTime: packet.arrival, size: packet.size,
                            probeCluster: packet.probeCluster))
                }
                samples.append(Sample(time: time, estimate: estimator.finishFeedback(now: now), capacity: capacity(time)))
            }
        }
        return samples
    }
}

extension Array where Element == BandwidthTraceSimulation.Sample {
    func between(_ start: Double, _ end: Double) -> [Double] {
        filter { $0.time >= start && $0.time < end }.map(\.estimate)
    }

    func mean(_ start: Double, _ end: Double) -> Double {
        let values = between(start, end)
        return values.reduce(0, +) / Double(Swift.max(values.count, 1))
    }

    /// The mean of each whole second from `start` to `end`.
    func secondMeans(_ start: Int, _ end: Int) -> [Double] {
        (start..<end).map { mean(Double($0), Double($0 + 1)) }
    }
}
