import Foundation
import Logging
import MediaControl
import ServiceLifecycle
import Signaling
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The media plane as signaling sees it on a node of a cluster: this node's own, extended past the
/// node (cascading). Past `subscribersBeforeCascading` subscribers of one session here, a new
/// subscriber's transport is made on another node (an edge), which receives each published track
/// once over a relay leg from this node's router and fans it out; every later request about that
/// transport and its consumers goes to the edge, and the edge's events about them come back here
/// under ids of this node's making. So signaling, the audio-fallback policy and the statistics treat
/// a cascaded subscriber as any other.
///
/// Every node plays both parts: origin of the sessions it holds, edge for other nodes' sessions.
public actor CascadingMediaControl: MediaControl, Service {
    public static let path = "/v1/cluster/media"

    public nonisolated let events: AsyncStream<MediaEvent>
    private let continuation: AsyncStream<MediaEvent>.Continuation
    let local: any MediaControl
    let cluster: ClusterNode
    private let tokens: TokenAuthority
    let logger: Logger

    // MARK: Origin: what this node's sessions have on other nodes.

    /// A transport or consumer an edge holds for this node, known here under a tag.
    struct RemoteObject {
        var node: ClusterNodeAddress
        var id: UInt64
        var router: RouterID
        var transport: TransportID
    }

    private var remoteTransports: [TransportID: RemoteObject] = [:]
    private var remoteConsumers: [ConsumerID: RemoteObject] = [:]
    /// An object on an edge: the edge's node id and the id its media plane gave it.
    struct EdgeObject: Hashable {
        var node: String
        var id: UInt64
    }

    /// The tags of edges' transports and consumers, kept apart since an edge's ids of the two kinds
    /// need not differ.
    private var transportTags: [EdgeObject: TransportID] = [:]
    private var consumerTags: [EdgeObject: ConsumerID] = [:]
    /// Tags live far above the media plane's own ids, which count up from 1.
    private var nextTag: UInt64 = 1 << 62
    /// Subscriber transports this node made for each of its routers, and those being made.
    private var localSubscriberTransports: [RouterID: Set<TransportID>] = [:]
    private var subscriberTransportsUnderWay: [RouterID: Int] = [:]
    /// Relay legs from this node's routers: the router and the edge each one feeds.
    var legs: [TransportID: (router: RouterID, edge: String)] = [:]
    /// The simulcast layers of this node's producers (as published, then as the router learned
    /// them), which a relay leg carries one by one.
    var producerLayers: [ProducerID: [VideoLayer]] = [:]

    // MARK: Edge: what this node serves for other nodes' sessions.

    var routes: [CascadeRoute.Key: CascadeRoute] = [:]
    var routeOfTransport: [TransportID: CascadeRoute.Key] = [:]
    var routeOfConsumer: [ConsumerID: (key: CascadeRoute.Key, transport: TransportID)] = [:]
    /// The relay-fault test aid's share, applied to every relay leg into this node.
    var relayDropShare: Double?
    /// Set at graceful shutdown: no new subscriber transport is made here for another node.
    var isShuttingDown = false
    /// Route setups run one after another per route, so two subscribers arriving at once share one leg.
    var setupTails: [CascadeRoute.Key: Task<Void, Never>] = [:]
    /// The instance of each other node as this node last saw it. Ids of transports, consumers and
    /// routers are a process's own: a node seen under a new instance was started again and holds
    /// nothing of what its earlier process held here or for this node.
    private var peerInstances: [String: String] = [:]
    private var outgoingEvents: [String: (origin: ClusterNodeAddress, events: [MediaEvent])] = [:]
    private var pushingEvents: Set<String> = []
    /// Events held for an origin that cannot be reached are bounded; the oldest go first.
    static let maximumHeldEvents = 1024

    public init(local: any MediaControl, cluster: ClusterNode, tokens: TokenAuthority, logger: Logger) {
        self.local = local
        self.cluster = cluster
        self.tokens = tokens
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: MediaEvent.self, bufferingPolicy: .bufferingNewest(4096))
    }

    private var subscribersBeforeCascading: Int? { cluster.configuration.subscribersBeforeCascading }

    /// What this node cascades now: subscribers it serves for other nodes' sessions, subscribers of its
    /// own sessions served by other nodes, and the relay legs it feeds.
    public var cascadeCounts: (servedForOthers: Int, servedElsewhere: Int, relayLegs: Int) {
        (routeOfTransport.count, remoteTransports.count, legs.count)
    }

    /// Routes the media plane's events until graceful shutdown, and every node timeout forgets what
    /// dead nodes held here and fails what this node's subscribers had on them. At shutdown, the
    /// subscribers this node serves for others are failed back to their sessions' nodes, so their
    /// clients subscribe again elsewhere.
    public func run() async {
        let routing = Task { [local] in
            for await event in local.events { self.route(event) }
        }
        await cluster.onPeerInstances { instances in await self.observe(instances) }
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            try? await cancelWhenGracefulShutdown { [cluster] in try await Task.sleep(for: cluster.configuration.nodeTimeout) }
            if !Task.isShuttingDownGracefully { await forgetDeadNodes() }
        }
        // Draining first, so that the origins, whose subscribers come back at once, pass this node by.
        isShuttingDown = true
        await cluster.beginDrain()
        await failEverythingServedForOthers(reason: "node \(cluster.nodeId), which carried this subscriber's media, is shutting down")
        routing.cancel()
    }

    /// Answers another node's request; a refusal of the media plane is an answer too.
    public func handle(_ request: CascadeRequest) async -> CascadeReply {
        do throws(MediaControlError) {
            return try await answer(request)
        } catch {
            return .refused(error)
        }
    }

    // MARK: - MediaControl

    public func createRouter() async throws(MediaControlError) -> RouterID {
        try await local.createRouter()
    }

    public func closeRouter(_ router: RouterID) async throws(MediaControlError) {
        localSubscriberTransports[router] = nil
        legs = legs.filter { $0.value.router != router }
        let servingEdges = edges(serving: router)
        for (tag, object) in remoteTransports where object.router == router { forget(transport: tag, of: object) }
        for edge in servingEdges {
            Task { _ = try? await self.call(.closeRouter(origin: self.cluster.nodeId, router: router), on: edge) }
        }
        try await local.closeRouter(router)
    }

    public func createPlainTransport(
        router: RouterID, options: PlainTransportOptions, toConsume: [ProducerID]
    ) async throws(MediaControlError) -> PlainTransportParameters {
        try await subscriberTransport(router: router, toConsume: toConsume, plain: options) { [local] () async throws(MediaControlError) in
            try await local.createPlainTransport(router: router, options: options, toConsume: toConsume)
        }
    }

    public func createWebRTCTransport(router: RouterID, toConsume: [ProducerID]) async throws(MediaControlError) -> WebRTCTransportParameters {
        try await subscriberTransport(router: router, toConsume: toConsume, plain: nil) { [local] () async throws(MediaControlError) in
            try await local.createWebRTCTransport(router: router, toConsume: toConsume)
        }
    }

    public func connectWebRTCTransport(_ transport: TransportID, remote: WebRTCRemoteParameters) async throws(MediaControlError) {
        if let object = remoteTransports[transport] {
            _ = try await call(.connectWebRTCTransport(TransportID(rawValue: object.id), remote), on: object.node)
        } else {
            try await local.connectWebRTCTransport(transport, remote: remote)
        }
    }

    public func restartICE(_ transport: TransportID, remote: ICEParameters?) async throws(MediaControlError) -> ICEParameters {
        guard let object = remoteTransports[transport] else { return try await local.restartICE(transport, remote: remote) }
        let reply = try await call(.restartICE(TransportID(rawValue: object.id), remote), on: object.node)
        guard case .ice(let parameters) = reply else { throw Self.unexpected(reply, from: object.node) }
        return parameters
    }

    /// A recording runs on the session's node, where its router is.
    public func createRecordingTransport(router: RouterID, ring: RecordingRing) async throws(MediaControlError) -> TransportID {
        try await local.createRecordingTransport(router: router, ring: ring)
    }

    public func setFaultInjection(transport: TransportID, dropShare: Double?, rateCapBitrate: Int?) async throws(MediaControlError) {
        if let object = remoteTransports[transport] {
            _ = try await call(.setFaultInjection(TransportID(rawValue: object.id), dropShare: dropShare, rateCapBitrate: rateCapBitrate), on: object.node)
        } else {
            try await local.setFaultInjection(transport: transport, dropShare: dropShare, rateCapBitrate: rateCapBitrate)
        }
    }

    public func closeTransport(_ transport: TransportID) async throws(MediaControlError) {
        if let object = remoteTransports[transport] {
            forget(transport: transport, of: object)
            _ = try await call(.closeTransport(TransportID(rawValue: object.id)), on: object.node)
            return
        }
        forgetLocal(transport)
        try await local.closeTransport(transport)
    }

    public func produce(transport: TransportID, options: ProducerOptions) async throws(MediaControlError) -> ProducerID {
        let producer = try await local.produce(transport: transport, options: options)
        if !options.layers.isEmpty { producerLayers[producer] = options.layers }
        return producer
    }

    public func closeProducer(_ producer: ProducerID) async throws(MediaControlError) {
        producerLayers[producer] = nil
        try await local.closeProducer(producer)
    }

    public func admissionRefusal(forSubscriberOf router: RouterID, consuming producers: [ProducerID]) async -> MediaControlError? {
        await local.admissionRefusal(forSubscriberOf: router, consuming: producers)
    }

    public func consume(
        transport: TransportID, producer: ProducerID, pauseReasons: Set<ConsumerPauseReason>, preference: VideoLayerPreference,
        payloadTypes: ReceiverPayloadTypes?
    ) async throws(MediaControlError) -> ConsumerParameters {
        guard let object = remoteTransports[transport] else {
            return try await local.consume(
                transport: transport, producer: producer, pauseReasons: pauseReasons, preference: preference, payloadTypes: payloadTypes)
        }
        let reply = try await call(
            .consume(
                TransportID(rawValue: object.id), producer: producer, pauseReasons: pauseReasons, preference: preference,
                payloadTypes: payloadTypes),
            on: object.node)
        guard case .consumer(var parameters) = reply else { throw Self.unexpected(reply, from: object.node) }
        let tag = ConsumerID(rawValue: makeTag())
        consumerTags[EdgeObject(node: object.node.nodeId, id: parameters.consumerID.rawValue)] = tag
        remoteConsumers[tag] = RemoteObject(node: object.node, id: parameters.consumerID.rawValue, router: object.router, transport: transport)
        parameters.consumerID = tag
        return parameters
    }

    public func setLayerPreference(_ consumer: ConsumerID, _ preference: VideoLayerPreference) async throws(MediaControlError) {
        if let object = remoteConsumers[consumer] {
            _ = try await call(.setLayerPreference(ConsumerID(rawValue: object.id), preference), on: object.node)
        } else {
            try await local.setLayerPreference(consumer, preference)
        }
    }

    public func closeConsumer(_ consumer: ConsumerID) async throws(MediaControlError) {
        if let object = remoteConsumers.removeValue(forKey: consumer) {
            consumerTags[EdgeObject(node: object.node.nodeId, id: object.id)] = nil
            _ = try await call(.closeConsumer(ConsumerID(rawValue: object.id)), on: object.node)
        } else {
            try await local.closeConsumer(consumer)
        }
    }

    public func pauseConsumer(_ consumer: ConsumerID, reason: ConsumerPauseReason) async throws(MediaControlError) {
        if let object = remoteConsumers[consumer] {
            _ = try await call(.pauseConsumer(ConsumerID(rawValue: object.id), reason), on: object.node)
        } else {
            try await local.pauseConsumer(consumer, reason: reason)
        }
    }

    public func resumeConsumer(_ consumer: ConsumerID, reason: ConsumerPauseReason) async throws(MediaControlError) {
        if let object = remoteConsumers[consumer] {
            _ = try await call(.resumeConsumer(ConsumerID(rawValue: object.id), reason), on: object.node)
        } else {
            try await local.resumeConsumer(consumer, reason: reason)
        }
    }

    public func setAudioFallback(transport: TransportID, side: AudioFallbackSide, enabled: Bool) async throws(MediaControlError) {
        if let object = remoteTransports[transport] {
            _ = try await call(.setAudioFallback(TransportID(rawValue: object.id), side: side, enabled: enabled), on: object.node)
        } else {
            try await local.setAudioFallback(transport: transport, side: side, enabled: enabled)
        }
    }

    /// Producers and routers live on the session's node: muting one there, or holding it back as
    /// quieter, also stops what its cascade consumers carry to the edges.
    public func setProducerMuted(_ producer: ProducerID, muted: Bool) async throws(MediaControlError) {
        try await local.setProducerMuted(producer, muted: muted)
    }

    public func setForwardLoudest(router: RouterID, count: Int?) async throws(MediaControlError) {
        try await local.setForwardLoudest(router: router, count: count)
    }

    /// The router's statistics here, with those of its subscribers on edges under their tags. An edge
    /// that does not answer leaves its subscribers out rather than failing the request.
    public func statistics(router: RouterID) async throws(MediaControlError) -> RouterStatistics {
        var statistics = try await local.statistics(router: router)
        for edge in edges(serving: router).sorted(by: { $0.nodeId < $1.nodeId }) {
            guard case .statistics(let remote?)? = try? await call(.statistics(origin: cluster.nodeId, router: router), on: edge) else { continue }
            statistics = statistics.merged(with: retagged(remote, from: edge.nodeId))
        }
        return statistics
    }

    public func planeStatistics() async -> MediaPlaneStatistics {
        await local.planeStatistics()
    }

    // MARK: - Origin

    /// The edges serving subscribers of this node's `router`.
    private func edges(serving router: RouterID) -> Set<ClusterNodeAddress> {
        Set(remoteTransports.values.filter { $0.router == router }.map(\.node))
    }

    /// The edge a new subscriber of `router` goes to, or nil to serve it here: below
    /// `subscribersBeforeCascading` it stays, unless this node's media worker would refuse it for
    /// want of forwarding capacity; past it, an edge already relaying this router's tracks takes as
    /// many again before a new one starts; with every edge full, the least filled. The asking
    /// request's own transport is already counted as under way here.
    private func edge(forSubscriberOf router: RouterID, consuming producers: [ProducerID]) async -> ClusterNodeAddress? {
        let othersHere = (localSubscriberTransports[router]?.count ?? 0) + (subscriberTransportsUnderWay[router] ?? 0) - 1
        guard let limit = subscribersBeforeCascading, !producers.isEmpty else { return nil }
        if othersHere < limit {
            guard let refusal = await local.admissionRefusal(forSubscriberOf: router, consuming: producers) else { return nil }
            logger.info("cascading a subscriber this node has no forwarding capacity for", metadata: ["router": "\(router)", "refusal": "\(refusal)"])
        }
        let candidates: [ClusterNodeAddress]
        do {
            let live = try await cluster.liveNodes()
            await observe(live.map(\.address))
            candidates = live.filter(\.active).map(\.address)
        } catch {
            logger.warning("no edge for a cascaded subscriber: the database did not answer; serving it here", metadata: ["router": "\(router)"])
            return nil
        }
        var served: [String: Int] = [:]
        for object in remoteTransports.values where object.router == router { served[object.node.nodeId, default: 0] += 1 }
        return candidates.first { (1..<limit).contains(served[$0.nodeId] ?? 0) }
            ?? candidates.first { served[$0.nodeId] == nil }
            ?? candidates.min { served[$0.nodeId] ?? 0 < served[$1.nodeId] ?? 0 }
    }

    /// A transport on an edge when the router's subscribers here are past their share or this node
    /// has no forwarding capacity for it (plain with `plain`'s keying, else WebRTC), or here with
    /// `createHere`: an edge that cannot make it leaves the subscriber here. A transport to receive
    /// counts toward the router's subscribers here from the moment it is asked for, through every
    /// wait of the choice (the media plane's admission, the database), so a crowd subscribing at
    /// once cascades as one arriving in turn would.
    private func subscriberTransport<Parameters: CascadedTransportParameters>(
        router: RouterID, toConsume: [ProducerID], plain: PlainTransportOptions?,
        _ createHere: @Sendable () async throws(MediaControlError) -> Parameters
    ) async throws(MediaControlError) -> Parameters {
        guard !toConsume.isEmpty else { return try await createHere() }
        subscriberTransportsUnderWay[router, default: 0] += 1
        defer {
            let left = subscriberTransportsUnderWay[router, default: 1] - 1
            subscriberTransportsUnderWay[router] = left == 0 ? nil : left
        }
        if let edge = await edge(forSubscriberOf: router, consuming: toConsume) {
            do throws(MediaControlError) {
                let reply = try await call(.openTransport(origin: cluster.address, router: router, producers: toConsume, plain: plain), on: edge)
                guard var parameters = Parameters.from(reply) else { throw Self.unexpected(reply, from: edge) }
                parameters.transportID = tagTransport(parameters.transportID, on: edge, router: router)
                return parameters
            } catch {
                logger.warning("cascading failed; serving the subscriber here", metadata: ["edge": "\(edge.nodeId)", "error": "\(error)"])
            }
        }
        let parameters = try await createHere()
        localSubscriberTransports[router, default: []].insert(parameters.transportID)
        return parameters
    }

    private func makeTag() -> UInt64 {
        defer { nextTag += 1 }
        return nextTag
    }

    private func tagTransport(_ transport: TransportID, on edge: ClusterNodeAddress, router: RouterID) -> TransportID {
        let tag = TransportID(rawValue: makeTag())
        transportTags[EdgeObject(node: edge.nodeId, id: transport.rawValue)] = tag
        remoteTransports[tag] = RemoteObject(node: edge, id: transport.rawValue, router: router, transport: tag)
        return tag
    }

    /// Drops a remote transport and its consumers from the books.
    private func forget(transport tag: TransportID, of object: RemoteObject) {
        remoteTransports[tag] = nil
        transportTags[EdgeObject(node: object.node.nodeId, id: object.id)] = nil
        for (consumerTag, consumer) in remoteConsumers where consumer.transport == tag {
            remoteConsumers[consumerTag] = nil
            consumerTags[EdgeObject(node: consumer.node.nodeId, id: consumer.id)] = nil
        }
    }

    private func forgetLocal(_ transport: TransportID) {
        legs[transport] = nil
        for router in localSubscriberTransports.keys { localSubscriberTransports[router]?.remove(transport) }
    }

    private func transportTag(of transport: TransportID, on node: String) -> TransportID? {
        transportTags[EdgeObject(node: node, id: transport.rawValue)]
    }

    private func consumerTag(of consumer: ConsumerID, on node: String) -> ConsumerID? {
        consumerTags[EdgeObject(node: node, id: consumer.rawValue)]
    }

    /// An edge's statistics with its ids replaced by their tags here; what has no tag is not ours.
    private func retagged(_ statistics: RouterStatistics, from node: String) -> RouterStatistics {
        var result = RouterStatistics(routerID: statistics.routerID, producers: [], consumers: [], drops: statistics.drops)
        result.consumers = statistics.consumers.compactMap { consumer in
            consumerTag(of: consumer.consumerID, on: node).map { var copy = consumer; copy.consumerID = $0; return copy }
        }
        result.transports = statistics.transports.compactMap { transport in
            transportTag(of: transport.transportID, on: node).map { var copy = transport; copy.transportID = $0; return copy }
        }
        return result
    }

    /// An edge's events about what it serves here, under their tags; a closed or failed transport
    /// leaves the books when signaling closes it.
    func received(_ events: [MediaEvent], from node: String) {
        for event in events {
            let translated: MediaEvent? =
                switch event {
                case .transportConnected(let transport, let remote):
                    transportTag(of: transport, on: node).map { .transportConnected($0, remote: remote) }
                case .transportFailed(let transport, let reason):
                    transportTag(of: transport, on: node).map { .transportFailed($0, reason: reason) }
                case .transportClosed(let transport, let reason):
                    transportTag(of: transport, on: node).map { .transportClosed($0, reason: reason) }
                case .audioFallback(let transport, let side, let transition):
                    transportTag(of: transport, on: node).map { .audioFallback($0, side: side, transition) }
                case .overloadShedding(let transport, let videoOff):
                    transportTag(of: transport, on: node).map { .overloadShedding($0, videoOff: videoOff) }
                case .consumerLayerChanged(let consumer, let state):
                    consumerTag(of: consumer, on: node).map { .consumerLayerChanged($0, state) }
                case .producerIdle, .producerActive, .keyFrameNeeded, .producerLayersChanged, .dominantSpeakerChanged, .audioLevels: nil
                }
            if let translated { continuation.yield(translated) }
        }
    }

    /// A local event: the edge's to its origin, a relay leg's nowhere, the rest to signaling.
    private func route(_ event: MediaEvent) {
        switch event {
        case .transportConnected(let transport, _), .audioFallback(let transport, _, _), .overloadShedding(let transport, _):
            if let key = routeOfTransport[transport] { return send(event, to: key) }
            if legs[transport] != nil { return }
        case .transportFailed(let transport, _), .transportClosed(let transport, _):
            if let key = routeOfTransport[transport] {
                send(event, to: key)
                return release(transport, of: key)
            }
            if legs[transport] != nil { return forgetLocal(transport) }
            forgetLocal(transport)
        case .consumerLayerChanged(let consumer, _):
            if let key = routeOfConsumer[consumer]?.key { return send(event, to: key) }
        case .producerIdle(let producer), .producerActive(let producer), .keyFrameNeeded(let producer), .producerLayersChanged(let producer, _):
            if routes.values.contains(where: { $0.relayed.values.contains(producer) }) { return }
            if case .producerLayersChanged(_, let layers) = event, producerLayers[producer] != nil { producerLayers[producer] = layers }
        case .dominantSpeakerChanged, .audioLevels:
            // Signaling knows the routers of its own sessions only; an edge's relay router goes unheard.
            break
        }
        continuation.yield(event)
    }

    /// Fails, to signaling, what this node's subscribers had on nodes no longer live, and drops
    /// what this node served for sessions of nodes no longer live.
    private func forgetDeadNodes() async {
        guard !remoteTransports.isEmpty || !routes.isEmpty || !legs.isEmpty else { return }
        guard let addresses = try? await cluster.liveNodes().map(\.address) else { return }
        await observe(addresses)
        let live = addresses.map(\.nodeId)
        for (tag, object) in remoteTransports where !live.contains(object.node.nodeId) {
            forget(transport: tag, of: object)
            continuation.yield(.transportFailed(tag, reason: "node \(object.node.nodeId), which carried this subscriber's media, is gone"))
        }
        for (leg, feed) in legs where !live.contains(feed.edge) {
            legs[leg] = nil
            try? await local.closeTransport(leg)
        }
        for key in routes.keys where !live.contains(key.origin) { await closeRoute(key) }
    }

    /// Notes the instances `addresses` name; for a node now under another instance, what this node
    /// held with the earlier one goes at once, as for a dead node (`forgetRestarted`).
    func observe(_ addresses: [ClusterNodeAddress]) async {
        await observe(Dictionary(addresses.compactMap { address in address.instance.map { (address.nodeId, $0) } }) { first, _ in first })
    }

    private func observe(_ instances: [String: String]) async {
        for (node, instance) in instances where node != cluster.nodeId {
            guard let earlier = peerInstances.updateValue(instance, forKey: node), earlier != instance else { continue }
            await forgetRestarted(node)
        }
    }

    /// A node started again under its id before this node saw it dead: the subscribers this node's
    /// sessions had on it are failed to signaling (their clients subscribe again), the relay legs
    /// toward it close, and the routes served here for its sessions close without a word to it (its
    /// new process's ids would name other things).
    private func forgetRestarted(_ node: String) async {
        logger.info("node started again under its id; dropping what its earlier process held", metadata: ["node": "\(node)"])
        for (tag, object) in remoteTransports where object.node.nodeId == node {
            forget(transport: tag, of: object)
            continuation.yield(.transportFailed(tag, reason: "node \(node), which carried this subscriber's media, was restarted"))
        }
        for (leg, feed) in legs where feed.edge == node {
            legs[leg] = nil
            try? await local.closeTransport(leg)
        }
        for key in routes.keys where key.origin == node { await closeRoute(key, tellingOrigin: false) }
    }

    // MARK: - Node to node

    /// Sends `request` to `node` over its internal URL, with a REST token of the shared key.
    func call(_ request: CascadeRequest, on node: ClusterNodeAddress) async throws(MediaControlError) -> CascadeReply {
        let body: Data
        let token: String
        do {
            body = try Self.encoder.encode(request)
            token = try await tokens.mintRESTToken(lifetime: 60, now: Date())
        } catch {
            throw .invalidParameters(reason: "could not write a request to node \(node.nodeId): \(error)")
        }
        let response: ForwardedResponse
        do {
            response = try await cluster.forward(
                ForwardedRequest(method: "POST", path: Self.path, authorization: "Bearer \(token)", contentType: "application/json", body: body),
                to: node)
        } catch {
            throw .invalidParameters(reason: error.message)
        }
        guard response.status == 200, let reply = try? Self.decoder.decode(CascadeReply.self, from: response.body) else {
            let text = String(decoding: response.body.prefix(300), as: UTF8.self)
            throw .invalidParameters(reason: "node \(node.nodeId) answered a cascading request with \(response.status): \(text)")
        }
        if case .refused(let error) = reply { throw error }
        return reply
    }

    /// Queues an event for the origin of `key`'s route; one push at a time per origin, in order.
    private func send(_ event: MediaEvent, to key: CascadeRoute.Key) {
        guard let origin = routes[key]?.origin else { return }
        var pending = outgoingEvents[origin.nodeId] ?? (origin, [])
        pending.events.append(event)
        if pending.events.count > Self.maximumHeldEvents { pending.events.removeFirst(pending.events.count - Self.maximumHeldEvents) }
        outgoingEvents[origin.nodeId] = pending
        guard !pushingEvents.contains(origin.nodeId) else { return }
        pushingEvents.insert(origin.nodeId)
        Task { await self.pushEvents(to: origin.nodeId) }
    }

    private func pushEvents(to node: String) async {
        while let pending = outgoingEvents.removeValue(forKey: node) {
            do throws(MediaControlError) {
                _ = try await call(.events(edge: cluster.nodeId, pending.events), on: pending.origin)
            } catch {
                logger.warning("could not send media events to a session's node", metadata: ["node": "\(node)", "error": "\(error)"])
            }
        }
        pushingEvents.remove(node)
    }

    static func unexpected(_ reply: CascadeReply, from node: ClusterNodeAddress) -> MediaControlError {
        .invalidParameters(reason: "node \(node.nodeId) answered a cascading request with \(reply)")
    }

    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()

    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }()
}
