import Quality
import RTPWire

/// Transport-wide congestion control toward one subscriber: numbers every RTP packet the router sends
/// on the transport (media, retransmissions, padding, probes), remembers when each left, and turns
/// the subscriber's transport-wide feedback into the estimate of what its downlink carries.
///
/// Confined to its worker's thread with its transport.
struct SendSideEstimation {
    /// The header extension id both sides agreed on for the transport-wide sequence number.
    let extensionID: UInt8
    private(set) var estimator: SendSideBandwidthEstimator
    private var history = SentPacketHistory()
    private var nextSequenceNumber = UInt16.random(in: 0...UInt16.max)
    /// The newest sequence number feedback has been taken for: each packet is judged once.
    private var newestJudged: UInt16?
    /// The last reference time, unwrapped, in the feedback's 64 ms units.
    private var lastReferenceTime: Int64?
    private(set) var feedbackReceived: UInt64 = 0
    private var desiredSample: (time: UInt64, bytes: UInt64)?

    init(extensionID: UInt8, configuration: BandwidthEstimatorConfiguration = BandwidthEstimatorConfiguration()) {
        self.extensionID = extensionID
        estimator = SendSideBandwidthEstimator(configuration: configuration)
    }

    /// Takes the next sequence number for a packet about to leave and records its send.
    mutating func stamp(_ packet: inout RTPPacket, wireOverhead: Int, now: UInt64, probeCluster: Int?) -> Bool {
        let sequenceNumber = nextSequenceNumber
        do throws(RTPPacketError) {
            try packet.setTransportSequenceNumber(sequenceNumber, id: extensionID)
        } catch {
            return false
        }
        nextSequenceNumber &+= 1
        history.record(
            sequenceNumber: sequenceNumber, sendTime: now, size: packet.length + wireOverhead, probeCluster: probeCluster)
        return true
    }

    /// Folds in one feedback message; returns the new estimate.
    mutating func received(_ feedback: RTCPTransportFeedback, now: UInt64) -> Double {
        feedbackReceived &+= 1
        var arrival = unwrappedReferenceTime(feedback.referenceTime) * Int64(RTCPTransportFeedback.referenceTimeUnitMicroseconds) * 1000
        for result in feedback.packetResults {
            let received = result.status != .notReceived
            if received { arrival += Int64(result.receiveDeltaMicroseconds) * 1000 }
            if let newest = newestJudged, !SequenceArithmetic.isNewer(result.sequenceNumber, than: newest) { continue }
            guard let sent = history.send(of: result.sequenceNumber) else { continue }
            newestJudged = result.sequenceNumber
            estimator.record(
                PacketFeedback(sendTime: sent.sendTime, arrivalTime: received ? arrival : nil, size: sent.size,
                    probeCluster: sent.probeCluster))
        }
        return estimator.finishFeedback(now: now)
    }

    /// Measures what the transport's producers send now (bytes received by them, summed), which is
    /// what the router would forward if the path allowed, and lets probes aim at it.
    mutating func updateDesiredBitrate(producerBytes: UInt64, now: UInt64) {
        guard let sample = desiredSample else {
            desiredSample = (now, producerBytes)
            return
        }
        let elapsed = now &- sample.time
        guard elapsed >= 1_000_000_000 else { return }
        desiredSample = (now, producerBytes)
        estimator.desiredBitrate = Double(producerBytes &- sample.bytes) * 8 / (Double(elapsed) / 1e9)
    }

    mutating func nextProbe(now: UInt64, packetBytes: Int) -> ProbeCluster? {
        estimator.nextProbe(now: now, packetBytes: packetBytes)
    }

    mutating func setRoundTrip(seconds: Double) {
        estimator.roundTripSeconds = seconds
    }

    private mutating func unwrappedReferenceTime(_ raw: Int32) -> Int64 {
        let value = Int64(raw)
        guard let last = lastReferenceTime else {
            lastReferenceTime = value
            return value
        }
        // 24-bit field: the nearest value congruent to `raw` modulo 2^24.
        var difference = (value - last) & 0xFF_FFFF
        if difference >= 0x80_0000 { difference -= 0x100_0000 }
        let unwrapped = last + difference
        lastReferenceTime = unwrapped
        return unwrapped
    }
}
