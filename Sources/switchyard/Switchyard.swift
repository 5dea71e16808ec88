import ArgumentParser
import CSystemShims
import Foundation
import Logging
import Metrics
import Prometheus
import SRTP
import Signaling
import SignalingProtocol
import SwitchyardServer

/// The `switchyard` command: runs the daemon, or mints tokens from its configuration.
@main
struct Switchyard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchyard",
        abstract: "A self-hosted media router: a routed-mode SFU.",
        subcommands: [Serve.self, Token.self, RESTToken.self, CheckConfig.self],
        defaultSubcommand: Serve.self)
}

/// Descriptors the daemon needs besides HTTP connections and media ports: listening sockets, epoll
/// and event descriptors of the workers and event loops, logs, the DTLS and TLS files.
let reservedDescriptors = 64

/// glibc's malloc arenas for the daemon. By default glibc gives threads up to 8 arenas per core, and
/// each keeps what its threads freed; signaling allocates from every NIO and concurrency thread, so
/// floods of connections left memory behind (docs/operations.md, "Memory"). The media plane's packet
/// path does not allocate, so fewer arenas cost it nothing. MALLOC_ARENA_MAX in the environment wins.
let mallocArenas: Int32 = 2

/// sysexits' EX_CONFIG: the configuration is wrong.
let configurationErrorExit = ExitCode(78)

struct ConfigurationOption: ParsableArguments {
    @Option(name: .long, help: "A JSON configuration file (see Config/switchyard.json). Without it, the built-in default.")
    var config: String?

    func load() throws -> SwitchyardConfiguration {
        guard let config else { return .builtIn }
        do {
            return try SwitchyardConfiguration.load(from: config)
        } catch {
            FileHandle.standardError.write(Data("switchyard: configuration error in \(config): \(error)\n".utf8))
            throw configurationErrorExit
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the daemon (the default).")

    @OptionGroup var options: ConfigurationOption

    func run() async throws {
        // Before the daemon's threads allocate: see mallocArenas.
        let arenasCapped = switchyard_limit_malloc_arenas(mallocArenas) == 1
        let configuration = try options.load()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = configuration.logLevel
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let logger = Logger(label: "switchyard")
        logger.info("malloc arenas", metadata: ["limit": "\(arenasCapped ? "\(mallocArenas)" : "MALLOC_ARENA_MAX or glibc's default")"])
        let openFiles = switchyard_raise_open_file_limit()
        logger.info("open file limit", metadata: ["limit": "\(openFiles)"])
        let mediaPorts = configuration.media.portRange.count
        if openFiles >= 0, configuration.http.maximumConnections + mediaPorts + reservedDescriptors > openFiles {
            logger.warning(
                "server.http.maxConnections (\(configuration.http.maximumConnections)) plus \(mediaPorts) media ports and \(reservedDescriptors) for the daemon itself exceed the open file limit (\(openFiles)): a flood of connections could take the descriptors media needs. Lower maxConnections or raise the limit (LimitNOFILE= under systemd).")
        }
        if SRTPLibrary.build == "system" {
            logger.warning(
                "linked against the distribution's libsrtp2: Debian's uses NSS and protects SRTP 1.5-3x slower than the OpenSSL build; build release binaries with `make release` (docs/srtp-build.md)")
        }
        if configuration.usesDevelopmentCredentials {
            if configuration.listensBeyondLoopback {
                for _ in 0..<3 {
                    logger.critical(
                        "DEVELOPMENT CREDENTIALS ON A NON-LOOPBACK ADDRESS: anyone who reads the README can mint tokens for this server. Set credentials.apiKey and credentials.apiSecret.")
                }
            } else {
                logger.notice("using the development API key and secret (loopback only)")
            }
        }
        let daemon: SwitchyardDaemon
        do {
            daemon = try await SwitchyardDaemon(configuration: configuration, logger: logger, registry: registry) { port in
                logger.notice(
                    "switchyard listening",
                    metadata: [
                        "http": "\(configuration.tls == nil ? "http" : "https")://\(configuration.host):\(port)",
                        "websocket": "\(SignalingServer.webSocketPath)",
                        "media": "\(configuration.media.listenAddress) ports \(configuration.media.portRange.lowerBound)-\(configuration.media.portRange.upperBound)",
                        "workers": "\(configuration.media.workerCount)",
                        "srtp": "\(SRTPLibrary.description)",
                        "webrtc": "\(configuration.media.webRTCSharedPort.map { "shared port \($0)+worker" } ?? "ports from the range")",
                    ])
            }
        } catch {
            logger.critical("\(error)")
            if case .tls = error { throw configurationErrorExit }
            throw ExitCode.failure
        }
        logger.info("DTLS certificate of this run", metadata: ["fingerprint": "\(daemon.dtlsFingerprint)"])
        if !daemon.iceTCPPorts.isEmpty {
            logger.notice("ICE-TCP listening", metadata: ["ports": "\(daemon.iceTCPPorts.map(String.init).joined(separator: ", "))"])
        }
        try await daemon.run()
        logger.notice("switchyard stopped")
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mint a client token from the configured API key and secret.")

    @OptionGroup var options: ConfigurationOption
    @Option(help: "The session the token is for.") var session: String
    @Option(help: "subscriber, publisher, publisheronly or moderator.") var role: String = "publisher"
    @Option(help: "Connection data other clients see (at most 1000 characters).") var data: String = ""
    @Option(help: "Lifetime in seconds.") var ttl: Int64 = 86_400
    @Flag(help: "The connection hears no other connection's join or leave, only their count (connection_events_suppressed).")
    var connectionEventsSuppressed = false

    func validate() throws {
        guard Role(rawValue: role) != nil else {
            throw ValidationError("--role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard data.count <= TokenAuthority.maximumConnectionDataCharacters else {
            throw ValidationError("--data has \(data.count) characters; the limit is \(TokenAuthority.maximumConnectionDataCharacters)")
        }
        guard ttl > 0 else { throw ValidationError("--ttl must be positive") }
        guard TokenAuthority.isValidSessionId(session) else {
            throw ValidationError("--session must be 1 to 128 characters of A-Z a-z 0-9 - _")
        }
    }

    func run() async throws {
        let configuration = try options.load()
        let authority = await TokenAuthority(apiKey: configuration.apiKey, apiSecret: configuration.apiSecret)
        print(
            try await authority.mintClientToken(
                sessionId: session, role: Role(rawValue: role)!, connectionData: data, connectionEventsSuppressed: connectionEventsSuppressed,
                lifetime: ttl, now: Date()))
    }
}

struct RESTToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rest-token", abstract: "Mint a short-lived token for the REST API (Authorization: Bearer).")

    @OptionGroup var options: ConfigurationOption
    @Option(help: "Lifetime in seconds (at most credentials.restTokenMaxLifetimeSeconds).") var ttl: Int64 = 300

    func run() async throws {
        let configuration = try options.load()
        guard ttl > 0, ttl <= configuration.restTokenMaximumLifetimeSeconds else {
            throw ValidationError("--ttl must be 1 to \(configuration.restTokenMaximumLifetimeSeconds) (credentials.restTokenMaxLifetimeSeconds)")
        }
        let authority = await TokenAuthority(apiKey: configuration.apiKey, apiSecret: configuration.apiSecret)
        print(try await authority.mintRESTToken(lifetime: ttl, now: Date()))
    }
}

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Check a configuration file and exit (status 78 when it is wrong).")

    @OptionGroup var options: ConfigurationOption

    func run() async throws {
        _ = try options.load()
        print("configuration is valid")
    }
}
