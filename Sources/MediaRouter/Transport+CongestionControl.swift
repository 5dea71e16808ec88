import Quality
import RTPWire

extension Transport {
    /// Timer work of transport-wide congestion control: the feedback report due to the publisher;
    /// toward a subscriber, what the producers behind this transport's
    /// consumers send now (what the router would forward if the path allowed), the round trip, and
    /// the probe clusters the estimator asks for, sent as bursts of padding on a video consumer's
    /// retransmission stream (or, for a consumer without one, in its own sequence between frames).
    func tickCongestionControl(now: UInt64) {
        if arrivalFeedback?.isReportDue(now: now) == true, let senderSSRC = producers.first?.feedbackSSRC {
            sendRTCP { writer throws(RTCPError) in
                _ = try arrivalFeedback!.writeReport(senderSSRC: senderSSRC, now: now, into: &writer)
            }
        }
        guard sendSideEstimation != nil, isConnected else { return }
        var producerBytes: UInt64 = 0
        var prober: Consumer?
        for (ssrc, consumer) in consumersBySSRC where ssrc == consumer.ssrc && !consumer.isPausedByChoice {
            producerBytes &+= consumer.producer.bytesReceived
            if prober == nil, consumer.canProbe { prober = consumer }
        }
        sendSideEstimation!.updateDesiredBitrate(producerBytes: producerBytes, now: now)
        if let roundTrip = downlink.quality.roundTripSeconds { sendSideEstimation!.setRoundTrip(seconds: roundTrip) }
        guard let prober, let outbound else { return }
        let packetBytes = prober.probePacketBytes + outbound.profile.rtpTrailerLength
        guard let cluster = sendSideEstimation!.nextProbe(now: now, packetBytes: packetBytes) else { return }
        for _ in 0..<cluster.packetCount where !prober.sendProbePadding(now: now, probeCluster: cluster.id) { break }
    }
}
