import Cluster
import Archiving
import Foundation
import Logging
import MediaRouter
import Signaling
import Webhooks

/// Everything the daemon is configured with. Read from JSON by `load(from:)`; every key is optional
/// and takes the default documented in `docs/configuration.md` and `Config/switchyard.schema.json`.
public struct SwitchyardConfiguration: Equatable, Sendable {
    public struct TLS: Equatable, Sendable {
        public var certificateChainFile: String
        public var privateKeyFile: String
    }

    public var host: String
    public var port: Int
    public var tls: TLS?
    public var http: HTTPServerLimits
    public var apiKey: String
    public var apiSecret: String
    public var restTokenMaximumLifetimeSeconds: Int
    public var signaling: SignalingConfiguration
    public var media: MediaRouterConfiguration
    public var logLevel: Logger.Level
    public var drainTime: Duration
    /// Membership of a cluster of nodes on PostgreSQL; nil runs this node alone.
    public var cluster: ClusterConfiguration?
    /// Where the app's backend hears of its sessions; nil sends no webhooks.
    public var webhooks: WebhookConfiguration?
    /// Where and how sessions are recorded; nil when `archives.enabled` is false.
    public var archives: ArchivingConfiguration?

    /// Shortest API secret accepted, in bytes: HS256 keys shorter than the hash are weak.
    public static let minimumSecretBytes = 32

    /// The built-in configuration: `Config/switchyard.json`, byte for byte.
    public static let builtIn = try! parse(Data(defaultJSON.utf8))

    /// Whether the development credentials of the built-in configuration are in use.
    public var usesDevelopmentCredentials: Bool {
        apiKey == Self.developmentAPIKey || apiSecret == Self.developmentAPISecret
    }

    /// Whether anything listens beyond this machine.
    public var listensBeyondLoopback: Bool {
        !Self.isLoopback(host) || !Self.isLoopback(media.listenAddress)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Reads and checks a configuration file.
    public static func load(from path: String) throws(ConfigurationError) -> SwitchyardConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(keyPath: "", problem: "cannot read configuration file \(path)")
        }
        return try parse(data)
    }

    /// Parses and checks a configuration document.
    public static func parse(_ data: Data) throws(ConfigurationError) -> SwitchyardConfiguration {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError(keyPath: "", problem: "not valid JSON: \(describeJSONError(error))")
        }
        var root = try ConfigurationReader(document, path: "")

        var server = try root.object("server")
        let host = try server.string("host", default: "127.0.0.1")
        guard !host.isEmpty else { throw ConfigurationError(keyPath: "server.host", problem: "must not be empty") }
        let port = try server.integer("port", default: 7880, in: 0...65535)
        var tls: TLS?
        if var tlsReader = try server.optionalObject("tls") {
            tls = TLS(
                certificateChainFile: try requiredFile(&tlsReader, "certificateChainFile"),
                privateKeyFile: try requiredFile(&tlsReader, "privateKeyFile"))
            try tlsReader.finish()
        }
        var httpReader = try server.object("http")
        var http = HTTPServerLimits(
            maximumConnections: try httpReader.integer("maxConnections", default: 10_000, in: 1...1_000_000),
            maximumConnectionsPerAddress: try httpReader.integer("maxConnectionsPerAddress", default: 2_000, in: 1...1_000_000),
            headerTimeout: .seconds(try httpReader.integer("headerTimeoutSeconds", default: 10, in: 1...600)),
            idleTimeout: .seconds(try httpReader.integer("idleTimeoutSeconds", default: 60, in: 1...3600)),
            maximumHeaderBytes: try httpReader.integer("maxHeaderBytes", default: 16_384, in: 1024...1_048_576),
            maximumHeaderFields: try httpReader.integer("maxHeaderFields", default: 100, in: 8...10_000))
        try httpReader.finish()
        try server.finish()

        var credentials = try root.object("credentials")
        let apiKey = try credentials.string("apiKey", default: developmentAPIKey)
        guard !apiKey.isEmpty else { throw ConfigurationError(keyPath: "credentials.apiKey", problem: "must not be empty") }
        let apiSecret = try credentials.string("apiSecret", default: developmentAPISecret)
        guard apiSecret.utf8.count >= minimumSecretBytes else {
            throw ConfigurationError(
                keyPath: "credentials.apiSecret",
                problem: "is \(apiSecret.utf8.count) bytes; it must be at least \(minimumSecretBytes) (use 32 random bytes, e.g. `openssl rand -hex 32`)")
        }
        let restLifetime = try credentials.integer("restTokenMaxLifetimeSeconds", default: 300, in: 1...86_400)
        try credentials.finish()

        var signalingReader = try root.object("signaling")
        let pingIntervalSeconds = try signalingReader.integer("pingIntervalSeconds", default: 15, in: 1...3600)
        var signaling = SignalingConfiguration(
            maximumMessageBytes: try signalingReader.integer("maxMessageBytes", default: 65_536, in: 16_384...16_777_216),
            messagesPerSecond: try signalingReader.number("messagesPerSecond", default: 50, in: 0.1...100_000),
            messageBurst: try signalingReader.integer("messageBurst", default: 100, in: 1...100_000),
            rateViolationsBeforeDisconnect: try signalingReader.integer("rateViolationsBeforeDisconnect", default: 50, in: 1...100_000),
            connectTimeout: .seconds(try signalingReader.integer("connectTimeoutSeconds", default: 10, in: 1...3600)),
            pingInterval: .seconds(pingIntervalSeconds),
            backlog: ClientOutbox.Limits(
                messages: try signalingReader.integer("maxBacklogMessages", default: 4096, in: 16...1_000_000),
                bytes: try signalingReader.integer("maxBacklogBytes", default: 4_194_304, in: 65_536...1_073_741_824)),
            reconnection: ReconnectionSettings(
                grace: .seconds(try signalingReader.integer("reconnectGraceSeconds", default: 20, in: 0...3600)),
                replayMessages: try signalingReader.integer("maxReplayMessages", default: 1024, in: 16...1_000_000),
                replayBytes: try signalingReader.integer("maxReplayBytes", default: 1_048_576, in: 65_536...1_073_741_824),
                rememberedSignalIds: try signalingReader.integer("rememberedSignalIds", default: 1024, in: 16...1_000_000),
                // A dead socket is closed once a ping goes unanswered (two intervals); a third for slack.
                retainedWhileConnected: .seconds(3 * pingIntervalSeconds)),
            limits: SignalingLimits(
                connectionsPerSession: try signalingReader.integer("maxConnectionsPerSession", default: 1000, in: 1...1_000_000),
                streamsPerConnection: try signalingReader.integer("maxStreamsPerConnection", default: 4, in: 1...1000),
                subscribersPerConnection: try signalingReader.integer("maxSubscribersPerConnection", default: 256, in: 1...100_000),
                sessions: try signalingReader.integer("maxSessions", default: 10_000, in: 1...10_000_000)))
        try signalingReader.finish()
        if var turnReader = try root.optionalObject("turn") {
            signaling.turn = try turn(&turnReader)
        }
        // A peer that leaves the server's writes queued is cut off by the same deadline as one that
        // does not answer a ping: it cannot be reading pings either.
        http.writeStallTimeout = signaling.pingInterval

        var mediaReader = try root.object("media")
        let workers = try mediaReader.integer("workers", default: 0, in: 0...256)
        let listenAddress = try mediaReader.string("listenAddress", default: "127.0.0.1")
        try requireIPv4(listenAddress, at: "media.listenAddress")
        let announcedAddress = try mediaReader.optionalString("announcedAddress")
        if let announcedAddress { try requireIPv4(announcedAddress, at: "media.announcedAddress") }
        if listenAddress == "0.0.0.0", announcedAddress == nil {
            throw ConfigurationError(
                keyPath: "media.announcedAddress",
                problem: "is required when media.listenAddress is 0.0.0.0: clients need an address they can send to")
        }
        var range = try mediaReader.object("portRange")
        let first = try range.integer("first", default: 40_000, in: 1024...65535)
        let last = try range.integer("last", default: 40_999, in: 1024...65535)
        guard first <= last else {
            throw ConfigurationError(keyPath: "media.portRange", problem: "first (\(first)) is greater than last (\(last))")
        }
        try range.finish()
        let retransmission = try mediaReader.integer("retransmissionBufferPackets", default: 1024, in: 64...32_768)
        guard retransmission & (retransmission - 1) == 0 else {
            throw ConfigurationError(keyPath: "media.retransmissionBufferPackets", problem: "\(retransmission) is not a power of two")
        }
        var fallbackReader = try mediaReader.object("audioFallback")
        let audioFallback = try audioFallback(&fallbackReader)
        var redundancyReader = try mediaReader.object("redundantAudio")
        let addedRedundancy = AddedAudioRedundancy(
            frames: try redundancyReader.integer("addedFrames", default: 1, in: 0...2),
            lossThreshold: try redundancyReader.number("addAboveLoss", default: 0.03, in: 0...1))
        try redundancyReader.finish()
        var overloadReader = try mediaReader.object("overload")
        let overload = try overloadShedding(&overloadReader)
        var webRTC = try mediaReader.object("webrtc")
        let sharedPort = try webRTC.optionalInteger("sharedPort", in: 1024...65535)
        if let sharedPort, sharedPort + (workers == 0 ? ProcessInfo.processInfo.activeProcessorCount : workers) - 1 > 65535 {
            throw ConfigurationError(keyPath: "media.webrtc.sharedPort", problem: "\(sharedPort) plus one port per worker goes past 65535")
        }
        let tcpPort = try webRTC.nullableInteger("tcpPort", default: 0, in: 0...65535)
        if let tcpPort, tcpPort != 0, tcpPort < 1024 || tcpPort + (workers == 0 ? ProcessInfo.processInfo.activeProcessorCount : workers) - 1 > 65535 {
            throw ConfigurationError(
                keyPath: "media.webrtc.tcpPort", problem: "\(tcpPort) is not 0 (ports the kernel picks) or a port from 1024 with one more per worker up to 65535")
        }
        let connectTimeout = try webRTC.integer("connectTimeoutSeconds", default: 30, in: 1...600)
        // Clients check consent every 4-6 s (RFC 7675), so less than 10 s would drop healthy ones.
        let consentTimeout = try webRTC.integer("consentTimeoutSeconds", default: 30, in: 10...600)
        try webRTC.finish()
        let faultInjection = try mediaReader.boolean("faultInjection", default: false)
        let udpSegmentation = try mediaReader.boolean("udpSegmentation", default: true)
        let loopName = try mediaReader.string("workerLoop", default: WorkerLoop.dispatchWait.rawValue)
        guard let workerLoop = WorkerLoop(rawValue: loopName) else {
            let known = WorkerLoop.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw ConfigurationError(keyPath: "media.workerLoop", problem: "\"\(loopName)\" is not one of \(known)")
        }
        let media = MediaRouterConfiguration(
            workerCount: workers == 0 ? ProcessInfo.processInfo.activeProcessorCount : workers,
            listenAddress: listenAddress, announcedAddress: announcedAddress,
            portRange: UInt16(first)...UInt16(last),
            replayWindowSize: try mediaReader.integer("replayWindowPackets", default: 1024, in: 64...32_767),
            retransmissionBufferPackets: retransmission,
            keyFrameRequestInterval: .milliseconds(try mediaReader.integer("keyFrameRequestIntervalMs", default: 1000, in: 100...60_000)),
            reportInterval: .milliseconds(try mediaReader.integer("reportIntervalMs", default: 1000, in: 100...60_000)),
            producerIdleTimeout: .milliseconds(try mediaReader.integer("producerIdleTimeoutMs", default: 5000, in: 500...600_000)),
            audioFallback: audioFallback,
            webRTCSharedPort: sharedPort.map { UInt16($0) },
            webRTCTCPPort: tcpPort.map { UInt16($0) },
            webRTCConnectTimeout: .seconds(connectTimeout),
            iceConsentTimeout: .seconds(consentTimeout),
            faultInjection: faultInjection,
            udpSegmentation: udpSegmentation,
            workerLoop: workerLoop,
            spreadThreshold: try mediaReader.integer("spreadThreshold", default: 64, in: 0...1_000_000),
            relayRingCapacity: try mediaReader.integer("relayRingPackets", default: 1024, in: 16...65_536),
            addedAudioRedundancy: addedRedundancy,
            overloadShedding: overload)
        try mediaReader.finish()

        var logging = try root.object("logging")
        let levelName = try logging.string("level", default: "info")
        guard let level = Logger.Level(rawValue: levelName) else {
            let known = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(keyPath: "logging.level", problem: "\"\(levelName)\" is not one of \(known)")
        }
        try logging.finish()

        var shutdown = try root.object("shutdown")
        let drainSeconds = try shutdown.integer("drainSeconds", default: 10, in: 1...600)
        try shutdown.finish()

        var cluster: ClusterConfiguration?
        if var clusterReader = try root.optionalObject("cluster") {
            cluster = try Self.cluster(&clusterReader, host: host, port: port, usesTLS: tls != nil, maxSessions: signaling.limits.sessions)
        }

        var webhooks: WebhookConfiguration?
        if var webhooksReader = try root.optionalObject("webhooks") {
            webhooks = try Self.webhooks(&webhooksReader)
        }

        var archivesReader = try root.object("archives")
        let archives = try Self.archives(&archivesReader)

        try root.finish(allowing: ["$schema"])
        return SwitchyardConfiguration(
            host: host, port: port, tls: tls, http: http, apiKey: apiKey, apiSecret: apiSecret,
            restTokenMaximumLifetimeSeconds: restLifetime, signaling: signaling, media: media, logLevel: level,
            drainTime: .seconds(drainSeconds), cluster: cluster, webhooks: webhooks, archives: archives)
    }

    private static func requiredFile(_ reader: inout ConfigurationReader, _ key: String) throws(ConfigurationError) -> String {
        guard let path = try reader.optionalString(key), !path.isEmpty else {
            throw ConfigurationError(keyPath: reader.keyPath(key), problem: "is required when server.tls is set")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigurationError(keyPath: reader.keyPath(key), problem: "file \(path) does not exist or cannot be read")
        }
        return path
    }

    private static func requireIPv4(_ address: String, at keyPath: String) throws(ConfigurationError) {
        guard MediaRouterConfiguration.isIPv4Address(address) else {
            throw ConfigurationError(keyPath: keyPath, problem: "\"\(address)\" is not an IPv4 address")
        }
    }

    private static func describeJSONError(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
