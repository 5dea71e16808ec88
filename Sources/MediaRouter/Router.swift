import MediaControl
import Quality
import RTPWire
import SRTP

/// The media side of one session on one worker. It only routes: transports bring packets in,
/// producers hand them to consumers, and RTCP from subscribers reaches the consumer it is about.
///
/// A session starts with one router, on its home worker. When a stream's audience grows past
/// `MediaRouterConfiguration.spreadThreshold`, new subscribers' transports go to the least-loaded
/// worker, where a router with the same id holds them, their consumers, and a copy of each producer
/// they receive (`relayedProducers`, fed through the workers' relay ring).
///
/// Confined to its worker's thread.
final class Router {
    /// The CNAME the router's own RTCP carries.
    static let canonicalName = "switchyard"

    let id: RouterID
    unowned let worker: Worker
    /// Whether this is the session's first router, on its home worker, rather than one it spread to.
    let isHome: Bool
    var transports: [TransportID: Transport] = [:]
    var producers: [ProducerID: Producer] = [:]
    var consumers: [ConsumerID: Consumer] = [:]
    /// Copies of producers whose home is another worker, for the consumers here.
    var relayedProducers: [ProducerID: Producer] = [:]
    var drops = DropCounters()
    var speakers = RouterSpeakers()
    private var lastSenderReportsAt: UInt64 = 0

    init(id: RouterID, worker: Worker, isHome: Bool = true) {
        self.id = id
        self.worker = worker
        self.isHome = isHome
    }

    func countDrop(_ error: SRTPError) {
        switch error {
        case .authenticationFailed: drops.authentication += 1
        case .replayed, .tooOld: drops.replay += 1
        default: drops.malformed += 1
        }
    }

    /// Handles an unprotected RTCP compound packet from `transport`.
    func handleRTCP(_ bytes: UnsafeRawBufferPointer, from transport: Transport, now: UInt64) {
        let compound: RTCPCompoundPacket
        do throws(RTCPError) {
            compound = try RTCPCompoundPacket(parsing: bytes)
        } catch {
            drops.malformed += 1
            return
        }
        for packet in compound {
            switch packet {
            case .senderReport(let report):
                if let producer = transport.producersBySSRC[report.senderSSRC] {
                    producer.receivedSenderReport(ssrc: report.senderSSRC, ntpTimestamp: report.ntpTimestamp, now: now)
                }
                receivedReportBlocks(report.reportBlocks, on: transport, now: now)
            case .receiverReport(let report):
                receivedReportBlocks(report.reportBlocks, on: transport, now: now)
            case .genericNACK(let nack):
                guard let consumer = transport.consumersBySSRC[nack.mediaSSRC] else { continue }
                consumer.nackReceived()
                nack.forEachLostSequenceNumber { sequenceNumber in
                    consumer.retransmit(consumerSequenceNumber: sequenceNumber, now: now)
                }
            case .pictureLossIndication(let request):
                transport.consumersBySSRC[request.mediaSSRC]?.keyFrameRequested(now: now)
            case .fullIntraRequest(let request):
                for item in request.items {
                    transport.consumersBySSRC[item.ssrc]?.keyFrameRequested(now: now)
                }
            case .malformed:
                drops.malformed += 1
            case .receiverEstimatedMaximumBitrate(let estimate):
                transport.downlink.recordReceiverEstimate(bitsPerSecond: Double(estimate.bitrate))
            case .transportFeedback(let feedback):
                guard transport.sendSideEstimation != nil else { continue }
                let estimate = transport.sendSideEstimation!.received(feedback, now: now)
                transport.downlink.recordSenderEstimate(bitsPerSecond: estimate)
            case .sourceDescription, .bye:
                continue
            }
        }
    }

    /// Hands each block to its consumer, and what they add up to to the transport's downlink quality.
    private func receivedReportBlocks(_ blocks: some Sequence<RTCPReportBlock>, on transport: Transport, now: UInt64) {
        var arrival: UInt32?
        var total = ReportInterval(packetsExpected: 0, packetsLost: 0)
        var jitter: Double?
        var roundTrip: Double?
        var aboutConsumers = false
        for block in blocks {
            guard let consumer = transport.consumersBySSRC[block.ssrc] else { continue }
            let compact = arrival ?? ReceiverStatistics.compactNTP(fromNTPTimestamp: MediaClock.ntpNow())
            arrival = compact
            aboutConsumers = true
            if let interval = consumer.received(block, arrivalCompactNTP: compact) { total = total + interval }
            if let reported = consumer.reportedJitterSeconds { jitter = max(jitter ?? 0, reported) }
            if let measured = consumer.roundTripTimeSeconds { roundTrip = max(roundTrip ?? 0, measured) }
        }
        guard aboutConsumers else { return }
        transport.downlinkReport(total, jitterSeconds: jitter, roundTripSeconds: roundTrip, now: now)
    }

    /// Timer work for every producer and consumer.
    func tick(now: UInt64) {
        let configuration = worker.configuration
        let reportInterval = UInt64(configuration.reportInterval.nanoseconds)
        let idleTimeout = UInt64(configuration.producerIdleTimeout.nanoseconds)
        for producer in producers.values {
            producer.tick(now: now, reportInterval: reportInterval, idleTimeout: idleTimeout)
        }
        for copy in relayedProducers.values {
            copy.tick(now: now, reportInterval: reportInterval, idleTimeout: idleTimeout)
        }
        for transport in transports.values {
            transport.tickQuality(now: now)
            transport.tickWebRTC(now: now)
            transport.tickCongestionControl(now: now)
            transport.tickLayers(now: now)
            transport.tickRecording(now: now)
        }
        tickSpeakers(now: now)
        if now - lastSenderReportsAt >= reportInterval {
            lastSenderReportsAt = now
            let ntpNow = MediaClock.ntpNow()
            for consumer in consumers.values where consumer.isForwarding {
                consumer.sendSenderReport(ntpNow: ntpNow, now: now)
            }
        }
    }

    /// Closes everything: transports stop reading and release their sockets when the last reference goes.
    func close() {
        for transport in transports.values { transport.close() }
        consumers.removeAll()
        producers.removeAll()
        relayedProducers.removeAll()
        transports.removeAll()
    }

    func statistics() -> RouterStatistics {
        RouterStatistics(
            routerID: id,
            producers: producers.values.map { $0.snapshot() }.sorted { $0.producerID.rawValue < $1.producerID.rawValue },
            consumers: consumers.values.map { $0.snapshot() }.sorted { $0.consumerID.rawValue < $1.consumerID.rawValue },
            drops: drops.byReason,
            transports: transports.values.map { $0.snapshot() }.sorted { $0.transportID.rawValue < $1.transportID.rawValue },
            dominantSpeaker: isHome ? speakers.dominant.dominant : nil)
    }
}
