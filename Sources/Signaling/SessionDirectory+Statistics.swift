import MediaControl
import SignalingProtocol

extension SessionDirectory {
    /// What the router measured for one of this connection's subscribers.
    public func statistics(sessionId: String, connectionId: String, subscriberId: String) async throws(SignalingError) -> SubscriberStatistics {
        let subscriber = try ownedSubscriber(subscriberId, by: connectionId, in: sessionId)
        return try await statistics(of: subscriber, in: sessionId)
    }

    /// What the router measured for any subscriber of the session (the app's backend, over REST).
    public func statistics(sessionId: String, subscriberId: String) async throws(SignalingError) -> SubscriberStatistics {
        guard let subscriber = sessions[sessionId]?.subscribers[subscriberId] else {
            throw SignalingError(.notFound, "no subscriber \(subscriberId) in session \(sessionId)")
        }
        return try await statistics(of: subscriber, in: sessionId)
    }

    /// What the router receives of one of this connection's streams.
    public func publisherStatistics(sessionId: String, connectionId: String, streamId: String) async throws(SignalingError) -> PublisherStatistics {
        let stream = try ownedStream(streamId, by: connectionId, in: sessionId)
        return try await statistics(of: stream, in: sessionId)
    }

    /// What the router receives of any stream of the session (the app's backend, over REST).
    public func publisherStatistics(sessionId: String, streamId: String) async throws(SignalingError) -> PublisherStatistics {
        guard let stream = sessions[sessionId]?.streams[streamId] else {
            throw SignalingError(.notFound, "no stream \(streamId) in session \(sessionId)")
        }
        return try await statistics(of: stream, in: sessionId)
    }

    private func routerStatistics(of sessionId: String) async throws(SignalingError) -> RouterStatistics {
        let routerID = try await router(of: sessionId)
        do {
            return try await media.statistics(router: routerID)
        } catch {
            throw Self.mediaError(error)
        }
    }

    private func statistics(of subscriber: SubscriberState, in sessionId: String) async throws(SignalingError) -> SubscriberStatistics {
        let measured = try await routerStatistics(of: sessionId)
        let timestamp = nowMilliseconds
        let transport = measured.transports.first { $0.transportID == subscriber.transportID }
        var report = RTCStatsReportBuilder(timestamp: Double(timestamp), transportId: "T\(subscriber.transportID.rawValue)")
        let layerInfo = sessions[sessionId]?.streams[subscriber.streamId]?.info.videoLayers
        func track(_ consumer: ConsumerParameters?) -> TrackStatistics? {
            guard let consumer, let counters = measured.consumers.first(where: { $0.consumerID == consumer.consumerID }) else { return nil }
            let lost = UInt64(max(0, counters.packetsLost))
            let received = counters.packetsSent - min(counters.packetsSent, lost)
            let bytesReceived = counters.packetsSent == 0 ? 0 : UInt64(Double(counters.bytesSent) * Double(received) / Double(counters.packetsSent))
            let layers = counters.layer.flatMap { state in
                layerInfo.map { Self.layerChange(state, layers: $0, subscriber: subscriber) } ?? nil
            }
            report.addOutbound(consumer: consumer, counters: counters, layer: layers?.layer)
            var statistics = TrackStatistics(
                packetsSent: counters.packetsSent, bytesSent: counters.bytesSent, packetsReceived: received, packetsLost: counters.packetsLost,
                fractionLost: Double(counters.fractionLost) / 256, jitterSeconds: counters.jitterSeconds,
                roundTripTimeSeconds: counters.roundTripTimeSeconds, retransmittedPackets: counters.retransmittedPackets,
                nacksReceived: counters.nacksReceived, keyFrameRequestsReceived: counters.keyFrameRequestsReceived,
                bytesReceived: bytesReceived, probePacketsSent: counters.probePacketsSent)
            statistics.retransmissionsOverBudget = counters.retransmissionsOverBudget
            if consumer.kind == .audio {
                statistics.redundantPacketsSent = counters.redundantPacketsSent
                statistics.redundancyAddedPackets = counters.redundancyAddedPackets
            }
            statistics.layer = layers?.layer
            statistics.targetLayer = layers?.targetLayer
            statistics.layerReason = layers?.reason
            return statistics
        }
        let audio = track(subscriber.audio)
        let video = track(subscriber.video)
        if let transport { report.addTransport(transport, link: transport.downlink) }
        return SubscriberStatistics(
            subscriberId: subscriber.id, streamId: subscriber.streamId, timestamp: timestamp, audio: audio, video: video,
            quality: transport.map { Self.report($0.downlink) }, rtcStatsReport: report.entries)
    }

    private func statistics(of stream: StreamState, in sessionId: String) async throws(SignalingError) -> PublisherStatistics {
        let measured = try await routerStatistics(of: sessionId)
        let timestamp = nowMilliseconds
        let transport = measured.transports.first { $0.transportID == stream.transportID }
        var report = RTCStatsReportBuilder(timestamp: Double(timestamp), transportId: "T\(stream.transportID.rawValue)")
        func track(_ published: PublishedTrack?) -> PublishedTrackStatistics? {
            guard let published, let counters = measured.producers.first(where: { $0.producerID == published.producerID }) else { return nil }
            report.addInbound(track: published.description, counters: counters)
            var statistics = PublishedTrackStatistics(
                packetsReceived: counters.packetsReceived, bytesReceived: counters.bytesReceived, packetsLost: counters.packetsLost,
                jitterSeconds: counters.jitterSeconds, nacksSent: counters.nacksSent, keyFrameRequestsSent: counters.keyFrameRequestsSent)
            if counters.kind == .audio {
                statistics.audioLevel = counters.audioLevel
                statistics.speaking = counters.speaking
                statistics.packetsHeldBack = counters.packetsHeldBack
                statistics.heldBackAsQuieter = counters.heldBackAsQuieter
                statistics.redundantPacketsReceived = counters.redundantPacketsReceived
                statistics.unforwardableRedundantPackets = counters.unforwardableRedundantPackets
            }
            return statistics
        }
        let audio = track(stream.audio)
        let video = track(stream.video)
        if let transport { report.addTransport(transport, link: transport.uplink) }
        return PublisherStatistics(
            streamId: stream.info.streamId, timestamp: timestamp, audio: audio, video: video,
            quality: transport.map { Self.report($0.uplink) }, rtcStatsReport: report.entries)
    }

    private static func report(_ link: LinkStatistics) -> LinkQualityReport {
        LinkQualityReport(
            score: link.score, lossFraction: link.lossFraction, jitterSeconds: link.jitterSeconds,
            roundTripTimeSeconds: link.roundTripTimeSeconds, deliveredBitrate: link.deliveredBitrate,
            availableBitrate: link.availableBitrate, availableBitrateSource: link.availableBitrateSource,
            audioFallbackState: link.audioFallbackState, samples: link.samples)
    }
}
