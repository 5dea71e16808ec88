import MediaControl
import SignalingProtocol

/// Builds the entries of an RTC stats report from the router's counters, with ids that link them
/// the way a browser's report does (`transportId`, `codecId`, `localId` / `remoteId`).
struct RTCStatsReportBuilder {
    let timestamp: Double
    let transportId: String
    private(set) var entries: [RTCStatsEntry] = []

    init(timestamp: Double, transportId: String) {
        self.timestamp = timestamp
        self.transportId = transportId
    }

    /// `outbound-rtp` for what the router sends a subscriber, and `remote-inbound-rtp` for what the
    /// subscriber reported receiving.
    mutating func addOutbound(consumer: ConsumerParameters, counters: ConsumerStatistics, layer: VideoLayerInfo? = nil) {
        let codecId = addCodec(name: consumer.codec.name, payloadType: consumer.codec.payloadType)
        let outboundId = "OT\(consumer.ssrc)"
        let remoteId = "RI\(consumer.ssrc)"
        var outbound = entry(outboundId, "outbound-rtp", ssrc: consumer.ssrc, kind: consumer.kind, codecId: codecId)
        outbound.packetsSent = counters.packetsSent
        outbound.bytesSent = counters.bytesSent
        outbound.retransmittedPacketsSent = counters.retransmittedPackets
        outbound.nackCount = counters.nacksReceived
        outbound.pliCount = counters.keyFrameRequestsReceived
        outbound.remoteId = remoteId
        outbound.frameWidth = layer?.width
        outbound.frameHeight = layer?.height
        outbound.framesPerSecond = layer?.frameRate
        entries.append(outbound)
        var remote = entry(remoteId, "remote-inbound-rtp", ssrc: consumer.ssrc, kind: consumer.kind, codecId: codecId)
        remote.packetsLost = counters.packetsLost
        remote.fractionLost = Double(counters.fractionLost) / 256
        remote.jitter = counters.jitterSeconds
        remote.roundTripTime = counters.roundTripTimeSeconds
        remote.localId = outboundId
        entries.append(remote)
    }

    /// `inbound-rtp` for what the router receives from a publisher.
    mutating func addInbound(track: TrackDescription, counters: ProducerStatistics) {
        let name = CodecName(track.codec)
        let codecId = addCodec(name: name, payloadType: track.payloadType)
        var inbound = entry("IT\(track.ssrc)", "inbound-rtp", ssrc: track.ssrc, kind: name.kind, codecId: codecId)
        inbound.packetsReceived = counters.packetsReceived
        inbound.bytesReceived = counters.bytesReceived
        inbound.packetsLost = counters.packetsLost
        inbound.jitter = counters.jitterSeconds
        inbound.nackCount = counters.nacksSent
        inbound.pliCount = counters.keyFrameRequestsSent
        entries.append(inbound)
    }

    /// `transport`, with the link's round trip and available bitrate.
    mutating func addTransport(_ transport: TransportStatistics, link: LinkStatistics) {
        var entry = RTCStatsEntry(id: transportId, type: "transport", timestamp: timestamp)
        entry.bytesSent = transport.bytesSent
        entry.bytesReceived = transport.bytesReceived
        entry.currentRoundTripTime = link.roundTripTimeSeconds
        entry.availableOutgoingBitrate = link.availableBitrate
        entries.append(entry)
    }

    private mutating func addCodec(name: CodecName, payloadType: UInt8) -> String {
        let id = "C\(transportId)_\(payloadType)"
        guard !entries.contains(where: { $0.id == id }) else { return id }
        var codec = RTCStatsEntry(id: id, type: "codec", timestamp: timestamp)
        codec.mimeType =
            switch name {
            case .opus: "audio/opus"
            case .vp8: "video/VP8"
            case .h264: "video/H264"
            }
        codec.payloadType = payloadType
        codec.clockRate = name.clockRate
        codec.transportId = transportId
        entries.append(codec)
        return id
    }

    private func entry(_ id: String, _ type: String, ssrc: UInt32, kind: MediaKind, codecId: String) -> RTCStatsEntry {
        var entry = RTCStatsEntry(id: id, type: type, timestamp: timestamp)
        entry.ssrc = ssrc
        entry.kind = kind.rawValue
        entry.transportId = transportId
        entry.codecId = codecId
        return entry
    }
}
