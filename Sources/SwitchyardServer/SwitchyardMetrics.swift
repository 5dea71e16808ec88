import Cluster
import MediaControl
import Prometheus
import Signaling
import Synchronization
import Webhooks

/// The daemon's Prometheus metrics. Counts come from the session directory and the media plane
/// when `/metrics` is scraped; media counters advance by what the plane counted since the last
/// scrape, so they stay monotonic across closed routers.
final class SwitchyardMetrics: Sendable {
    /// Audio-fallback event kinds, as `PRODUCT.md` names them.
    static let audioFallbackEventKinds = [
        "videoDisableWarning", "videoDisableWarningLifted", "videoDisabled", "videoEnabled",
        "publisherVideoDisableWarning", "publisherVideoDisableWarningLifted", "publisherVideoDisabled", "publisherVideoEnabled",
    ]

    let registry: PrometheusCollectorRegistry
    private let directory: SessionDirectory
    private let media: any MediaControl
    private let sessions, connections, streams, subscribers: Gauge
    private let workers, workersSegmentingSends, routers, transports, producers, consumers: Gauge
    private let httpConnections, webSockets: Gauge
    private let openConnections: @Sendable () -> (http: Int, webSockets: Int)
    private let packetsReceived, bytesReceived, packetsSent, bytesSent: Counter
    private let drops: Mutex<[String: Counter]>
    /// Per-worker metrics, made the first time each worker reports.
    private let workerMetrics: Mutex<[Int: WorkerMetrics]>
    private let audioFallbackEvents: [String: Counter]
    private let cluster: ClusterNode?
    private let cascade: CascadingMediaControl?
    /// Subscribers served here for other nodes' sessions, this node's subscribers served elsewhere, relay legs fed.
    private let cascadeGauges: (servedForOthers: Gauge, servedElsewhere: Gauge, relayLegs: Gauge)?
    /// The cluster's counters by `ClusterMetrics` key path, labelled with this node's id.
    private let clusterCounters: [(any KeyPath<ClusterMetrics, UInt64> & Sendable, Counter)]
    /// The totals each counter has been advanced to, by counter name and label.
    private let reported = Mutex([String: UInt64]())
    let webhooks: WebhookDispatcher?
    /// Webhook counters and gauges by name and labels, made the first time each is reported.
    let webhookCounters = Mutex([String: Counter]())
    let webhookGauges = Mutex([String: Gauge]())

    init(
        registry: PrometheusCollectorRegistry, directory: SessionDirectory, media: any MediaControl, srtpVersion: String, srtpBuild: String,
        cluster: ClusterNode? = nil, cascade: CascadingMediaControl? = nil, webhooks: WebhookDispatcher? = nil,
        openConnections: @escaping @Sendable () -> (http: Int, webSockets: Int)
    ) {
        self.webhooks = webhooks
        self.cluster = cluster
        self.cascade = cascade
        let node = [("node", cluster?.configuration.nodeId ?? "")]
        cascadeGauges =
            cascade == nil
            ? nil
            : (
                Self.gauge(registry, "cluster_cascaded_subscribers", "Subscribers of other nodes' sessions whose media this node serves", labels: node),
                Self.gauge(registry, "cluster_subscribers_served_elsewhere", "Subscribers of this node's sessions whose media other nodes serve", labels: node),
                Self.gauge(registry, "cluster_relay_legs", "Relay legs this node feeds to other nodes, one per session and edge", labels: node)
            )
        clusterCounters =
            cluster == nil
            ? []
            : [
                (\.heartbeats, Self.counter(registry, "cluster_heartbeats", "Heartbeats this node wrote to the cluster's database", labels: node)),
                (\.heartbeatFailures, Self.counter(registry, "cluster_heartbeat_failures", "Heartbeats the database did not take in time", labels: node)),
                (\.placements, Self.counter(registry, "cluster_placements", "Sessions this node placed, on itself or another node", labels: node)),
                (\.forwardedRequests, Self.counter(registry, "cluster_forwarded_requests", "REST requests answered by the node holding their session", labels: node)),
                (\.forwardingFailures, Self.counter(registry, "cluster_forwarding_failures", "REST requests whose session's node did not answer", labels: node)),
                (\.databaseFailures, Self.counter(registry, "cluster_database_failures", "Requests refused because the cluster's database did not answer in time", labels: node)),
            ]
        self.openConnections = openConnections
        httpConnections = Self.gauge(registry, "http_connections", "Open HTTP connections, WebSockets included")
        webSockets = Self.gauge(registry, "websockets", "Open client WebSockets, connected to a session or not")
        self.registry = registry
        self.directory = directory
        self.media = media
        sessions = Self.gauge(registry, "sessions", "Sessions on this server")
        connections = Self.gauge(registry, "connections", "Connected clients")
        streams = Self.gauge(registry, "streams", "Published streams")
        subscribers = Self.gauge(registry, "subscribers", "Subscriptions (one connection receiving one stream)")
        workers = Self.gauge(registry, "media_workers", "Media worker threads")
        workersSegmentingSends = Self.gauge(
            registry, "media_workers_segmenting_sends", "Media workers sending runs of equal-sized packets segmented (UDP GSO)")
        routers = Self.gauge(registry, "media_routers", "Media routers (one per active session)")
        transports = Self.gauge(registry, "media_transports", "Media transports")
        producers = Self.gauge(registry, "media_producers", "Published tracks")
        consumers = Self.gauge(registry, "media_consumers", "Forwarded tracks (one per subscriber and track)")
        packetsReceived = Self.counter(registry, "media_packets_received", "UDP datagrams received by the media plane")
        bytesReceived = Self.counter(registry, "media_bytes_received", "Bytes of UDP datagrams received")
        packetsSent = Self.counter(registry, "media_packets_sent", "UDP datagrams sent by the media plane")
        bytesSent = Self.counter(registry, "media_bytes_sent", "Bytes of UDP datagrams sent")
        audioFallbackEvents = Dictionary(uniqueKeysWithValues: Self.audioFallbackEventKinds.map { kind in
            (kind, Self.counter(registry, "audio_fallback_events", "Audio-fallback events sent to clients", labels: [("kind", kind)]))
        })
        drops = Mutex([:])
        workerMetrics = Mutex([:])
        Self.gauge(registry, "build_info", "Always 1; the labels describe the build", labels: [("srtp", srtpVersion), ("srtp_build", srtpBuild)]).set(1.0)
    }

    static func gauge(
        _ registry: PrometheusCollectorRegistry, _ name: String, _ help: String, labels: [(String, String)] = []
    ) -> Gauge {
        registry.makeGauge(descriptor: MetricNameDescriptor(namespace: "switchyard", metricName: name, unitName: "", helpText: help), labels: labels)
    }

    static func counter(
        _ registry: PrometheusCollectorRegistry, _ name: String, _ help: String, labels: [(String, String)] = []
    ) -> Counter {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "switchyard", metricName: name, unitName: "total", helpText: help), labels: labels)
    }

    /// Brings every metric up to date.
    func refresh() async {
        let counts = await directory.counts()
        let plane = await media.planeStatistics()
        let open = openConnections()
        httpConnections.set(Double(open.http))
        webSockets.set(Double(open.webSockets))
        sessions.set(Double(counts.sessions))
        connections.set(Double(counts.connections))
        streams.set(Double(counts.streams))
        subscribers.set(Double(counts.subscribers))
        workers.set(Double(plane.workers))
        workersSegmentingSends.set(Double(plane.workersSegmentingSends))
        routers.set(Double(plane.routers))
        transports.set(Double(plane.transports))
        producers.set(Double(plane.producers))
        consumers.set(Double(plane.consumers))
        advance(packetsReceived, key: "packetsReceived", to: plane.packetsReceived)
        advance(bytesReceived, key: "bytesReceived", to: plane.bytesReceived)
        advance(packetsSent, key: "packetsSent", to: plane.packetsSent)
        advance(bytesSent, key: "bytesSent", to: plane.bytesSent)
        for (kind, count) in counts.audioFallbackEvents {
            guard let counter = audioFallbackEvents[kind] else { continue }
            advance(counter, key: "audioFallback." + kind, to: count)
        }
        for worker in plane.workerDetails { report(worker) }
        if let cluster {
            let totals = await cluster.counters
            for (path, counter) in clusterCounters { advance(counter, key: "cluster.\(path)", to: totals[keyPath: path]) }
        }
        if let cascade, let cascadeGauges {
            let counts = await cascade.cascadeCounts
            cascadeGauges.servedForOthers.set(Double(counts.servedForOthers))
            cascadeGauges.servedElsewhere.set(Double(counts.servedElsewhere))
            cascadeGauges.relayLegs.set(Double(counts.relayLegs))
        }
        if let webhooks { refreshWebhooks(await webhooks.status()) }
        for (reason, count) in plane.drops {
            let counter = drops.withLock { drops in
                if let counter = drops[reason] { return counter }
                let counter = Self.counter(registry, "media_drops", "Packets dropped by the media plane, by reason", labels: [("reason", reason)])
                drops[reason] = counter
                return counter
            }
            advance(counter, key: "drops." + reason, to: count)
        }
    }

    /// One worker's load and relaying, labelled `worker="<index>"`, so an operator sees how routers spread.
    private struct WorkerMetrics {
        let consumers, producerCopies, ringDepth, tcpConnections: Gauge
        let packetsReceived, packetsSent, busySeconds, relayOut, relayIn, relayDrops: Counter
        let tcpAccepted, tcpRefused, tcpClosedUnverified, tcpTimedOut: Counter
        let queueDelay, videoShed, forwardingRate: Gauge
        let sheddingSteps, restoringSteps: Counter
    }

    private func report(_ worker: WorkerStatistics) {
        let label = String(worker.index)
        let metrics = workerMetrics.withLock { all in
            if let metrics = all[worker.index] { return metrics }
            let labels = [("worker", label)]
            let metrics = WorkerMetrics(
                consumers: Self.gauge(registry, "media_worker_consumers", "Consumers on the media worker", labels: labels),
                producerCopies: Self.gauge(
                    registry, "media_worker_producer_copies", "Copies of producers of other workers, fed through relay rings", labels: labels),
                ringDepth: Self.gauge(registry, "media_worker_relay_ring_depth", "Relay messages waiting in the rings into the worker", labels: labels),
                tcpConnections: Self.gauge(registry, "media_worker_ice_tcp_connections", "ICE-TCP connections open on the worker's TCP port", labels: labels),
                packetsReceived: Self.counter(registry, "media_worker_packets_received", "UDP datagrams the worker received", labels: labels),
                packetsSent: Self.counter(registry, "media_worker_packets_sent", "UDP datagrams the worker sent", labels: labels),
                busySeconds: Self.counter(
                    registry, "media_worker_busy_seconds", "Seconds the worker spent handling sockets, rings and its tick; its rate is the worker's share of a core",
                    labels: labels),
                relayOut: Self.counter(
                    registry, "media_worker_relay_messages", "Relay messages between workers", labels: labels + [("direction", "out")]),
                relayIn: Self.counter(registry, "media_worker_relay_messages", "Relay messages between workers", labels: labels + [("direction", "in")]),
                relayDrops: Self.counter(
                    registry, "media_worker_relay_drops", "Relay messages dropped because the ring to the other worker was full", labels: labels),
                tcpAccepted: Self.counter(
                    registry, "media_worker_ice_tcp_connections_total", "ICE-TCP connections by outcome", labels: labels + [("outcome", "accepted")]),
                tcpRefused: Self.counter(
                    registry, "media_worker_ice_tcp_connections_total", "ICE-TCP connections by outcome", labels: labels + [("outcome", "refused")]),
                tcpClosedUnverified: Self.counter(
                    registry, "media_worker_ice_tcp_connections_total", "ICE-TCP connections by outcome", labels: labels + [("outcome", "unverified")]),
                tcpTimedOut: Self.counter(
                    registry, "media_worker_ice_tcp_connections_total", "ICE-TCP connections by outcome", labels: labels + [("outcome", "timedOut")]),
                queueDelay: Self.gauge(
                    registry, "media_worker_queue_delay_seconds",
                    "The least a packet waited in the worker's sockets in the last 100 ms: above a few milliseconds, the worker is behind", labels: labels),
                videoShed: Self.gauge(
                    registry, "media_worker_video_shed_subscribers", "Subscribers whose video overload shedding has off", labels: labels),
                forwardingRate: Self.gauge(
                    registry, "media_worker_forwarded_packets_per_second", "Packets per second the worker forwards, smoothed over about a second",
                    labels: labels),
                sheddingSteps: Self.counter(
                    registry, "media_worker_overload_steps", "Overload shedding's steps", labels: labels + [("direction", "videoOff")]),
                restoringSteps: Self.counter(
                    registry, "media_worker_overload_steps", "Overload shedding's steps", labels: labels + [("direction", "videoOn")]))
            all[worker.index] = metrics
            return metrics
        }
        metrics.consumers.set(Double(worker.consumers))
        metrics.producerCopies.set(Double(worker.producerCopies))
        metrics.ringDepth.set(Double(worker.relayRingDepth))
        let key = "worker\(label)."
        advance(metrics.packetsReceived, key: key + "packetsReceived", to: worker.packetsReceived)
        advance(metrics.packetsSent, key: key + "packetsSent", to: worker.packetsSent)
        // Whole milliseconds, so the counter keeps its integer steps.
        let busyMilliseconds = worker.busyNanoseconds / 1_000_000
        let previous = reported.withLock { reported in
            defer { reported[key + "busy"] = max(reported[key + "busy"] ?? 0, busyMilliseconds) }
            return reported[key + "busy"] ?? 0
        }
        if busyMilliseconds > previous { metrics.busySeconds.increment(by: Double(busyMilliseconds - previous) / 1000) }
        advance(metrics.relayOut, key: key + "relayOut", to: worker.relayMessagesOut)
        advance(metrics.relayIn, key: key + "relayIn", to: worker.relayMessagesIn)
        advance(metrics.relayDrops, key: key + "relayDrops", to: worker.relayDrops)
        metrics.tcpConnections.set(Double(worker.tcpConnections))
        metrics.queueDelay.set(Double(worker.queueDelayNanoseconds) / 1e9)
        metrics.videoShed.set(Double(worker.videoShedSubscribers))
        metrics.forwardingRate.set(worker.forwardedPacketsPerSecond.rounded())
        advance(metrics.sheddingSteps, key: key + "sheddingSteps", to: worker.sheddingSteps)
        advance(metrics.restoringSteps, key: key + "restoringSteps", to: worker.restoringSteps)
        advance(metrics.tcpAccepted, key: key + "tcpAccepted", to: worker.tcpConnectionsAccepted)
        advance(metrics.tcpRefused, key: key + "tcpRefused", to: worker.tcpConnectionsRefused)
        advance(metrics.tcpClosedUnverified, key: key + "tcpClosedUnverified", to: worker.tcpConnectionsClosedUnverified)
        advance(metrics.tcpTimedOut, key: key + "tcpTimedOut", to: worker.tcpConnectionsTimedOut)
    }

    /// Moves a counter up to a total the plane reported. Two scrapes may finish out of order; the
    /// older total then moves nothing.
    func advance(_ counter: Counter, key: String, to total: UInt64) {
        let delta = reported.withLock { reported in
            let previous = reported[key] ?? 0
            guard total > previous else { return UInt64(0) }
            reported[key] = total
            return total - previous
        }
        if delta > 0 { counter.increment(by: Int64(clamping: delta)) }
    }

    /// The Prometheus text exposition of every metric.
    func render() async -> [UInt8] {
        await refresh()
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
