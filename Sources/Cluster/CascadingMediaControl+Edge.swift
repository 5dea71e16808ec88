import MediaControl
import SRTP
import Signaling

extension CascadingMediaControl {
    func answer(_ request: CascadeRequest) async throws(MediaControlError) -> CascadeReply {
        switch request {
        case .openTransport(let origin, let router, let producers, let plain):
            guard !isShuttingDown else { throw .shuttingDown(node: cluster.nodeId) }
            // A restarted origin's router ids start over: its earlier routes here must go first.
            await observe([origin])
            return try await openTransport(for: origin, router: router, producers: producers, plain: plain)
        case .connectWebRTCTransport(let transport, let remote):
            try owned(transport)
            try await local.connectWebRTCTransport(transport, remote: remote)
        case .restartICE(let transport, let remote):
            try owned(transport)
            return .ice(try await local.restartICE(transport, remote: remote))
        case .setFaultInjection(let transport, let dropShare, let rateCapBitrate):
            try owned(transport)
            try await local.setFaultInjection(transport: transport, dropShare: dropShare, rateCapBitrate: rateCapBitrate)
        case .closeTransport(let transport):
            guard let key = routeOfTransport[transport] else { return .done }
            try? await local.closeTransport(transport)
            release(transport, of: key)
        case .consume(let transport, let producer, let pauseReasons, let preference, let payloadTypes):
            guard let key = routeOfTransport[transport] else { throw .unknownTransport(transport) }
            guard let copy = routes[key]?.relayed[producer] else { throw .unknownProducer(producer) }
            var parameters = try await local.consume(
                transport: transport, producer: copy, pauseReasons: pauseReasons, preference: preference, payloadTypes: payloadTypes)
            routeOfConsumer[parameters.consumerID] = (key, transport)
            parameters.producerID = producer
            return .consumer(parameters)
        case .setLayerPreference(let consumer, let preference):
            try owned(consumer)
            try await local.setLayerPreference(consumer, preference)
        case .closeConsumer(let consumer):
            guard routeOfConsumer.removeValue(forKey: consumer) != nil else { return .done }
            try await local.closeConsumer(consumer)
        case .pauseConsumer(let consumer, let reason):
            try owned(consumer)
            try await local.pauseConsumer(consumer, reason: reason)
        case .resumeConsumer(let consumer, let reason):
            try owned(consumer)
            try await local.resumeConsumer(consumer, reason: reason)
        case .setAudioFallback(let transport, let side, let enabled):
            try owned(transport)
            try await local.setAudioFallback(transport: transport, side: side, enabled: enabled)
        case .statistics(let origin, let router):
            guard let route = routes[CascadeRoute.Key(origin: origin, router: router)] else { return .statistics(nil) }
            var statistics = try await local.statistics(router: route.localRouter)
            statistics.producers = []
            statistics.transports = statistics.transports.filter { route.transports.contains($0.transportID) }
            statistics.consumers = statistics.consumers.filter { routeOfConsumer[$0.consumerID] != nil }
            return .statistics(statistics)
        case .closeRouter(let origin, let router):
            await closeRoute(CascadeRoute.Key(origin: origin, router: router))
        case .relayFault(let dropShare):
            relayDropShare = dropShare
            for route in routes.values {
                try await local.setFaultInjection(transport: route.ingress.transportID, dropShare: dropShare, rateCapBitrate: nil)
            }
        case .openLeg(let router, let producers, let edge, let ingress, let legKey, let edgeKey, let existing):
            return try await openLeg(
                on: router, consuming: producers, toward: edge, ingress: ingress, legKey: legKey, edgeKey: edgeKey, existing: existing)
        case .closeLeg(let leg):
            guard legs.removeValue(forKey: leg) != nil else { return .done }
            try? await local.closeTransport(leg)
        case .events(let edge, let events):
            received(events, from: edge)
        }
        return .done
    }

    private func owned(_ transport: TransportID) throws(MediaControlError) {
        guard routeOfTransport[transport] != nil else { throw .unknownTransport(transport) }
    }

    private func owned(_ consumer: ConsumerID) throws(MediaControlError) {
        guard routeOfConsumer[consumer] != nil else { throw .unknownConsumer(consumer) }
    }

    /// A subscriber's transport here for `origin`'s router, fed by copies of its `producers` that the
    /// route's relay leg brings (asked for now when the route lacks them).
    private func openTransport(
        for origin: ClusterNodeAddress, router: RouterID, producers: [ProducerID], plain: PlainTransportOptions?
    ) async throws(MediaControlError) -> CascadeReply {
        let key = CascadeRoute.Key(origin: origin.nodeId, router: router)
        let copies = try await serialized(key) { () async throws(MediaControlError) -> [ProducerID] in
            try await self.relay(producers, of: key, from: origin)
        }
        guard let localRouter = routes[key]?.localRouter else { throw .unknownRouter(router) }
        let reply: CascadeReply
        let transport: TransportID
        do throws(MediaControlError) {
            if let plain {
                let parameters = try await local.createPlainTransport(router: localRouter, options: plain, toConsume: copies)
                (reply, transport) = (.plainTransport(parameters), parameters.transportID)
            } else {
                let parameters = try await local.createWebRTCTransport(router: localRouter, toConsume: copies)
                (reply, transport) = (.webRTCTransport(parameters), parameters.transportID)
            }
        } catch {
            await closeRouteIfUnused(key)
            throw error
        }
        guard routes[key] != nil else {
            try? await local.closeTransport(transport)
            throw .unknownRouter(router)
        }
        routes[key]!.transports.insert(transport)
        routeOfTransport[transport] = key
        return reply
    }

    /// The copies here of `producers`: the route made first when it is new (a router, and an ingress
    /// expecting a fresh key), then the origin asked to consume on the leg what is not yet relayed,
    /// each then produced on the ingress with the origin's SSRCs and payload types.
    private func relay(_ producers: [ProducerID], of key: CascadeRoute.Key, from origin: ClusterNodeAddress) async throws(MediaControlError) -> [ProducerID] {
        if routes[key] == nil {
            let localRouter = try await local.createRouter()
            let legKeys = SRTPKeyMaterial.random(profile: .aeadAES128GCM)
            let legKey = SRTPParameters(profile: legKeys.profile.rawValue, keyParameter: legKeys.sdesKeyParameter)
            do throws(MediaControlError) {
                let ingress = try await local.createPlainTransport(router: localRouter, options: PlainTransportOptions(clientSRTP: legKey))
                if let relayDropShare {
                    try await local.setFaultInjection(transport: ingress.transportID, dropShare: relayDropShare, rateCapBitrate: nil)
                }
                routes[key] = CascadeRoute(origin: origin, localRouter: localRouter, ingress: ingress, legKey: legKey)
            } catch {
                try? await local.closeRouter(localRouter)
                throw error
            }
        }
        let route = routes[key]!
        let missing = producers.filter { route.relayed[$0] == nil }
        if !missing.isEmpty {
            do throws(MediaControlError) {
                let reply = try await call(
                    .openLeg(
                        router: key.router, producers: missing, edge: cluster.nodeId, ingress: route.ingress.localAddress, legKey: route.legKey,
                        edgeKey: route.ingress.routerSRTP, leg: route.leg),
                    on: origin)
                guard case .leg(let leg, let tracks) = reply, tracks.allSatisfy({ !$0.consumers.isEmpty }) else {
                    throw Self.unexpected(reply, from: origin)
                }
                routes[key]?.leg = leg
                for track in tracks {
                    let copy = try await local.produce(transport: route.ingress.transportID, options: track.copyOptions)
                    routes[key]?.relayed[track.producerID] = copy
                }
            } catch {
                await closeRouteIfUnused(key)
                throw error
            }
        }
        return producers.compactMap { routes[key]?.relayed[$0] }
    }

    /// The origin's side: a plain transport on `router` toward the edge's ingress (or the one it
    /// already has), consuming `producers` with nothing held back. The leg is no subscriber: no
    /// audio fallback judges it and no budget limits it; a simulcast track crosses as one consumer
    /// per layer, each pinned to its layer with every temporal layer.
    private func openLeg(
        on router: RouterID, consuming producers: [ProducerID], toward edge: String, ingress: TransportAddress, legKey: SRTPParameters,
        edgeKey: SRTPParameters, existing: TransportID?
    ) async throws(MediaControlError) -> CascadeReply {
        let leg: TransportID
        if let existing {
            guard legs[existing]?.router == router, legs[existing]?.edge == edge else { throw .unknownTransport(existing) }
            leg = existing
        } else {
            let options = PlainTransportOptions(remoteAddress: ingress, clientSRTP: edgeKey, routerSRTP: legKey, redundantAudio: .asPublished, isRelayLeg: true)
            leg = try await local.createPlainTransport(router: router, options: options, toConsume: producers).transportID
            legs[leg] = (router, edge)
        }
        var tracks: [RelayedTrack] = []
        do throws(MediaControlError) {
            for producer in producers {
                let layers = producerLayers[producer] ?? []
                var consumers: [ConsumerParameters] = []
                for layer in layers.isEmpty ? [nil] : layers.indices.map(Optional.some) {
                    let preference = layer.map { VideoLayerPreference(pinnedLayer: $0) } ?? .unconstrained
                    consumers.append(
                        try await local.consume(transport: leg, producer: producer, pauseReasons: [], preference: preference, payloadTypes: nil))
                }
                tracks.append(RelayedTrack(producerID: producer, consumers: consumers, layers: layers))
            }
        } catch {
            if existing == nil {
                legs[leg] = nil
                try? await local.closeTransport(leg)
            }
            throw error
        }
        return .leg(leg, tracks: tracks)
    }

    /// Runs `work` after every earlier setup of the route has ended.
    private func serialized<T: Sendable>(
        _ key: CascadeRoute.Key, _ work: @escaping @Sendable () async throws(MediaControlError) -> T
    ) async throws(MediaControlError) -> T {
        let previous = setupTails[key]
        let task = Task<Result<T, MediaControlError>, Never> {
            await previous?.value
            do throws(MediaControlError) {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }
        setupTails[key] = Task { _ = await task.value }
        return try await task.value.get()
    }

    /// A subscriber's transport here ended; the route goes with its last.
    func release(_ transport: TransportID, of key: CascadeRoute.Key) {
        routeOfTransport[transport] = nil
        routes[key]?.transports.remove(transport)
        routeOfConsumer = routeOfConsumer.filter { $0.value.transport != transport }
        Task { await self.closeRouteIfUnused(key) }
    }

    func closeRouteIfUnused(_ key: CascadeRoute.Key) async {
        guard let route = routes[key], route.transports.isEmpty else { return }
        await closeRoute(key)
    }

    /// Closes what the route holds here and, when `tellingOrigin`, its leg at the origin.
    func closeRoute(_ key: CascadeRoute.Key, tellingOrigin: Bool = true) async {
        guard let route = routes.removeValue(forKey: key) else { return }
        setupTails[key] = nil
        for transport in route.transports { routeOfTransport[transport] = nil }
        routeOfConsumer = routeOfConsumer.filter { $0.value.key != key }
        try? await local.closeRouter(route.localRouter)
        if tellingOrigin, let leg = route.leg { _ = try? await call(.closeLeg(leg), on: route.origin) }
        logger.info("cascade route closed", metadata: ["origin": "\(key.origin)", "router": "\(key.router)"])
    }

    /// Tells each origin its subscribers' transports here failed, and closes every route.
    func failEverythingServedForOthers(reason: String) async {
        for (key, route) in routes {
            let failures = route.transports.map { MediaEvent.transportFailed($0, reason: reason) }
            if !failures.isEmpty { _ = try? await call(.events(edge: cluster.nodeId, failures), on: route.origin) }
            await closeRoute(key)
        }
    }
}
