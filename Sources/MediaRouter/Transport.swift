import CSystemShims
import MediaControl
import Quality
import RTPWire
import SRTP

/// One client's network path. RTP and RTCP are multiplexed on one UDP 5-tuple (RFC 5761) and
/// protected with SRTP in each direction. A plain transport has a port of its own, SDES-style keys and
/// its client's address, given up front or learned from the first packet that authenticates. A WebRTC
/// transport (`webRTC` set) puts ICE-lite and DTLS-SRTP in front: the remote address is the one ICE
/// nominated, DTLS and media are accepted only from addresses ICE verified, and the SRTP keys come from
/// the DTLS handshake; its socket may be shared with the worker's other WebRTC transports.
///
/// The router sees either kind only through `handleDatagram` (in) and `sendRTP` / `sendRTCP` (out).
///
/// Confined to its worker's thread.
final class Transport {
    static let maximumPacketBytes = 1500

    let id: TransportID
    /// Nil for a recording transport, which forwards into `recording` instead.
    let socket: UDPSocket?
    unowned let worker: Worker
    weak var router: Router?
    var remote: IPv4Address?
    /// A plain transport created without a remote address follows its client: the source of any
    /// packet that authenticates becomes the remote, so a client whose address changed (Wi-Fi to 4G)
    /// is reached again by its first packet from the new one.
    let learnsRemote: Bool
    /// Media can flow: the remote address is known and, for WebRTC, the DTLS handshake gave the keys.
    var isConnected: Bool { (remote != nil && outbound != nil) || recording != nil }
    /// Where a recording transport's consumers forward to (`MediaControl.createRecordingTransport`).
    var recording: RecordingRing?
    var inbound: SRTPSession?
    var outbound: SRTPSession?
    /// ICE-lite and DTLS, for a WebRTC transport.
    let webRTC: WebRTCLink?
    /// ICE-TCP connections the transport's ICE verified, by their peer's address key: a send to one of
    /// those addresses goes out framed on that connection. A closed connection stays while its peer is
    /// the remote address, so sends to it are dropped rather than sent over UDP.
    var tcpConnections: [UInt64: ICETCPConnection] = [:]
    /// A test aid (`media.faultInjection`): the share of the RTP the transport carries (either way)
    /// dropped on purpose, spread evenly.
    var faultDropShare = 0.0
    /// Fault injection: a policer on the RTP the transport carries.
    var faultRateCap: FaultRateCap?
    private var faultDropCredit = 0.0

    /// Producers of this transport, and the same by the SSRCs they send with (their RTX SSRC included).
    private(set) var producers: [Producer] = []
    private(set) var producersBySSRC: [UInt32: Producer] = [:]
    /// Producers with layers named by rid, which learn their SSRCs from packets.
    private var producersLearningSSRCs: [Producer] = []
    /// Consumers of this transport by the SSRC the router sends them with.
    private(set) var consumersBySSRC: [UInt32: Consumer] = [:]
    /// A relay leg to another node, which overload shedding passes by (`PlainTransportOptions.isRelayLeg`).
    var isRelayLeg = false
    /// Overload shedding turned this subscriber's video off (Transport+Overload).
    var isVideoShed = false

    /// Bytes queued to the client and received from it, for rates and statistics.
    var bytesSent: UInt64 = 0
    private(set) var bytesReceived: UInt64 = 0
    /// Quality toward the client (from its receiver reports) and its audio-fallback policy.
    var downlink: LinkMonitor
    /// Quality from the client (from what arrives) and its audio-fallback policy.
    var uplink: LinkMonitor
    /// The header extension id of the transport-wide sequence number, when the client negotiated it:
    /// the router then numbers what it sends (`sendSideEstimation`, made on the first send) and
    /// reports what it receives (`arrivalFeedback`, made on the first packet that carries it).
    var transportWideSequenceID: UInt8? {
        didSet {
            guard transportWideSequenceID != oldValue else { return }
            sendSideEstimation = nil
            arrivalFeedback = nil
        }
    }
    /// How the consumers send audio that arrives as RFC 2198 redundant audio.
    var redundantAudio = RedundantAudioDelivery.primaryOnly {
        didSet { for consumer in consumersBySSRC.values { consumer.prepareForRedundantAudio() } }
    }
    /// Earlier frames the audio consumers repeat themselves in plain Opus packets toward a client that
    /// takes RED, from its latest downlink sample (`AddedAudioRedundancy`); 0 most of the time.
    var addedRedundantFrames = 0
    /// Bytes those repeated frames added to the audio sent so far, which the probe sends less for.
    var addedRedundancyBytes: UInt64 = 0
    /// Transport-wide congestion control toward the client.
    var sendSideEstimation: SendSideEstimation?
    /// Transport-wide feedback toward the client about what it sends.
    var arrivalFeedback: TransportFeedbackRecorder?
    /// What NACK-driven resends toward the client may take, at the downlink's estimated rate.
    var retransmissionBudget = RetransmissionBudget()
    /// The padding the audio-fallback probe sends while video is off for quality.
    var probePacer = ProbePacer()
    /// When the simulcast layers were last divided (Transport+Layers), until when they are held on
    /// the lowest layer, and until when below the top one (video back after a quick re-disable).
    var lastLayerAllocationAt: UInt64 = 0
    var layersHeldLowestUntil: UInt64?
    var topLayersWithheldUntil: UInt64?
    /// The probe for a held-back simulcast layer under way (Transport+Layers), and when the next may start.
    var layerProbe: (until: UInt64, credit: Double, lastAt: UInt64)?
    var nextLayerProbeAt: UInt64 = 0
    /// Consumers of simulcast producers on this transport: the layer timer work runs only when some are.
    private(set) var layeredConsumerCount = 0

    /// Indices of the worker's send slots queued for this transport; the worker flushes them.
    let pendingSends: UnsafeMutablePointer<UInt16>
    var pendingSendCount = 0

    init(
        id: TransportID, socket: UDPSocket?, worker: Worker, router: Router, remote: IPv4Address?,
        inbound: SRTPSession?, outbound: SRTPSession?, webRTC: WebRTCLink? = nil
    ) {
        self.id = id
        self.socket = socket
        self.worker = worker
        self.router = router
        self.remote = remote
        learnsRemote = remote == nil && webRTC == nil
        self.inbound = inbound
        self.outbound = outbound
        self.webRTC = webRTC
        pendingSends = .allocate(capacity: Worker.sendArenaSlots)
        downlink = LinkMonitor(configuration: worker.configuration.audioFallback)
        uplink = LinkMonitor(configuration: worker.configuration.audioFallback)
    }

    deinit {
        pendingSends.deallocate()
    }

    /// Starts reading the socket on the worker's thread, unless it is the worker's shared socket.
    func start() throws(MediaControlError) {
        guard let socket, socket !== worker.sharedSocket else { return }
        try worker.watch(socket, for: self)
    }

    /// Stops reading; the socket closes when the last reference goes.
    func close() {
        worker.unwatch(self)
        if let webRTC { closeWebRTC(webRTC) }
        producers.removeAll()
        producersBySSRC.removeAll()
        producersLearningSSRCs.removeAll()
        consumersBySSRC.removeAll()
        layeredConsumerCount = 0
    }

    func register(_ producer: Producer) {
        producers.append(producer)
        for ssrc in producer.ssrcs { producersBySSRC[ssrc] = producer }
        if producer.options.rtpStreamIDExtensionID != nil { producersLearningSSRCs.append(producer) }
    }

    func unregister(_ producer: Producer) {
        producers.removeAll { $0 === producer }
        producersLearningSSRCs.removeAll { $0 === producer }
        for ssrc in producer.ssrcs where producersBySSRC[ssrc] === producer { producersBySSRC[ssrc] = nil }
    }

    /// The producer whose rid-named layer takes a packet's new SSRC, if one does.
    private func producerLearningSSRC(of packet: RTPPacket) -> Producer? {
        for producer in producersLearningSSRCs where producer.learnSSRC(of: packet) {
            producersBySSRC[packet.ssrc] = producer
            return producer
        }
        return nil
    }

    func register(_ consumer: Consumer) {
        consumersBySSRC[consumer.ssrc] = consumer
        consumer.prepareForRedundantAudio()
        if isVideoShed, consumer.kind == .video { consumer.pause(.overload, now: MediaClock.monotonicNow()) }
        if consumer.layerSelector != nil { layeredConsumerCount += 1 }
    }

    func unregister(_ consumer: Consumer) {
        guard consumersBySSRC.removeValue(forKey: consumer.ssrc) != nil else { return }
        if consumer.layerSelector != nil { layeredConsumerCount -= 1 }
    }

    /// Handles one received datagram inline: checks, unprotects, and hands it to a producer (RTP) or to
    /// the RTCP handling of the router.
    func handleDatagram(_ slot: UnsafeMutablePointer<switchyard_datagram_slot>, now: UInt64) {
        guard let router else { return }
        let length = slot.pointee.length
        guard length <= Self.maximumPacketBytes else {
            router.drops.oversize += 1
            return
        }
        let buffer = UnsafeMutableRawBufferPointer(start: slot.pointee.buffer, count: slot.pointee.capacity)
        if let webRTC {
            guard handleWebRTCDatagram(slot, buffer: buffer, link: webRTC, router: router, now: now) else { return }
        } else if let remote, !remote.matches(slot), !learnsRemote {
            router.drops.wrongSource += 1
            return
        }
        // RFC 7983 / RFC 5761: RTP and RTCP start with 128...191; RTCP packet types 192...223 put the
        // second byte's low seven bits in 64...95.
        guard length >= 4, buffer[0] >= 128, buffer[0] <= 191 else {
            router.drops.notRTP += 1
            return
        }
        let isRTCP = (64...95).contains(buffer[1] & 0x7F)
        guard let inbound else {
            router.drops.beforeKeys += 1
            return
        }
        // Injected loss strikes before SRTP, as the network's would: a packet lost there never enters
        // the replay window, so its retransmission on the same SSRC is taken.
        if !isRTCP, dropsForFaultInjection(bytes: length) {
            router.drops.faultInjected += 1
            return
        }
        let plainLength: Int
        do throws(SRTPError) {
            plainLength = isRTCP ? try inbound.unprotectRTCP(buffer, length: length) : try inbound.unprotectRTP(buffer, length: length)
        } catch {
            router.countDrop(error)
            return
        }
        if learnsRemote, remote == nil || !remote!.matches(slot), let source = IPv4Address(slot: slot.pointee) {
            let isFirstAddress = remote == nil
            remote = source
            worker.events.yield(.transportConnected(id, remote: source.transportAddress))
            if isFirstAddress { startConsumersFromKeyFrames(now: now) }
        }
        if isRTCP {
            router.handleRTCP(UnsafeRawBufferPointer(rebasing: buffer[0..<plainLength]), from: self, now: now)
        } else {
            receiveRTP(buffer, length: plainLength, receivedAt: slot.pointee.received_nanoseconds, router: router, now: now)
        }
    }

    private func receiveRTP(_ buffer: UnsafeMutableRawBufferPointer, length: Int, receivedAt: UInt64, router: Router, now: UInt64) {
        let packet: RTPPacket
        do throws(RTPPacketError) {
            packet = try RTPPacket(parsing: buffer, length: length)
        } catch {
            router.drops.malformed += 1
            return
        }
        guard let producer = producersBySSRC[packet.ssrc] ?? producerLearningSSRC(of: packet) else {
            router.drops.unknownSSRC += 1
            return
        }
        bytesReceived &+= UInt64(length)
        if let id = transportWideSequenceID {
            if arrivalFeedback == nil { arrivalFeedback = TransportFeedbackRecorder(extensionID: id) }
            arrivalFeedback!.record(packet, now: now)
        }
        // How long the packet has waited since the kernel took it in: in the socket, and behind the
        // fan-out of the packets read in the same batch. Only publishers' media is judged: a
        // subscriber's socket, read just after its one report arrived, says nothing of the backlog.
        // No stamp, or a wall clock stepped back past it, is no measure (0).
        let elapsed = receivedAt == 0 ? 0 : MediaClock.realtimeNow() &- receivedAt
        let waited = elapsed < 1 << 62 ? elapsed : 0
        let isLate = waited > (producer.kind == .video ? worker.videoQueueLimit : worker.audioQueueLimit)
        worker.overload.observe(wait: waited, late: isLate)
        if isLate { router.drops.overloadLate += 1 }
        producer.receive(packet, now: now, isLate: isLate)
    }

    /// Protects the RTP packet in `slot` (written by the caller) and queues it, or for a recording
    /// transport copies it into the recording's ring stamped `now`. Returns false when there is no
    /// remote address yet or protection failed.
    @inline(__always)
    func sendRTP(slot: (index: Int, buffer: UnsafeMutableRawBufferPointer), length: Int, now: UInt64) -> Bool {
        if let recording {
            if !recording.push(UnsafeRawBufferPointer(rebasing: slot.buffer[0..<length]), forwardedAt: now) {
                router?.drops.recordingFull += 1
            }
            worker.releaseLastSendSlot(slot.index)
            return true
        }
        guard remote != nil, let outbound else {
            worker.releaseLastSendSlot(slot.index)
            return false
        }
        if dropsForFaultInjection(bytes: length) {
            worker.releaseLastSendSlot(slot.index)
            router?.drops.faultInjected += 1
            return true
        }
        do throws(SRTPError) {
            let protectedLength = try outbound.protectRTP(slot.buffer, length: length)
            worker.enqueue(slot: slot.index, length: protectedLength, on: self)
            return true
        } catch {
            worker.releaseLastSendSlot(slot.index)
            router?.drops.sendFailed += 1
            return false
        }
    }

    /// The transport has just become able to send: its video consumers, which forwarded nothing so
    /// far, start from a key frame asked for as a new receiver's (the throttle's short interval).
    func startConsumersFromKeyFrames(now: UInt64) {
        for consumer in consumersBySSRC.values where consumer.kind == .video && consumer.isForwarding {
            consumer.restartFromKeyFrame(now: now, asNewReceiver: true)
        }
    }

    /// Gives a packet about to be sent its transport-wide sequence number, when the client takes
    /// transport-wide feedback, and remembers the send.
    @inline(__always)
    func stampTransportSequence(_ packet: inout RTPPacket, now: UInt64, probeCluster: Int? = nil) {
        guard let id = transportWideSequenceID, remote != nil, let outbound else { return }
        if sendSideEstimation == nil { sendSideEstimation = SendSideEstimation(extensionID: id) }
        _ = sendSideEstimation!.stamp(
            &packet, wireOverhead: outbound.profile.rtpTrailerLength, now: now, probeCluster: probeCluster)
    }

    /// Builds an RTCP compound packet with `build`, protects it and queues it.
    func sendRTCP(_ build: (inout RTCPWriter) throws(RTCPError) -> Void) {
        guard remote != nil, let outbound else { return }
        let slot = worker.sendSlot()
        var writer = RTCPWriter(into: UnsafeMutableRawBufferPointer(rebasing: slot.buffer[0..<(Worker.sendSlotBytes - 64)]))
        do throws(RTCPError) {
            try build(&writer)
        } catch {
            worker.releaseLastSendSlot(slot.index)
            return
        }
        guard writer.offset > 0 else {
            worker.releaseLastSendSlot(slot.index)
            return
        }
        do throws(SRTPError) {
            let protectedLength = try outbound.protectRTCP(slot.buffer, length: writer.offset)
            worker.enqueue(slot: slot.index, length: protectedLength, on: self)
        } catch {
            worker.releaseLastSendSlot(slot.index)
        }
    }

    /// Whether fault injection drops the next RTP packet of `bytes`: one of the configured share, or
    /// one the policer has no room for. Costs two comparisons when no fault is set.
    @inline(__always)
    private func dropsForFaultInjection(bytes: Int) -> Bool {
        if faultDropShare > 0 {
            faultDropCredit += faultDropShare
            if faultDropCredit >= 1 {
                faultDropCredit -= 1
                return true
            }
        }
        return faultRateCap != nil && !faultRateCap!.admits(bytes: bytes)
    }
}
