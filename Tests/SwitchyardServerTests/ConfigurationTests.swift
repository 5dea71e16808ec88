import Archiving
import Foundation
import MediaRouter
import Signaling
import SwitchyardServer
import Testing
import Webhooks

@Suite struct ConfigurationTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func refusal(_ json: String) -> ConfigurationError? {
        do {
            _ = try SwitchyardConfiguration.parse(Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    @Test func theShippedConfigIsTheBuiltInDefault() throws {
        let shipped = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("Config/switchyard.json"), encoding: .utf8)
        #expect(shipped == SwitchyardConfiguration.defaultJSON)
        let builtIn = SwitchyardConfiguration.builtIn
        #expect(builtIn.host == "127.0.0.1" && builtIn.port == 7880 && builtIn.media.portRange == 40_000...40_999)
        #expect(builtIn.usesDevelopmentCredentials && !builtIn.listensBeyondLoopback)
    }

    @Test func anEmptyObjectTakesEveryDefault() throws {
        #expect(try SwitchyardConfiguration.parse(Data("{}".utf8)) == SwitchyardConfiguration.builtIn)
    }

    @Test func anUnknownKeyIsNamedWithItsPath() {
        let error = refusal(#"{"server":{"hots":"0.0.0.0"}}"#)
        #expect(error?.keyPath == "server.hots")
        #expect(error?.problem.hasPrefix("unknown key") == true)
        #expect(refusal(#"{"medai":{}}"#)?.keyPath == "medai")
    }

    @Test func aWrongTypeIsNamed() {
        #expect(refusal(#"{"server":{"port":"7880"}}"#) == ConfigurationError(keyPath: "server.port", problem: "expected an integer, found a string"))
        #expect(refusal(#"{"media":{"workers":true}}"#)?.problem == "expected an integer, found a boolean")
        #expect(refusal(#"{"media":[]}"#) == ConfigurationError(keyPath: "media", problem: "expected an object, found an array"))
    }

    @Test func aShortOrEmptySecretIsRefused() {
        #expect(refusal(#"{"credentials":{"apiSecret":"short"}}"#)?.keyPath == "credentials.apiSecret")
        #expect(refusal(#"{"credentials":{"apiSecret":""}}"#)?.problem.hasPrefix("is 0 bytes") == true)
        #expect(refusal(#"{"credentials":{"apiKey":""}}"#)?.keyPath == "credentials.apiKey")
    }

    @Test func aReversedOrBadPortRangeIsRefused() {
        #expect(refusal(#"{"media":{"portRange":{"first":41000,"last":40000}}}"#)
            == ConfigurationError(keyPath: "media.portRange", problem: "first (41000) is greater than last (40000)"))
        #expect(refusal(#"{"media":{"portRange":{"first":80}}}"#)?.keyPath == "media.portRange.first")
        #expect(refusal(#"{"server":{"port":70000}}"#)?.problem == "70000 is out of range 0...65535")
    }

    @Test func aMissingCertificateFileIsRefused() {
        let error = refusal(#"{"server":{"tls":{"certificateChainFile":"/nonexistent/cert.pem","privateKeyFile":"/nonexistent/key.pem"}}}"#)
        #expect(error == ConfigurationError(
            keyPath: "server.tls.certificateChainFile", problem: "file /nonexistent/cert.pem does not exist or cannot be read"))
        #expect(refusal(#"{"server":{"tls":{}}}"#)?.keyPath == "server.tls.certificateChainFile")
    }

    @Test func audioFallbackSettingsAreReadAndCheckedTogether() throws {
        let configuration = try SwitchyardConfiguration.parse(Data(#"{"media":{"audioFallback":{"disableAfterMs":2500,"probeBitrate":200000}}}"#.utf8))
        #expect(configuration.media.audioFallback.disableAfter == .milliseconds(2500))
        #expect(configuration.media.audioFallback.probeBitrate == 200_000)
        #expect(configuration.media.audioFallback.warningScore == 70)
        #expect(refusal(#"{"media":{"audioFallback":{"warningScore":40}}}"#)
            == ConfigurationError(keyPath: "media.audioFallback", problem: "disableScore (45.0) must not exceed warningScore (40.0)"))
        #expect(refusal(#"{"media":{"audioFallback":{"smoothing":0}}}"#)?.keyPath == "media.audioFallback.smoothing")
        #expect(refusal(#"{"media":{"audioFallback":{"recoverAfterMs":"2s"}}}"#)
            == ConfigurationError(keyPath: "media.audioFallback.recoverAfterMs", problem: "expected an integer, found a string"))
        #expect(refusal(#"{"media":{"audioFallback":{"warnAfter":500}}}"#)?.keyPath == "media.audioFallback.warnAfter")
        #expect(refusal(#"{"media":{"audioFallback":{"recoverAfterMs":9000,"maxRecoverAfterMs":8000}}}"#)?.problem
            == "maxRecoverAfterMs must not be shorter than recoverAfterMs")
    }

    @Test func segmentedSendsAreOnByDefaultAndCanBeTurnedOff() throws {
        #expect(SwitchyardConfiguration.builtIn.media.udpSegmentation)
        #expect(try !SwitchyardConfiguration.parse(Data(#"{"media":{"udpSegmentation":false}}"#.utf8)).media.udpSegmentation)
        #expect(
            refusal(#"{"media":{"udpSegmentation":"off"}}"#)
                == ConfigurationError(keyPath: "media.udpSegmentation", problem: "expected true or false, found a string"))
    }

    @Test func theRouterAddsOneFrameOfRedAboveThreePercentLossByDefaultAndItIsChecked() throws {
        #expect(SwitchyardConfiguration.builtIn.media.addedAudioRedundancy == AddedAudioRedundancy(frames: 1, lossThreshold: 0.03))
        let parsed = try SwitchyardConfiguration.parse(Data(#"{"media":{"redundantAudio":{"addedFrames":0,"addAboveLoss":0.1}}}"#.utf8))
        #expect(parsed.media.addedAudioRedundancy == AddedAudioRedundancy(frames: 0, lossThreshold: 0.1))
        #expect(refusal(#"{"media":{"redundantAudio":{"addedFrames":3}}}"#)?.keyPath == "media.redundantAudio.addedFrames")
        #expect(refusal(#"{"media":{"redundantAudio":{"addAboveLoss":1.5}}}"#)?.keyPath == "media.redundantAudio.addAboveLoss")
        #expect(refusal(#"{"media":{"redundantAudio":{"frames":1}}}"#)?.keyPath == "media.redundantAudio.frames")
    }

    @Test func overloadSheddingIsOnByDefaultAndItsLimitsAreChecked() throws {
        #expect(SwitchyardConfiguration.builtIn.media.overloadShedding == OverloadShedding())
        #expect(OverloadShedding().enabled && OverloadShedding().forwardingBudget == 120_000)
        let parsed = try SwitchyardConfiguration.parse(
            Data(#"{"media":{"overload":{"enabled":false,"shedAboveMs":30,"stepShare":0.25,"forwardingBudget":0}}}"#.utf8))
        #expect(!parsed.media.overloadShedding.enabled)
        #expect(parsed.media.overloadShedding.shedAbove == .milliseconds(30) && parsed.media.overloadShedding.stepShare == 0.25)
        #expect(parsed.media.overloadShedding.forwardingBudget == 0)
        #expect(
            refusal(#"{"media":{"overload":{"videoQueueLimitMs":300}}}"#)
                == ConfigurationError(
                    keyPath: "media.overload.audioQueueLimitMs", problem: "is below videoQueueLimitMs: audio would be dropped before video"))
        #expect(
            refusal(#"{"media":{"overload":{"shedAboveMs":150}}}"#)
                == ConfigurationError(
                    keyPath: "media.overload.shedAboveMs",
                    problem: "is not below videoQueueLimitMs: video would be dropped late before any is turned off"))
        #expect(refusal(#"{"media":{"overload":{"stepShare":0}}}"#)?.keyPath == "media.overload.stepShare")
        #expect(refusal(#"{"media":{"overload":{"forwardingBudget":-1}}}"#)?.keyPath == "media.overload.forwardingBudget")
        #expect(refusal(#"{"media":{"overload":{"budget":1}}}"#)?.keyPath == "media.overload.budget")
    }

    @Test func archivesAreOnByDefaultAndTheirSettingsAreChecked() throws {
        #expect(SwitchyardConfiguration.builtIn.archives == ArchivingConfiguration(directory: "archives"))
        let parsed = try SwitchyardConfiguration.parse(
            Data(#"{"archives":{"directory":"/srv/recordings","maximumBytesPerArchive":1048576,"minimumFreeBytes":0,"ringPackets":256}}"#.utf8))
        #expect(
            parsed.archives
                == ArchivingConfiguration(directory: "/srv/recordings", maximumBytesPerArchive: 1_048_576, minimumFreeBytes: 0, ringPackets: 256))
        #expect(try SwitchyardConfiguration.parse(Data(#"{"archives":{"enabled":false}}"#.utf8)).archives == nil)
        #expect(refusal(#"{"archives":{"directory":""}}"#) == ConfigurationError(keyPath: "archives.directory", problem: "must not be empty"))
        #expect(refusal(#"{"archives":{"directory":7}}"#)?.keyPath == "archives.directory")
        #expect(refusal(#"{"archives":{"maximumBytesPerArchive":1000}}"#)?.keyPath == "archives.maximumBytesPerArchive")
        #expect(refusal(#"{"archives":{"ringPackets":100}}"#)?.keyPath == "archives.ringPackets")
        #expect(refusal(#"{"archives":{"maximumConcurrent":0}}"#)?.keyPath == "archives.maximumConcurrent")
        #expect(refusal(#"{"archives":{"folder":"x"}}"#)?.keyPath == "archives.folder")
    }

    @Test func aDaemonWhoseArchiveDirectoryIsAFileDoesNotStartAndSaysWhy() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-not-a-directory-\(UUID().uuidString)").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            _ = try await DaemonHarness.start { $0.archives?.directory = file }
            Issue.record("the daemon started")
        } catch {
            #expect("\(error)".contains("archives.directory \(file) cannot be used: it is a file, not a directory"), "\(error)")
        }
    }

    @Test func workersWaitOnTheirDispatchQueueByDefaultAndSpreadBigAudiences() throws {
        let builtIn = SwitchyardConfiguration.builtIn.media
        #expect(builtIn.workerLoop == .dispatchWait)
        #expect(builtIn.spreadThreshold == 64)
        #expect(builtIn.relayRingCapacity == 1024)
        let parsed = try SwitchyardConfiguration.parse(
            Data(#"{"media":{"workerLoop":"epoll","spreadThreshold":0,"relayRingPackets":256}}"#.utf8)).media
        #expect(parsed.workerLoop == .epoll)
        #expect(parsed.spreadThreshold == 0)
        #expect(parsed.relayRingCapacity == 256)
        #expect(
            refusal(#"{"media":{"workerLoop":"kqueue"}}"#)
                == ConfigurationError(keyPath: "media.workerLoop", problem: #""kqueue" is not one of "dispatch-wait", "epoll", "dispatch""#))
        #expect(
            refusal(#"{"media":{"spreadThreshold":-1}}"#)
                == ConfigurationError(keyPath: "media.spreadThreshold", problem: "-1 is out of range 0...1000000"))
        #expect(refusal(#"{"media":{"relayRingPackets":8}}"#)?.keyPath == "media.relayRingPackets")
    }

    @Test func reconnectionSettingsAreReadAndBounded() throws {
        #expect(SwitchyardConfiguration.builtIn.signaling.reconnection == ReconnectionSettings())
        let parsed = try SwitchyardConfiguration.parse(
            Data(#"{"signaling":{"reconnectGraceSeconds":0,"maxReplayMessages":64,"maxReplayBytes":65536,"rememberedSignalIds":16}}"#.utf8))
        #expect(parsed.signaling.reconnection == ReconnectionSettings(grace: .zero, replayMessages: 64, replayBytes: 65_536, rememberedSignalIds: 16))
        #expect(
            refusal(#"{"signaling":{"reconnectGraceSeconds":-1}}"#)
                == ConfigurationError(keyPath: "signaling.reconnectGraceSeconds", problem: "-1 is out of range 0...3600"))
        #expect(refusal(#"{"signaling":{"maxReplayMessages":1}}"#)?.keyPath == "signaling.maxReplayMessages")
        #expect(refusal(#"{"signaling":{"maxReplayBytes":"1MB"}}"#)?.keyPath == "signaling.maxReplayBytes")
    }

    @Test func clusterModeIsOffByDefaultAndItsSettingsAreChecked() throws {
        #expect(SwitchyardConfiguration.builtIn.cluster == nil)
        let parsed = try SwitchyardConfiguration.parse(
            Data(#"{"server":{"host":"10.0.0.2","port":7000},"cluster":{"databaseURL":"postgres://sy:pw@db.internal/switchyard","nodeId":"node-1"}}"#.utf8))
        let cluster = try #require(parsed.cluster)
        #expect(cluster.database.host == "db.internal" && cluster.database.port == 5432 && cluster.database.user == "sy")
        #expect(cluster.database.password == "pw" && cluster.database.database == "switchyard" && cluster.database.tls == .prefer)
        #expect(cluster.database.description == "postgres://sy@db.internal:5432/switchyard?sslmode=prefer")
        #expect(cluster.signalingURL == "ws://10.0.0.2:7000/v1/ws" && cluster.internalURL == "http://10.0.0.2:7000")
        #expect(cluster.maxSessions == 10_000 && cluster.heartbeatInterval == .seconds(2) && cluster.nodeTimeout == .seconds(10))
        #expect(cluster.subscribersBeforeCascading == nil, "a session's subscribers stay on its node unless asked")

        let base = #""databaseURL":"postgres://sy@db/switchyard","nodeId":"n1""#
        #expect(refusal(#"{"cluster":{"nodeId":"n1"}}"#)?.keyPath == "cluster.databaseURL")
        #expect(
            refusal(#"{"cluster":{"databaseURL":"mysql://db/x","nodeId":"n1"}}"#)
                == ConfigurationError(keyPath: "cluster.databaseURL", problem: "must start with postgres:// (postgres://user:password@host:5432/database)"))
        #expect(refusal(#"{"cluster":{"databaseURL":"postgres://db/x","nodeId":"n1"}}"#)?.problem.hasPrefix("names no user") == true)
        #expect(refusal(#"{"cluster":{"databaseURL":"postgres://sy@db","nodeId":"n1"}}"#)?.problem.hasPrefix("names no database") == true)
        #expect(refusal(#"{"cluster":{"databaseURL":"postgres://sy@db/x?sslmode=maybe","nodeId":"n1"}}"#)?.problem.contains("sslmode") == true)
        #expect(refusal(#"{"cluster":{"databaseURL":"postgres://sy@db/x"}}"#)?.keyPath == "cluster.nodeId")
        #expect(refusal(#"{"cluster":{"databaseURL":"postgres://sy@db/x","nodeId":"no spaces"}}"#)?.keyPath == "cluster.nodeId")
        #expect(
            refusal(#"{"server":{"host":"0.0.0.0"},"cluster":{\#(base)}}"#)?.keyPath == "cluster.signalingURL",
            "a node listening everywhere must say where it is reached")
        #expect(refusal(#"{"cluster":{\#(base),"signalingURL":"http://a/v1/ws"}}"#)?.keyPath == "cluster.signalingURL")
        #expect(refusal(#"{"cluster":{\#(base),"internalURL":"ws://a:1"}}"#)?.keyPath == "cluster.internalURL")
        #expect(
            refusal(#"{"cluster":{\#(base),"heartbeatSeconds":5,"nodeTimeoutSeconds":8}}"#)?.problem
                == "8 must be at least twice cluster.heartbeatSeconds (5), or one late heartbeat declares a node dead")
        #expect(refusal(#"{"cluster":{\#(base),"maxSessions":0}}"#)?.keyPath == "cluster.maxSessions")
        #expect(refusal(#"{"cluster":{\#(base),"subscribersBeforeCascading":0}}"#)?.keyPath == "cluster.subscribersBeforeCascading")
        #expect(refusal(#"{"cluster":{\#(base),"subscribersBeforeCascading":"many"}}"#)?.keyPath == "cluster.subscribersBeforeCascading")
        let cascading = try SwitchyardConfiguration.parse(Data(#"{"cluster":{\#(base),"subscribersBeforeCascading":50}}"#.utf8))
        #expect(cascading.cluster?.subscribersBeforeCascading == 50)
        #expect(refusal(#"{"cluster":{\#(base),"nodes":3}}"#)?.keyPath == "cluster.nodes")
    }

    @Test func webhooksAreOffByDefaultAndTheirSettingsAreChecked() throws {
        #expect(SwitchyardConfiguration.builtIn.webhooks == nil, "no webhooks unless an endpoint is configured")
        let secret = String(repeating: "k", count: 32)
        let parsed = try SwitchyardConfiguration.parse(
            Data(
                #"{"webhooks":{"endpoints":[{"url":"https://hooks.example.com/switchyard","secret":"\#(secret)"},{"name":"audit","url":"http://10.0.0.5:8080/in","secret":"\#(secret)","events":["connectionCreated","sessionDestroyed"]}],"requestTimeoutSeconds":2.5,"maxQueuedEvents":500,"maxConcurrentDeliveries":3,"retry":{"initialDelaySeconds":0.5,"maxDelaySeconds":30,"giveUpAfterSeconds":3600}}}"#
                    .utf8))
        let webhooks = try #require(parsed.webhooks)
        #expect(webhooks.endpoints.map(\.name) == ["endpoint-1", "audit"])
        #expect(webhooks.endpoints[0].events == nil && webhooks.endpoints[1].events == [.connectionCreated, .sessionDestroyed])
        #expect(webhooks.requestTimeout == .milliseconds(2500) && webhooks.maximumQueuedEvents == 500 && webhooks.maximumConcurrentDeliveries == 3)
        #expect(webhooks.retry == WebhookRetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(30), giveUpAfter: .seconds(3600)))

        let good = #""secret":"\#(secret)""#
        #expect(refusal(#"{"webhooks":{}}"#)?.keyPath == "webhooks.endpoints")
        #expect(refusal(#"{"webhooks":{"endpoints":[]}}"#)?.keyPath == "webhooks.endpoints")
        #expect(refusal(#"{"webhooks":{"endpoints":[{\#(good)}]}}"#)?.keyPath == "webhooks.endpoints[0].url")
        #expect(
            refusal(#"{"webhooks":{"endpoints":[{"url":"ftp://hooks.example.com/in",\#(good)}]}}"#)
                == ConfigurationError(keyPath: "webhooks.endpoints[0].url", problem: #""ftp://hooks.example.com/in" is not an http:// or https:// URL with a host"#))
        #expect(refusal(#"{"webhooks":{"endpoints":[{"url":"hooks.example.com",\#(good)}]}}"#)?.keyPath == "webhooks.endpoints[0].url")
        #expect(refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in"}]}}"#)?.keyPath == "webhooks.endpoints[0].secret")
        #expect(
            refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in","secret":""}]}}"#)
                == ConfigurationError(keyPath: "webhooks.endpoints[0].secret", problem: "is required: the key receivers check each delivery's signature with"))
        #expect(refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in","secret":"short"}]}}"#)?.problem.hasPrefix("is 5 bytes") == true)
        #expect(
            refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in",\#(good),"events":["connectionCreated","streamStarted"]}]}}"#)?.keyPath
                == "webhooks.endpoints[0].events[1]")
        #expect(refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in",\#(good),"events":[]}]}}"#)?.keyPath == "webhooks.endpoints[0].events")
        #expect(
            refusal(#"{"webhooks":{"endpoints":[{"name":"a","url":"https://h/1",\#(good)},{"name":"a","url":"https://h/2",\#(good)}]}}"#)
                == ConfigurationError(keyPath: "webhooks.endpoints[1].name", problem: #""a" names two endpoints"#))
        #expect(refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in",\#(good),"token":"x"}]}}"#)?.keyPath == "webhooks.endpoints[0].token")
        #expect(refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in",\#(good)}],"maxQueuedEvents":0}}"#)?.keyPath == "webhooks.maxQueuedEvents")
        #expect(
            refusal(#"{"webhooks":{"endpoints":[{"url":"https://h/in",\#(good)}],"retry":{"initialDelaySeconds":10,"maxDelaySeconds":1}}}"#)?.keyPath
                == "webhooks.retry.maxDelaySeconds")
        #expect(refusal(#"{"webhooks":{"endpoints":{"url":"https://h/in"}}}"#) == ConfigurationError(keyPath: "webhooks.endpoints", problem: "expected an array of objects, found an object"))
    }

    @Test func turnIsOffByDefaultAndItsSettingsAreChecked() throws {
        #expect(SwitchyardConfiguration.builtIn.signaling.turn == nil, "the default configuration gives clients no ICE servers")
        let secret = "0123456789abcdef0123456789abcdef"
        let parsed = try SwitchyardConfiguration.parse(
            Data(#"{"turn":{"urls":["stun:turn.example.com:3478","turn:turn.example.com:3478?transport=tcp","turns:turn.example.com:443"],"sharedSecret":"\#(secret)"}}"#.utf8))
        let turn = try #require(parsed.signaling.turn)
        #expect(turn.urls.map(\.description) == ["stun:turn.example.com:3478", "turn:turn.example.com:3478?transport=tcp", "turns:turn.example.com:443"])
        #expect(turn.sharedSecret == secret && turn.credentialLifetimeSeconds == 86_400)
        #expect(try SwitchyardConfiguration.parse(
            Data(#"{"turn":{"urls":["turn:t"],"sharedSecret":"\#(secret)","credentialLifetimeSeconds":600}}"#.utf8)).signaling.turn?.credentialLifetimeSeconds == 600)

        let urls = #""urls":["turn:turn.example.com"]"#
        let shared = #""sharedSecret":"\#(secret)""#
        #expect(refusal(#"{"turn":{\#(shared)}}"#)?.keyPath == "turn.urls")
        #expect(refusal(#"{"turn":{"urls":[],\#(shared)}}"#) == ConfigurationError(keyPath: "turn.urls", problem: "must list at least one stun:, turn: or turns: URL"))
        #expect(refusal(#"{"turn":{"urls":"turn:t",\#(shared)}}"#) == ConfigurationError(keyPath: "turn.urls", problem: "expected an array of strings, found a string"))
        #expect(refusal(#"{"turn":{"urls":["turn:t",3478],\#(shared)}}"#) == ConfigurationError(keyPath: "turn.urls[1]", problem: "expected a string, found an integer"))
        #expect(
            refusal(#"{"turn":{"urls":["turn:t","http://turn.example.com"],\#(shared)}}"#)
                == ConfigurationError(keyPath: "turn.urls[1]", problem: #""http://turn.example.com": scheme "http" is not stun, turn or turns"#))
        #expect(refusal(#"{"turn":{"urls":["turns:t:443?transport=udp"],\#(shared)}}"#)?.keyPath == "turn.urls[0]")
        #expect(refusal(#"{"turn":{"urls":["turn:t:99999"],\#(shared)}}"#)?.keyPath == "turn.urls[0]")
        #expect(refusal(#"{"turn":{\#(urls)}}"#)?.keyPath == "turn.sharedSecret")
        #expect(refusal(#"{"turn":{\#(urls),"sharedSecret":""}}"#)?.problem.hasPrefix("is 0 bytes") == true)
        #expect(refusal(#"{"turn":{\#(urls),"sharedSecret":"short"}}"#)?.keyPath == "turn.sharedSecret")
        #expect(
            refusal(#"{"turn":{\#(urls),\#(shared),"credentialLifetimeSeconds":30}}"#)
                == ConfigurationError(keyPath: "turn.credentialLifetimeSeconds", problem: "30 is out of range 60...604800"))
        #expect(refusal(#"{"turn":{\#(urls),\#(shared),"credentialLifetimeSeconds":604801}}"#)?.keyPath == "turn.credentialLifetimeSeconds")
        #expect(refusal(#"{"turn":{\#(urls),\#(shared),"ttl":600}}"#)?.keyPath == "turn.ttl")
    }

    @Test func otherBadValuesAreNamed() {
        #expect(refusal("{ not json")?.problem.hasPrefix("not valid JSON") == true)
        #expect(refusal(#"{"logging":{"level":"loud"}}"#)?.keyPath == "logging.level")
        #expect(refusal(#"{"media":{"listenAddress":"example.com"}}"#)?.keyPath == "media.listenAddress")
        #expect(refusal(#"{"media":{"listenAddress":"+127.0.0.1"}}"#)?.keyPath == "media.listenAddress")
        #expect(refusal(#"{"media":{"listenAddress":"127.000.0.1"}}"#)?.keyPath == "media.listenAddress")
        #expect(refusal(#"{"media":{"listenAddress":"0.0.0.0"}}"#)?.keyPath == "media.announcedAddress")
        #expect(refusal(#"{"credentials":{"apiSecret":null}}"#) == ConfigurationError(keyPath: "credentials.apiSecret", problem: "expected a string, found null"))
        #expect(refusal(#"{"media":{"retransmissionBufferPackets":1000}}"#)?.problem == "1000 is not a power of two")
    }

    @Test func iceTCPIsOnByDefaultOnPortsTheKernelPicksAndTakesAFixedPortOrNull() throws {
        #expect(try SwitchyardConfiguration.parse(Data("{}".utf8)).media.webRTCTCPPort == 0)
        #expect(try SwitchyardConfiguration.parse(Data(#"{"media":{"workers":2,"webrtc":{"tcpPort":7881}}}"#.utf8)).media.webRTCTCPPort == 7881)
        #expect(try SwitchyardConfiguration.parse(Data(#"{"media":{"webrtc":{"tcpPort":null}}}"#.utf8)).media.webRTCTCPPort == nil)
        #expect(refusal(#"{"media":{"webrtc":{"tcpPort":443}}}"#)?.keyPath == "media.webrtc.tcpPort")
        #expect(refusal(#"{"media":{"workers":4,"webrtc":{"tcpPort":65534}}}"#)?.keyPath == "media.webrtc.tcpPort")
        #expect(refusal(#"{"media":{"webrtc":{"tcpPort":70000}}}"#)?.problem == "70000 is out of range 0...65535")
        #expect(refusal(#"{"media":{"webrtc":{"tcpPort":"7881"}}}"#)?.problem == "expected an integer, found a string")
    }

    @Test func developmentCredentialsBeyondLoopbackAreDetected() throws {
        let configuration = try SwitchyardConfiguration.parse(Data(#"{"server":{"host":"0.0.0.0"}}"#.utf8))
        #expect(configuration.usesDevelopmentCredentials && configuration.listensBeyondLoopback)
    }
}
