import DTLS
import ICE
import MediaControl
import SRTP
import Synchronization

/// The media plane: workers, and the `MediaControl` surface signaling drives it through. Each request
/// finds the worker that owns its object in a registry and hops onto that worker's thread; the packet
/// path itself never touches the registry.
public final class MediaPlane: MediaControl {
    public let events: AsyncStream<MediaEvent>
    public let configuration: MediaRouterConfiguration
    private let eventContinuation: AsyncStream<MediaEvent>.Continuation
    let workers: [Worker]
    /// Each worker's ICE-TCP port, when `webRTCTCPPort` is set.
    public let tcpPorts: [UInt16]
    private let registry: Mutex<Registry>
    /// DTLS for every WebRTC transport, with the certificate this run of the daemon made.
    let dtls: DTLSContext

    /// The relay rings between workers, made when a router first spreads between two of them.
    let relayRings: RelayRingTable

    /// Where each object lives. Only the control path reads or writes it.
    private struct Registry {
        var nextID: UInt64 = 1
        var nextWorker = 0
        var nextPort: UInt16 = 0
        /// Each router's home worker, and every worker holding a router of that id (home included).
        var routers: [RouterID: Int] = [:]
        var routerWorkers: [RouterID: Set<Int>] = [:]
        var transports: [TransportID: Placement] = [:]
        var producers: [ProducerID: ProducerEntry] = [:]
        var consumers: [ConsumerID: ConsumerEntry] = [:]
        var consumersPerWorker: [Int]
        /// Producers a new transport was placed to receive and has not consumed yet, and its worker:
        /// counted in their audience and the worker's load from placement on, so subscribers joining
        /// at once spread as if they had joined one after another.
        var expectedConsumers: [TransportID: (worker: Int, producers: [ProducerID])] = [:]

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }

        /// Forgets a consumer and what it added to its worker's load and its producer's audience.
        mutating func removeConsumer(_ id: ConsumerID) {
            guard let entry = consumers.removeValue(forKey: id) else { return }
            consumersPerWorker[entry.placement.worker] -= 1
            producers[entry.producer]?.audience -= 1
        }

        /// Gives back what a transport's placement counted for consumers it never made.
        mutating func releaseExpected(of transport: TransportID) {
            guard let expected = expectedConsumers.removeValue(forKey: transport) else { return }
            consumersPerWorker[expected.worker] -= expected.producers.count
            for producer in expected.producers { producers[producer]?.audience -= 1 }
        }
    }

    /// A router and the worker an object of it lives on.
    private struct Placement: Equatable {
        var router: RouterID
        var worker: Int
    }

    private struct ProducerEntry {
        var placement: Placement
        var options: ProducerOptions
        /// Consumers of the producer on every worker.
        var audience = 0
        /// Workers other than its own that hold a copy.
        var copies: Set<Int> = []
    }

    private struct ConsumerEntry {
        var placement: Placement
        var producer: ProducerID
    }

    public init(configuration: MediaRouterConfiguration) throws(MediaControlError) {
        guard configuration.workerCount >= 1 else {
            throw .invalidParameters(reason: "workerCount must be at least 1, not \(configuration.workerCount)")
        }
        guard IPv4Address(configuration.listenAddress) != nil else {
            throw .invalidParameters(reason: "listenAddress \"\(configuration.listenAddress)\" is not an IPv4 address")
        }
        self.configuration = configuration
        do throws(DTLSError) {
            dtls = try DTLSContext(certificate: DTLSCertificate())
        } catch {
            throw .invalidParameters(reason: "DTLS: \(error)")
        }
        let (events, continuation) = AsyncStream.makeStream(of: MediaEvent.self, bufferingPolicy: .bufferingNewest(4096))
        self.events = events
        eventContinuation = continuation
        guard configuration.spreadThreshold >= 0 else {
            throw .invalidParameters(reason: "spreadThreshold must be 0 (never spread) or more, not \(configuration.spreadThreshold)")
        }
        guard configuration.relayRingCapacity >= 16 else {
            throw .invalidParameters(reason: "relayRingCapacity must be at least 16, not \(configuration.relayRingCapacity)")
        }
        registry = Mutex(Registry(consumersPerWorker: Array(repeating: 0, count: configuration.workerCount)))
        relayRings = RelayRingTable(workerCount: configuration.workerCount, ringCapacity: configuration.relayRingCapacity)
        var workers: [Worker] = []
        var tcpPorts: [UInt16] = []
        for index in 0..<configuration.workerCount {
            let worker = try Worker(index: index, configuration: configuration, relayRings: relayRings, events: continuation)
            // Before the worker starts, its thread is the caller's.
            if let port = configuration.webRTCTCPPort {
                try worker.openTCPListener(address: configuration.listenAddress, port: port == 0 ? 0 : port &+ UInt16(index))
                tcpPorts.append(worker.tcpListener!.localPort)
            }
            workers.append(worker)
        }
        self.workers = workers
        self.tcpPorts = tcpPorts
        for worker in workers {
            worker.peerWakeDescriptors = workers.map(\.wakeDescriptor)
            worker.start()
        }
        if let port = configuration.webRTCSharedPort {
            for worker in workers {
                let workerPort = port &+ UInt16(worker.index)
                let opened: MediaControlError? = worker.performAndWait {
                    do throws(MediaControlError) {
                        try worker.openSharedSocket(address: configuration.listenAddress, port: workerPort)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let opened {
                    shutdown()
                    throw opened
                }
            }
        }
    }

    /// The SHA-256 fingerprint of this run's DTLS certificate.
    public var certificateFingerprint: CertificateFingerprint {
        CertificateFingerprint(algorithm: "sha-256", bytes: dtls.certificate.sha256Fingerprint)
    }

    /// The same, as SDP writes it (`sha-256 AB:CD:...`), for the start-up log.
    public var certificateFingerprintText: String { dtls.certificate.sdpFingerprint }

    /// Stops every worker and closes every router.
    public func shutdown() {
        for worker in workers {
            worker.performAndWait {
                for router in worker.routers.values { router.close() }
                worker.routers.removeAll()
            }
            worker.stop()
        }
        eventContinuation.finish()
    }

    public func createRouter() async throws(MediaControlError) -> RouterID {
        let (id, workerIndex) = registry.withLock { registry in
            let id = RouterID(rawValue: registry.makeID())
            let workerIndex = registry.nextWorker
            registry.nextWorker = (workerIndex + 1) % workers.count
            registry.routers[id] = workerIndex
            registry.routerWorkers[id] = [workerIndex]
            return (id, workerIndex)
        }
        let worker = workers[workerIndex]
        await onThread(of: worker) { worker.routers[id] = Router(id: id, worker: worker) }
        return id
    }

    public func closeRouter(_ routerID: RouterID) async throws(MediaControlError) {
        _ = try worker(of: routerID)
        let holders: Set<Int> = registry.withLock { registry in
            registry.routers[routerID] = nil
            for (id, placement) in registry.transports where placement.router == routerID { registry.releaseExpected(of: id) }
            registry.transports = registry.transports.filter { $0.value.router != routerID }
            registry.producers = registry.producers.filter { $0.value.placement.router != routerID }
            for (id, entry) in registry.consumers where entry.placement.router == routerID { registry.removeConsumer(id) }
            return registry.routerWorkers.removeValue(forKey: routerID) ?? []
        }
        for index in holders.sorted() {
            let worker = workers[index]
            await onThread(of: worker) { worker.closeRouter(routerID) }
        }
    }

    public func createPlainTransport(
        router routerID: RouterID, options: PlainTransportOptions, toConsume: [ProducerID]
    ) async throws(MediaControlError) -> PlainTransportParameters {
        let clientProfile = try Self.profile(named: options.clientSRTP.profile, parameter: .srtpProfile)
        let routerProfile = try options.routerProfile.map { name throws(MediaControlError) in try Self.profile(named: name, parameter: nil) }
            ?? clientProfile
        let clientKeys: SRTPKeyMaterial
        do throws(SRTPError) {
            clientKeys = try SRTPKeyMaterial(profile: clientProfile, sdesKeyParameter: options.clientSRTP.keyParameter)
        } catch {
            throw .invalidParameter(.srtpKey, problem: "\(error)")
        }
        var remote: IPv4Address?
        if let address = options.remoteAddress {
            guard let parsed = IPv4Address(address.host, port: address.port) else {
                throw .invalidParameter(.remoteAddress, problem: "\"\(address.host)\" is not an IPv4 address")
            }
            remote = parsed
        }
        if let id = options.transportWideSequenceID, !(1...14).contains(id) {
            throw .invalidParameter(.transportWideSequenceID, problem: "must be a one-byte header extension id (1-14), not \(id)")
        }
        if case .redundant(let payloadType) = options.redundantAudio, !(35...63).contains(payloadType), !(96...127).contains(payloadType) {
            throw .invalidParameter(.redundantAudioPayloadType, problem: "must be a dynamic payload type (35-63 or 96-127), not \(payloadType)")
        }
        let routerKeys: SRTPKeyMaterial
        if let chosen = options.routerSRTP {
            let profile = try Self.profile(named: chosen.profile, parameter: nil)
            do throws(SRTPError) {
                routerKeys = try SRTPKeyMaterial(profile: profile, sdesKeyParameter: chosen.keyParameter)
            } catch {
                throw .invalidParameters(reason: "the router's chosen SRTP key: \(error)")
            }
        } else {
            routerKeys = SRTPKeyMaterial.random(profile: routerProfile)
        }
        let configuration = configuration
        let (id, port, _) = try await addTransport(to: routerID, toConsume: toConsume) { id, startPort, router, worker throws(MediaControlError) in
            let socket = try UDPSocket(address: configuration.listenAddress, portRange: configuration.portRange, startingAt: startPort)
            let inbound: SRTPSession
            let outbound: SRTPSession
            do throws(SRTPError) {
                inbound = try SRTPSession(keyMaterial: clientKeys, direction: .inbound, replayWindowSize: configuration.replayWindowSize)
                outbound = try SRTPSession(keyMaterial: routerKeys, direction: .outbound)
            } catch {
                throw .invalidParameters(reason: "SRTP: \(error)")
            }
            let transport = Transport(
                id: id, socket: socket, worker: worker, router: router, remote: remote, inbound: inbound, outbound: outbound)
            transport.transportWideSequenceID = options.transportWideSequenceID
            transport.redundantAudio = options.redundantAudio
            transport.isRelayLeg = options.isRelayLeg
            return transport
        }
        advancePortSearch(past: port)
        return PlainTransportParameters(
            transportID: id, localAddress: TransportAddress(host: configuration.announcedAddress ?? configuration.listenAddress, port: port),
            routerSRTP: SRTPParameters(profile: routerKeys.profile.rawValue, keyParameter: routerKeys.sdesKeyParameter))
    }

    public func createWebRTCTransport(
        router routerID: RouterID, toConsume: [ProducerID]
    ) async throws(MediaControlError) -> WebRTCTransportParameters {
        let local = ICECredentials.random()
        let connection: DTLSConnection
        do throws(DTLSError) {
            connection = try DTLSConnection(context: dtls)
        } catch {
            throw .invalidParameters(reason: "DTLS: \(error)")
        }
        let configuration = configuration
        let link = UncheckedSendableBox(connection)
        let (id, port, workerIndex) = try await addTransport(to: routerID, toConsume: toConsume) {
            id, startPort, router, worker throws(MediaControlError) in
            let socket: UDPSocket
            if let shared = worker.sharedSocket {
                socket = shared
            } else {
                socket = try UDPSocket(address: configuration.listenAddress, portRange: configuration.portRange, startingAt: startPort)
            }
            let webRTC = WebRTCLink(
                ice: ICELiteAgent(local: local, consentTimeout: UInt64(configuration.iceConsentTimeout.nanoseconds)),
                dtls: link.value, sharesWorkerSocket: socket === worker.sharedSocket, now: MediaClock.monotonicNow())
            let transport = Transport(
                id: id, socket: socket, worker: worker, router: router, remote: nil, inbound: nil, outbound: nil, webRTC: webRTC)
            worker.webRTCTransportsByUsernameFragment[local.usernameFragment] = transport
            return transport
        }
        if configuration.webRTCSharedPort == nil { advancePortSearch(past: port) }
        let host = configuration.announcedAddress ?? configuration.listenAddress
        return WebRTCTransportParameters(
            transportID: id, ice: ICEParameters(usernameFragment: local.usernameFragment, password: local.password),
            candidates: [TransportAddress(host: host, port: port)],
            tcpCandidates: tcpPorts.isEmpty ? [] : [TransportAddress(host: host, port: tcpPorts[workerIndex])],
            fingerprint: certificateFingerprint)
    }

    /// Places a new transport of `routerID` (`placeTransport`), registers it with the consumers it is
    /// made for counted at once, and builds it with `make` on the worker's thread (given its id, the
    /// port to start searching from, its router and worker), then starts it; the id and the count are
    /// forgotten when `make` fails. Returns the id, the local port and the worker's index.
    public func createRecordingTransport(router routerID: RouterID, ring: RecordingRing) async throws(MediaControlError) -> TransportID {
        let (id, _, _) = try await addTransport(to: routerID, toConsume: []) { id, _, router, worker throws(MediaControlError) in
            let transport = Transport(id: id, socket: nil, worker: worker, router: router, remote: nil, inbound: nil, outbound: nil)
            transport.recording = ring
            _ = transport.downlink.setEnabled(false)
            _ = transport.uplink.setEnabled(false)
            return transport
        }
        return id
    }

    private func addTransport(
        to routerID: RouterID, toConsume: [ProducerID],
        _ make: @escaping (TransportID, UInt16, Router, Worker) throws(MediaControlError) -> Transport
    ) async throws(MediaControlError) -> (TransportID, UInt16, Int) {
        let firstPort = configuration.portRange.lowerBound
        let placed: (TransportID, UInt16, Int)? = registry.withLock { registry in
            guard let index = placeTransport(of: routerID, toConsume: toConsume, in: registry) else { return nil }
            let id = TransportID(rawValue: registry.makeID())
            registry.transports[id] = Placement(router: routerID, worker: index)
            let expected = toConsume.filter { registry.producers[$0] != nil }
            for producer in expected { registry.producers[producer]?.audience += 1 }
            registry.consumersPerWorker[index] += expected.count
            registry.expectedConsumers[id] = (index, expected)
            return (id, registry.nextPort == 0 ? firstPort : registry.nextPort, index)
        }
        guard let (id, startPort, index) = placed else { throw .unknownRouter(routerID) }
        let worker = workers[index]
        let result: Result<UInt16, MediaControlError> = await onThread(of: worker) { () -> Result<UInt16, MediaControlError> in
            guard let router = self.router(routerID, on: worker) else { return .failure(.unknownRouter(routerID)) }
            do throws(MediaControlError) {
                let transport = try make(id, startPort, router, worker)
                try transport.start()
                router.transports[id] = transport
                return .success(transport.socket?.localPort ?? 0)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let port):
            return (id, port, index)
        case .failure(let error):
            registry.withLock { registry in
                registry.transports[id] = nil
                registry.releaseExpected(of: id)
            }
            throw error
        }
    }

    public func connectWebRTCTransport(_ transportID: TransportID, remote: WebRTCRemoteParameters) async throws(MediaControlError) {
        guard DTLSFingerprintDigest.supportedAlgorithms.contains(remote.fingerprint.algorithm.lowercased()) else {
            throw .invalidParameter(.dtlsFingerprint, problem: "fingerprint algorithm \"\(remote.fingerprint.algorithm)\" is not supported")
        }
        try await withWebRTCTransport(transportID) { transport in
            transport.connectWebRTC(remote: remote, now: MediaClock.monotonicNow())
        }
    }

    public func restartICE(_ transportID: TransportID, remote: ICEParameters?) async throws(MediaControlError) -> ICEParameters {
        try await withWebRTCTransport(transportID) { transport in
            transport.restartICE(remote: remote, now: MediaClock.monotonicNow())!
        }
    }

    public func setFaultInjection(
        transport transportID: TransportID, dropShare: Double?, rateCapBitrate: Int?
    ) async throws(MediaControlError) {
        guard configuration.faultInjection else {
            throw .invalidParameters(reason: "fault injection is off (media.faultInjection in the configuration)")
        }
        if let dropShare, !(0...1).contains(dropShare) {
            throw .invalidParameter(.dropShare, problem: "must be between 0 and 1, not \(dropShare)")
        }
        if let rateCapBitrate, rateCapBitrate != 0, !FaultRateCap.allowedBitrates.contains(rateCapBitrate) {
            throw .invalidParameter(
                .rateCapBitrate,
                problem: "must be 0 (no cap) or from \(FaultRateCap.allowedBitrates.lowerBound) to \(FaultRateCap.allowedBitrates.upperBound) bits per second, not \(rateCapBitrate)")
        }
        let (routerID, worker) = try locate(transportID)
        let found: Bool = await onThread(of: worker) {
            guard let transport = worker.routers[routerID]?.transports[transportID] else { return false }
            if let dropShare { transport.faultDropShare = dropShare }
            if let rateCapBitrate {
                transport.faultRateCap = rateCapBitrate == 0 ? nil : FaultRateCap(bitsPerSecond: rateCapBitrate, now: MediaClock.monotonicNow())
            }
            return true
        }
        guard found else { throw .unknownTransport(transportID) }
    }

    /// Runs `body` on a WebRTC transport, on its worker's thread.
    private func withWebRTCTransport<Value: Sendable>(
        _ transportID: TransportID, _ body: @escaping (Transport) -> Value
    ) async throws(MediaControlError) -> Value {
        let (routerID, worker) = try locate(transportID)
        let outcome: Result<Value, MediaControlError> = await onThread(of: worker) {
            guard let transport = worker.routers[routerID]?.transports[transportID] else {
                return .failure(.unknownTransport(transportID))
            }
            guard transport.webRTC != nil else {
                return .failure(.invalidParameters(reason: "transport \(transportID) is not a WebRTC transport"))
            }
            let value = body(transport)
            worker.flush()
            return .success(value)
        }
        return try outcome.get()
    }

    public func admissionRefusal(forSubscriberOf routerID: RouterID, consuming producers: [ProducerID]) async -> MediaControlError? {
        guard let index = registry.withLock({ placeTransport(of: routerID, toConsume: producers, in: $0) }) else { return nil }
        let worker = workers[index]
        return await onThread(of: worker) {
            // The producers, or their copies, as this worker has them; one it has not seen yet adds
            // nothing it can measure.
            let router = worker.routers[routerID]
            let found = producers.compactMap { router?.producers[$0] ?? router?.relayedProducers[$0] }
            return worker.admissionRefusal(adding: found.map(\.packetRateOfBusiestEncoding).max() ?? 0)
        }
    }

    /// The worker a new transport goes to: its router's home, unless one of the producers it is made
    /// to receive has an audience past `spreadThreshold`; then the worker with the fewest consumers
    /// (home on a tie), so one big room's fan-out spreads over every core.
    /// nil when the router does not exist.
    private func placeTransport(of routerID: RouterID, toConsume: [ProducerID], in registry: Registry) -> Int? {
        let threshold = configuration.spreadThreshold
        guard let home = registry.routers[routerID] else { return nil }
        guard workers.count > 1, threshold > 0,
            toConsume.contains(where: { (registry.producers[$0]?.audience ?? 0) >= threshold })
        else { return home }
        let load = registry.consumersPerWorker
        return load.indices.min { (load[$0], $0 == home ? 0 : 1, $0) < (load[$1], $1 == home ? 0 : 1, $1) } ?? home
    }

    /// The router `routerID` on `worker`, made there when the router exists but has nothing on that
    /// worker yet. On the worker's thread. Recorded under the registry's lock, so a `closeRouter`
    /// either sees it (and closes it after this) or has already removed the router (and none is made).
    private func router(_ routerID: RouterID, on worker: Worker) -> Router? {
        if let router = worker.routers[routerID] { return router }
        let exists = registry.withLock { registry in
            guard registry.routers[routerID] != nil else { return false }
            registry.routerWorkers[routerID, default: []].insert(worker.index)
            return true
        }
        guard exists else { return nil }
        let router = Router(id: routerID, worker: worker, isHome: false)
        worker.routers[routerID] = router
        return router
    }

    private func advancePortSearch(past port: UInt16) {
        let range = configuration.portRange
        registry.withLock { registry in
            registry.nextPort = port == range.upperBound ? range.lowerBound : port + 1
        }
    }

    public func closeTransport(_ transportID: TransportID) async throws(MediaControlError) {
        let (routerID, worker) = try locate(transportID)
        let closed: (producers: [ProducerID], consumers: [ConsumerID], copiesLeft: [ProducerID]) = await onThread(of: worker) {
            guard let router = worker.routers[routerID], let transport = router.transports.removeValue(forKey: transportID)
            else { return ([], [], []) }
            var producerIDs: [ProducerID] = []
            var consumerIDs: [ConsumerID] = []
            var copiesLeft: [ProducerID] = []
            for producer in router.producers.values where producer.transport === transport {
                producerIDs.append(producer.id)
                consumerIDs += self.removeProducer(producer, from: router)
            }
            for consumer in router.consumers.values where consumer.transport === transport {
                consumerIDs.append(consumer.id)
                if let copy = self.removeConsumer(consumer, from: router) { copiesLeft.append(copy) }
            }
            transport.close()
            worker.events.yield(.transportClosed(transportID, reason: "closed"))
            return (producerIDs, consumerIDs, copiesLeft)
        }
        registry.withLock { registry in
            registry.transports[transportID] = nil
            registry.releaseExpected(of: transportID)
            for id in closed.consumers { registry.removeConsumer(id) }
        }
        for id in closed.producers { await removeCopies(of: id) }
        for id in Set(closed.copiesLeft) { await updateRelayTargets(of: id) }
    }

    public func produce(transport transportID: TransportID, options: ProducerOptions) async throws(MediaControlError)
        -> ProducerID
    {
        let (routerID, worker) = try locate(transportID)
        let id = registry.withLock { registry in
            let id = ProducerID(rawValue: registry.makeID())
            registry.producers[id] = ProducerEntry(placement: Placement(router: routerID, worker: worker.index), options: options)
            return id
        }
        let configuration = configuration
        let result: Result<Void, MediaControlError> = await onThread(of: worker) {
            guard let router = worker.routers[routerID], let transport = router.transports[transportID] else {
                return .failure(.unknownTransport(transportID))
            }
            var seen: Set<UInt32> = []
            for ssrc in options.allSSRCs where transport.producersBySSRC[ssrc] != nil || !seen.insert(ssrc).inserted {
                return .failure(.ssrcInUse(ssrc))
            }
            let producer = Producer(id: id, options: options, transport: transport, configuration: configuration)
            router.producers[id] = producer
            worker.homeProducers[id.rawValue] = producer
            transport.register(producer)
            return .success(())
        }
        if case .failure(let error) = result {
            _ = registry.withLock { $0.producers.removeValue(forKey: id) }
            throw error
        }
        return id
    }

    public func closeProducer(_ producerID: ProducerID) async throws(MediaControlError) {
        let (routerID, worker) = try locate(producerID)
        let closedConsumers: [ConsumerID] = await onThread(of: worker) {
            guard let router = worker.routers[routerID], let producer = router.producers[producerID] else { return [] }
            return self.removeProducer(producer, from: router)
        }
        registry.withLock { registry in
            for id in closedConsumers { registry.removeConsumer(id) }
        }
        await removeCopies(of: producerID)
    }

    /// Forgets a producer that has closed, then closes its copies and their consumers. Forgotten
    /// first, so a `consume` racing with this cannot make a copy after the copies were listed.
    private func removeCopies(of producerID: ProducerID) async {
        guard let entry = registry.withLock({ $0.producers.removeValue(forKey: producerID) }) else { return }
        for index in entry.copies.sorted() {
            let worker = workers[index]
            let closed: [ConsumerID] = await onThread(of: worker) {
                guard let router = worker.routers[entry.placement.router], let copy = router.relayedProducers.removeValue(forKey: producerID)
                else { return [] }
                worker.relayedProducers[producerID.rawValue] = nil
                let consumers = copy.consumers
                for consumer in consumers { _ = self.removeConsumer(consumer, from: router) }
                return consumers.map(\.id)
            }
            registry.withLock { registry in
                for id in closed { registry.removeConsumer(id) }
            }
        }
    }

    /// Makes the producer at home hand its packets to exactly the workers the registry says hold a
    /// copy (and tells a new copy whether the publisher's video is off). Called after every change,
    /// it converges on the latest state whatever order the changes' hops ran in.
    private func updateRelayTargets(of producerID: ProducerID) async {
        guard let placement = registry.withLock({ $0.producers[producerID]?.placement }) else { return }
        let worker = workers[placement.worker]
        await onThread(of: worker) {
            guard let producer = worker.routers[placement.router]?.producers[producerID] else { return }
            let copies = self.registry.withLock { $0.producers[producerID]?.copies ?? [] }
            producer.setRelayTargets(copies.sorted())
            worker.flush()
        }
    }

    public func consume(
        transport transportID: TransportID, producer producerID: ProducerID, pauseReasons: Set<ConsumerPauseReason>,
        preference: VideoLayerPreference, payloadTypes: ReceiverPayloadTypes?
    ) async throws(MediaControlError) -> ConsumerParameters {
        let (routerID, worker) = try locate(transportID)
        let (producerRouter, producerWorker) = try locate(producerID)
        guard producerRouter == routerID else { throw .differentRouters(producerID, transportID) }
        let isRelayed = producerWorker !== worker
        if isRelayed { relayRings.connect(producerWorker.index, worker.index) }
        let id = registry.withLock { registry in
            let id = ConsumerID(rawValue: registry.makeID())
            registry.consumers[id] = ConsumerEntry(placement: Placement(router: routerID, worker: worker.index), producer: producerID)
            if let expected = registry.expectedConsumers[transportID]?.producers.firstIndex(of: producerID) {
                // Counted when the transport was placed.
                registry.expectedConsumers[transportID]!.producers.remove(at: expected)
            } else {
                registry.consumersPerWorker[worker.index] += 1
                registry.producers[producerID]?.audience += 1
            }
            return id
        }
        let result: Result<ConsumerParameters, MediaControlError> = await onThread(of: worker) {
            guard let router = worker.routers[routerID], let transport = router.transports[transportID] else {
                return .failure(.unknownTransport(transportID))
            }
            let found = isRelayed ? self.copy(of: producerID, in: router, home: producerWorker.index) : router.producers[producerID]
            guard let producer = found else { return .failure(.unknownProducer(producerID)) }
            if let refusal = worker.admissionRefusal(forConsumerOf: producer, on: transport) { return .failure(refusal) }
            let now = MediaClock.monotonicNow()
            let consumer = Consumer(
                id: id, producer: producer, transport: transport, pauseReasons: pauseReasons, preference: preference,
                payloadTypes: payloadTypes, now: now)
            router.consumers[id] = consumer
            transport.register(consumer)
            producer.add(consumer)
            if consumer.layerSelector != nil { transport.allocateLayers(now: now) }
            worker.flush()
            var codec = producer.options.codec
            codec.payloadType = consumer.payloadType
            codec.rtxPayloadType = consumer.retransmissionStream?.payloadType
            return .success(
                ConsumerParameters(
                    consumerID: id, producerID: producerID, codec: codec, ssrc: consumer.ssrc,
                    rtxSSRC: consumer.retransmissionStream?.ssrc))
        }
        if isRelayed { await updateRelayTargets(of: producerID) }
        switch result {
        case .success(let parameters):
            return parameters
        case .failure(let error):
            registry.withLock { $0.removeConsumer(id) }
            throw error
        }
    }

    /// The copy of a producer of another worker in `router`, made (and recorded) when there is none.
    /// On the router's worker; nil when the producer has closed.
    private func copy(of producerID: ProducerID, in router: Router, home: Int) -> Producer? {
        if let copy = router.relayedProducers[producerID] { return copy }
        let worker = router.worker
        let options: ProducerOptions? = registry.withLock { registry in
            guard registry.producers[producerID] != nil else { return nil }
            registry.producers[producerID]!.copies.insert(worker.index)
            return registry.producers[producerID]!.options
        }
        guard let options else { return nil }
        let copy = Producer(copyOf: producerID, options: options, on: worker, homeWorker: home)
        router.relayedProducers[producerID] = copy
        worker.relayedProducers[producerID.rawValue] = copy
        return copy
    }

    public func closeConsumer(_ consumerID: ConsumerID) async throws(MediaControlError) {
        let (routerID, worker) = try locate(consumerID)
        let copyLeft: ProducerID? = await onThread(of: worker) {
            guard let router = worker.routers[routerID], let consumer = router.consumers[consumerID] else { return nil }
            return self.removeConsumer(consumer, from: router)
        }
        registry.withLock { $0.removeConsumer(consumerID) }
        if let copyLeft { await updateRelayTargets(of: copyLeft) }
    }

    public func setLayerPreference(_ consumerID: ConsumerID, _ preference: VideoLayerPreference) async throws(MediaControlError) {
        try await withConsumer(consumerID) { consumer in
            guard consumer.layerSelector != nil else { return }
            consumer.layerPreference = preference
            consumer.transport.allocateLayers(now: MediaClock.monotonicNow())
        }
    }

    public func pauseConsumer(_ consumerID: ConsumerID, reason: ConsumerPauseReason) async throws(MediaControlError) {
        try await withConsumer(consumerID) { consumer in consumer.pause(reason, now: MediaClock.monotonicNow()) }
    }

    public func resumeConsumer(_ consumerID: ConsumerID, reason: ConsumerPauseReason) async throws(MediaControlError) {
        try await withConsumer(consumerID) { consumer in consumer.resume(reason, now: MediaClock.monotonicNow()) }
    }

    public func setAudioFallback(transport transportID: TransportID, side: AudioFallbackSide, enabled: Bool) async throws(MediaControlError) {
        let (routerID, worker) = try locate(transportID)
        let found: Bool = await onThread(of: worker) {
            guard let transport = worker.routers[routerID]?.transports[transportID] else { return false }
            transport.setAudioFallback(side: side, enabled: enabled, now: MediaClock.monotonicNow())
            worker.flush()
            return true
        }
        guard found else { throw .unknownTransport(transportID) }
    }

    public func setProducerMuted(_ producerID: ProducerID, muted: Bool) async throws(MediaControlError) {
        let (routerID, worker) = try locate(producerID)
        let found: Bool = await onThread(of: worker) {
            guard let producer = worker.routers[routerID]?.producers[producerID] else { return false }
            producer.setMuted(muted, now: MediaClock.monotonicNow())
            worker.flush()
            return true
        }
        guard found else { throw .unknownProducer(producerID) }
    }

    public func setForwardLoudest(router routerID: RouterID, count: Int?) async throws(MediaControlError) {
        if let count, count < 1 { throw .invalidParameters(reason: "forwardLoudest must be at least 1, not \(count)") }
        let worker = try worker(of: routerID)
        let found: Bool = await onThread(of: worker) {
            guard let router = worker.routers[routerID] else { return false }
            router.setForwardLoudest(count, now: MediaClock.monotonicNow())
            worker.flush()
            return true
        }
        guard found else { throw .unknownRouter(routerID) }
    }

    /// The router's statistics over every worker it has spread to.
    public func statistics(router routerID: RouterID) async throws(MediaControlError) -> RouterStatistics {
        _ = try worker(of: routerID)
        let holders = registry.withLock { $0.routerWorkers[routerID] ?? [] }
        var merged: RouterStatistics?
        for index in holders.sorted() {
            let worker = workers[index]
            guard let part: RouterStatistics = await onThread(of: worker, { worker.routers[routerID]?.statistics() }) else { continue }
            merged = merged.map { $0.merged(with: part) } ?? part
        }
        guard let merged else { throw .unknownRouter(routerID) }
        return merged
    }

    public func planeStatistics() async -> MediaPlaneStatistics {
        var totals = MediaPlaneStatistics()
        for worker in workers {
            totals = await onThread(of: worker) { [totals] in
                var totals = totals
                worker.addStatistics(to: &totals)
                return totals
            }
        }
        return totals
    }

    // MARK: - Helpers

    /// Closes a producer at home and its consumers there; its copies elsewhere go with `removeCopies`.
    private func removeProducer(_ producer: Producer, from router: Router) -> [ConsumerID] {
        let consumers = producer.consumers
        for consumer in consumers { _ = removeConsumer(consumer, from: router) }
        producer.transport?.unregister(producer)
        router.producers[producer.id] = nil
        router.worker.homeProducers[producer.id.rawValue] = nil
        return consumers.map(\.id)
    }

    /// Closes a consumer. When it was the last of a copy, the copy closes too and the registry
    /// forgets it; returns that producer's id, whose home must then stop relaying here.
    private func removeConsumer(_ consumer: Consumer, from router: Router) -> ProducerID? {
        let producer = consumer.producer
        producer.remove(consumer)
        consumer.transport.unregister(consumer)
        router.consumers[consumer.id] = nil
        guard producer.homeWorker != nil, producer.consumers.isEmpty, router.relayedProducers[producer.id] === producer else { return nil }
        router.relayedProducers[producer.id] = nil
        router.worker.relayedProducers[producer.id.rawValue] = nil
        registry.withLock { _ = $0.producers[producer.id]?.copies.remove(router.worker.index) }
        return producer.id
    }

    private func withConsumer(_ consumerID: ConsumerID, _ body: @escaping (Consumer) -> Void) async throws(MediaControlError) {
        let (routerID, worker) = try locate(consumerID)
        let found: Bool = await onThread(of: worker) {
            guard let consumer = worker.routers[routerID]?.consumers[consumerID] else { return false }
            body(consumer)
            worker.flush()
            return true
        }
        guard found else { throw .unknownConsumer(consumerID) }
    }

    /// - Parameter parameter: The client's parameter the name came from; nil for the router's own.
    private static func profile(named name: String, parameter: MediaParameter?) throws(MediaControlError) -> SRTPProfile {
        guard let profile = SRTPProfile(rawValue: name) else {
            let known = SRTPProfile.allCases.map(\.rawValue).joined(separator: ", ")
            let problem = "unknown SRTP profile \"\(name)\"; expected one of \(known)"
            throw parameter.map { .invalidParameter($0, problem: problem) } ?? .invalidParameters(reason: problem)
        }
        return profile
    }

    private func worker(of routerID: RouterID) throws(MediaControlError) -> Worker {
        guard let index = registry.withLock({ $0.routers[routerID] }) else { throw .unknownRouter(routerID) }
        return workers[index]
    }

    private func locate(_ id: TransportID) throws(MediaControlError) -> (RouterID, Worker) {
        guard let placement = registry.withLock({ $0.transports[id] }) else { throw .unknownTransport(id) }
        return (placement.router, workers[placement.worker])
    }

    private func locate(_ id: ProducerID) throws(MediaControlError) -> (RouterID, Worker) {
        guard let placement = registry.withLock({ $0.producers[id]?.placement }) else { throw .unknownProducer(id) }
        return (placement.router, workers[placement.worker])
    }

    private func locate(_ id: ConsumerID) throws(MediaControlError) -> (RouterID, Worker) {
        guard let placement = registry.withLock({ $0.consumers[id]?.placement }) else { throw .unknownConsumer(id) }
        return (placement.router, workers[placement.worker])
    }

    /// Runs `body` on the worker's thread and returns its result to the caller's task.
    private func onThread<Result: Sendable>(of worker: Worker, _ body: @escaping () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let work = UncheckedSendableBox(body)
            worker.perform { continuation.resume(returning: work.value()) }
        }
    }
}

/// Carries a closure that touches worker-confined objects onto that worker's thread. The objects are
/// only ever used there, which is what makes the hop safe.
private struct UncheckedSendableBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
