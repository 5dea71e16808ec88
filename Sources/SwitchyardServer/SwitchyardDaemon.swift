import Cluster
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import MediaControl
import MediaRouter
import NIOSSL
import Prometheus
import SRTP
import ServiceLifecycle
import Signaling
import Webhooks
import Archiving

/// The whole server: media plane, signaling, REST, health and metrics, run as a service group that
/// shuts down gracefully on SIGTERM and SIGINT.
public final class SwitchyardDaemon: Sendable {
    public let configuration: SwitchyardConfiguration
    public let signaling: SignalingServer
    /// This node's membership of its cluster; nil when it runs alone.
    public let cluster: ClusterNode?
    /// Delivers session activity to the app's backend; nil without a `webhooks` configuration.
    public let webhooks: WebhookDispatcher?
    /// Records sessions; nil when the configuration turns archives off.
    public let archives: ArchiveStore?
    private let media: MediaPlane
    /// Each worker's ICE-TCP port (empty when `media.webrtc.tcpPort` is null).
    public var iceTCPPorts: [UInt16] { media.tcpPorts }
    private let admission: HTTPConnectionAdmission
    private let group: ServiceGroup

    /// - Parameter onReady: called with the bound HTTP port once the server listens.
    public init(
        configuration: SwitchyardConfiguration, logger: Logger, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        onReady: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws(DaemonError) {
        self.configuration = configuration
        do {
            media = try MediaPlane(configuration: configuration.media)
        } catch {
            throw .mediaPlane(error)
        }
        let tokens = await TokenAuthority(
            apiKey: configuration.apiKey, apiSecret: configuration.apiSecret,
            restTokenMaximumLifetime: Int64(configuration.restTokenMaximumLifetimeSeconds))
        // One switch for every test aid: media.faultInjection.
        var signalingConfiguration = configuration.signaling
        signalingConfiguration.faultInjection = configuration.media.faultInjection
        let archives: ArchiveStore?
        do throws(ArchiveStoreError) {
            archives = try configuration.archives.map { archiving throws(ArchiveStoreError) in try ArchiveStore(configuration: archiving, logger: logger) }
        } catch {
            media.shutdown()
            throw .archives(error)
        }
        self.archives = archives
        if let clusterConfiguration = configuration.cluster {
            do {
                cluster = try await ClusterNode(configuration: clusterConfiguration, logger: logger)
            } catch {
                media.shutdown()
                throw .cluster(error)
            }
        } else {
            cluster = nil
        }
        let media = media
        let cascade = cluster.map { CascadingMediaControl(local: media, cluster: $0, tokens: tokens, logger: logger) }
        let control: any MediaControl = cascade ?? media
        let node = cluster
        let webhooks = configuration.webhooks.map { webhookConfiguration in
            // In a cluster the outbox is a table, so a live node delivers what a dead one left.
            let outbox: any WebhookOutbox =
                node.map { PostgresWebhookOutbox(node: $0, endpoints: webhookConfiguration.endpoints.map(\.name), logger: logger) }
                ?? MemoryWebhookOutbox()
            return WebhookDispatcher(configuration: webhookConfiguration, outbox: outbox, logger: logger, flushTime: configuration.drainTime * 0.5)
        }
        self.webhooks = webhooks
        if let cluster, let webhooks { await cluster.onHeartbeat { await webhooks.checkForTakenOverEvents() } }
        signaling = SignalingServer(
            media: control, tokens: tokens, configuration: signalingConfiguration, placement: cluster, activity: webhooks, archiving: archives,
            logger: logger)
        if let archives {
            if let cluster { archives.attach(PostgresArchiveCatalog(node: cluster, logger: logger), nodeId: cluster.nodeId) }
            let directory = signaling.directory
            archives.onSelfStop { archiveId in Task { await directory.archiveEndedBySelf(archiveId) } }
        }
        let limits = configuration.http
        let admission = HTTPConnectionAdmission(
            maximumConnections: limits.maximumConnections, maximumPerAddress: limits.maximumConnectionsPerAddress)
        self.admission = admission
        let signaling = signaling
        let metrics = SwitchyardMetrics(
            registry: registry, directory: signaling.directory, media: media, srtpVersion: SRTPLibrary.version, srtpBuild: SRTPLibrary.build,
            cluster: cluster, cascade: cascade, webhooks: webhooks, openConnections: { (admission.open, signaling.openWebSockets) })
        if let cluster, let cascade {
            let directory = signaling.directory
            await cluster.reportLoad {
                let counts = await directory.counts()
                let plane = await media.planeStatistics()
                // The subscribers it serves for other nodes' sessions load a node too.
                let servedForOthers = await cascade.cascadeCounts.servedForOthers
                return (
                    NodeLoadSample(
                        sessions: counts.sessions, connections: counts.connections, streams: counts.streams,
                        subscribers: counts.subscribers + servedForOthers,
                        packetsForwarded: plane.packetsSent, cpuSeconds: ProcessCPUTime.seconds()),
                    await directory.sessionIds()
                )
            }
        }

        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware())
        signaling.register(on: router)
        if let cascade { CascadeRoutes(cascade: cascade, tokens: tokens).register(on: router) }
        WebhookRoutes(dispatcher: webhooks, tokens: tokens).register(on: router)
        WebClientRoutes(
            tokens: tokens, servesDevelopmentTokens: configuration.usesDevelopmentCredentials && !configuration.listensBeyondLoopback
        ).register(on: router)
        router.get("/health") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: await metrics.render())))
        }

        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: HTTP1Channel.Configuration(
                idleTimeout: .init(limits.idleTimeout),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: limits.maximumHeaderBytes, maxHeaderListSize: limits.maximumHeaderBytes,
                    maxHeaderFieldCount: limits.maximumHeaderFields)),
            ws: signaling.webSocketConfiguration)
        var server = HTTPServerBuilder { responder in
            GuardedHTTPChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, configuration: channelConfiguration,
                    shouldUpgrade: { request, channel, logger in signaling.webSocketUpgrade(request, channel: channel, logger: logger) }),
                limits: limits, admission: admission)
        }
        if let tls = configuration.tls {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(tls.certificateChainFile).map { NIOSSLCertificateSource.certificate($0) }
                let key = try NIOSSLPrivateKey(file: tls.privateKeyFile, format: .pem)
                server = try .tls(server, tlsConfiguration: .makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key)))
            } catch {
                throw .tls("\(error)")
            }
        }
        let application = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "switchyard"),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
        // Clients get most of the drain time to close; the HTTP server stops in what is left.
        let shutdown = SignalingShutdownService(
            signaling: signaling, media: media, drainTime: configuration.drainTime * 0.8, cluster: cluster, webhooks: webhooks,
            archives: archives)
        // Services shut down in reverse order: the cluster membership outlives the clients' drain
        // (which needs the database) and leaves before the HTTP server stops; the subscribers this
        // node serves for other nodes' sessions are handed back before its own clients drain; the
        // webhooks outlive the drain, so the sessions it ends are reported, and flush before the
        // node leaves, so what they deliver is settled in the outbox.
        var groupConfiguration = ServiceGroupConfiguration(
            services: [
                .init(service: application),
                cluster.map { .init(service: $0) },
                webhooks.map { .init(service: $0) },
                .init(service: shutdown),
                cascade.map { .init(service: $0) },
                .init(service: MediaEventRelay(media: control, directory: signaling.directory)),
                .init(
                    service: MemoryReturnService(
                        load: { [directory = signaling.directory] in await admission.open + directory.counts().connections }, logger: logger)),
            ].compactMap { $0 },
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.drainTime
        group = ServiceGroup(configuration: groupConfiguration)
    }

    /// The fingerprint of this run's DTLS certificate, as SDP carries it (`sha-256 AB:CD:...`).
    public var dtlsFingerprint: String { media.certificateFingerprintText }

    /// HTTP connections (WebSockets included) open now.
    public var openHTTPConnections: Int { admission.open }

    /// Object counts, traffic and drops of the media plane.
    public func mediaStatistics() async -> MediaPlaneStatistics {
        await media.planeStatistics()
    }

    /// Runs until shut down.
    public func run() async throws {
        try await group.run()
    }

    /// Starts the same graceful shutdown as SIGTERM.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }
}
