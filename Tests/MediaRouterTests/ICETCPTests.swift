import Glibc
import MediaControl
import MediaTestSupport
import RTPWire
import SRTP
import Testing

@testable import MediaRouter

/// ICE over TCP (RFC 6544 passive candidates, RFC 4571 framing) on 127.0.0.1: STUN, DTLS and SRTP
/// over one connection, a client that moves between TCP and UDP, a client that stops reading, and
/// every kind of hostile connection the worker must bound.
@Suite struct ICETCPTests {
    static func configuration(ports: ClosedRange<UInt16>, verificationTimeout: Duration = .seconds(5)) -> MediaRouterConfiguration {
        MediaRouterConfiguration(workerCount: 1, portRange: ports, webRTCTCPPort: 0, iceTCPVerificationTimeout: verificationTimeout)
    }

    /// A WebRTC peer over ICE-TCP to `transport`, connected (ICE, DTLS, SRTP keys) and told to the plane.
    static func connectOverTCP(to transport: WebRTCTransportParameters, on plane: MediaPlane) async throws -> WebRTCTestPeer {
        let tcpPort = try #require(transport.tcpCandidates.first?.port)
        let peer = try WebRTCTestPeer(tcpToRouterPort: tcpPort)
        try await WebRTCTransportTests.connect(peer, to: transport, on: plane)
        return peer
    }

    /// One more subscriber of the pair's stream, over ICE-TCP: its transport and its connected peer.
    static func subscribeOverTCP(to pair: WebRTCTransportTests.Pair) async throws -> (WebRTCTransportParameters, WebRTCTestPeer) {
        let producer = try #require(try await pair.plane.statistics(router: pair.router).producers.first?.producerID)
        let transport = try await pair.plane.createWebRTCTransport(router: pair.router)
        _ = try await pair.plane.consume(transport: transport.transportID, producer: producer, pauseReasons: [])
        return (transport, try await connectOverTCP(to: transport, on: pair.plane))
    }

    static func worker(of plane: MediaPlane) async -> WorkerStatistics? {
        await plane.planeStatistics().workerDetails.first
    }

    @Test func everyAnswerOffersTheWorkersTCPPortBesideTheUDPCandidate() async throws {
        let plane = try MediaPlane(configuration: Self.configuration(ports: 46_500...46_509))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let first = try await plane.createWebRTCTransport(router: router)
        let second = try await plane.createWebRTCTransport(router: router)
        #expect(plane.tcpPorts.count == 1 && plane.tcpPorts[0] != 0)
        #expect(first.tcpCandidates == [TransportAddress(host: "127.0.0.1", port: plane.tcpPorts[0])])
        #expect(second.tcpCandidates == first.tcpCandidates, "one TCP port per worker, shared by its transports")
        #expect(first.candidates.count == 1, "the UDP candidate stays")
        let withoutTCP = try MediaPlane(configuration: MediaRouterConfiguration(workerCount: 1, portRange: 46_510...46_519))
        defer { withoutTCP.shutdown() }
        let plain = try await withoutTCP.createWebRTCTransport(router: try await withoutTCP.createRouter())
        #expect(plain.tcpCandidates.isEmpty)
    }

    @Test func mediaFlowsFromATCPPublisherToTCPAndUDPSubscribers() async throws {
        let plane = try MediaPlane(configuration: Self.configuration(ports: 46_520...46_529))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let publisherTransport = try await plane.createWebRTCTransport(router: router)
        let producer = try await plane.produce(
            transport: publisherTransport.transportID,
            options: ProducerOptions(codec: CodecParameters(name: .vp8, payloadType: 96), ssrc: WebRTCTransportTests.videoSSRC))
        let publisher = try await Self.connectOverTCP(to: publisherTransport, on: plane)
        let tcpTransport = try await plane.createWebRTCTransport(router: router)
        _ = try await plane.consume(transport: tcpTransport.transportID, producer: producer, pauseReasons: [])
        let tcpSubscriber = try await Self.connectOverTCP(to: tcpTransport, on: plane)
        let udpTransport = try await plane.createWebRTCTransport(router: router)
        _ = try await plane.consume(transport: udpTransport.transportID, producer: producer, pauseReasons: [])
        let udpSubscriber = try WebRTCTestPeer()
        try await WebRTCTransportTests.connect(udpSubscriber, to: udpTransport, on: plane)

        for index in 0..<30 {
            try publisher.peer.sendRTP(
                payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(3000 * index), ssrc: WebRTCTransportTests.videoSSRC,
                payload: VP8TestPayload.make(index: index, keyFrame: index == 0))
        }
        let expected = (0..<30).map { VP8TestPayload.make(index: $0, keyFrame: $0 == 0) }
        #expect(try await onOwnThread { tcpSubscriber.peer.receiveRTP(count: 30).map(\.payload) } == expected)
        #expect(try await onOwnThread { udpSubscriber.peer.receiveRTP(count: 30).map(\.payload) } == expected)
        let statistics = try await plane.statistics(router: router)
        let subscriberStatistics = statistics.transports.first { $0.transportID == tcpTransport.transportID }
        #expect(subscriberStatistics?.remoteAddress?.port == tcpSubscriber.peer.port)
        #expect(statistics.drops.values.reduce(0, +) == 0)
        let worker = await Self.worker(of: plane)
        #expect(worker?.tcpConnections == 2)
        #expect(worker?.tcpConnectionsAccepted == 2)
    }

    /// A browser whose UDP starts working nominates the UDP pair: media follows it there, over the
    /// same DTLS keys, and back to TCP when the TCP pair is nominated again.
    @Test func aClientMovesFromTCPToUDPAndBack() async throws {
        let pair = try await WebRTCTransportTests.connectedPair(configuration: Self.configuration(ports: 46_530...46_539))
        defer { pair.plane.shutdown() }
        let (subscriberTransport, client) = try await Self.subscribeOverTCP(to: pair)
        try WebRTCTransportTests.publish(pair, from: 0, count: 5)
        #expect(try await onOwnThread { client.peer.receiveRTP(count: 5).count } == 5)

        let udp = try TestPeer()
        let keys = try #require(try client.dtls.srtpKeys())
        try udp.useKeys(local: keys.local, remote: keys.remote)
        udp.routerPort = subscriberTransport.candidates[0].port
        #expect(try await onOwnThread { client.check(via: udp) } == .success(mappedPort: udp.port))
        try WebRTCTransportTests.publish(pair, from: 5, count: 5)
        #expect(try await onOwnThread { udp.receiveRTP(count: 5).map(\.sequenceNumber) }.count == 5)
        #expect(try await onOwnThread { client.peer.receiveRTP(count: 1) }.isEmpty, "nothing more over TCP")

        #expect(try await onOwnThread { client.check() } == .success(mappedPort: client.peer.port))
        try WebRTCTransportTests.publish(pair, from: 10, count: 5)
        #expect(try await onOwnThread { client.peer.receiveRTP(count: 5).count } == 5)
    }

    /// An ICE restart over TCP: checks with the new credentials on the same connection succeed and
    /// media goes on; a new connection that names the old username is refused.
    @Test func anICERestartOverTCPTakesTheNewCredentialsOnTheSameConnection() async throws {
        let pair = try await WebRTCTransportTests.connectedPair(configuration: Self.configuration(ports: 46_580...46_589))
        defer { pair.plane.shutdown() }
        let (transport, client) = try await Self.subscribeOverTCP(to: pair)
        var restarted = transport
        restarted.ice = try await pair.plane.restartICE(transport.transportID, remote: nil)
        let stale = try WebRTCTestPeer(tcpToRouterPort: pair.plane.tcpPorts[0])
        stale.target(transport)
        client.target(restarted)
        #expect(try await onOwnThread { client.check() } == .success(mappedPort: client.peer.port))
        try WebRTCTransportTests.publish(pair, from: 0, count: 5)
        #expect(try await onOwnThread { client.peer.receiveRTP(count: 5).count } == 5)
        #expect(try await onOwnThread { stale.check() } == .noAnswer)
        #expect(try await onOwnThread { Self.closedByRouter(stale.peer.descriptor) }, "a connection naming the old username")
    }

    /// A TCP subscriber that stops reading costs the router its bounded queue and no more: frames past
    /// it are dropped and counted, the subscriber beside it gets everything, the connection stays, and
    /// what it reads afterwards is an intact stream.
    @Test func aTCPSubscriberThatStopsReadingIsHeldToItsQueueWhileOthersGetEverything() async throws {
        let pair = try await WebRTCTransportTests.connectedPair(configuration: Self.configuration(ports: 46_540...46_549))
        defer { pair.plane.shutdown() }
        let (_, stalled) = try await Self.subscribeOverTCP(to: pair)
        // The smallest receive window the kernel allows: what the client does not read stays queued
        // at the router's end.
        var small: Int32 = 1024
        _ = setsockopt(stalled.peer.descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        // 3 MB: far past the connection's queue and both ends' socket buffers as set here.
        for batch in 0..<30 {
            try WebRTCTransportTests.publish(pair, from: batch * 100, count: 100)
            let received = try await onOwnThread { pair.subscriber.peer.receiveRTP(count: 100).count }
            #expect(received == 100, "the UDP subscriber beside it lost packets in batch \(batch)")
        }
        try await waitUntil("the stalled subscriber's drops are counted") {
            try await pair.plane.statistics(router: pair.router).drops["sendQueueFull", default: 0] > 0
        }
        #expect(await Self.worker(of: pair.plane)?.tcpConnections == 1, "the stalled connection was dropped")
        // What the client reads after the stall is whole SRTP frames in order (drops took whole frames
        // out of the queue, never part of one), so the stream goes on as it would after network loss.
        let drained = try await onOwnThread { stalled.peer.receiveRTP(count: 3000).map(\.sequenceNumber) }
        #expect(!drained.isEmpty && drained.count < 3000, "\(drained.count) packets were queued for the stalled client")
        #expect(zip(drained, drained.dropFirst()).allSatisfy { ($1 &- $0) >= 1 && ($1 &- $0) < 0x8000 }, "\(drained)")
    }

    // MARK: - Hostile connections

    /// Reads from `socket` until the router closes it (0) or `seconds` pass (nil).
    static func closedByRouter(_ socket: Int32, within seconds: Int = 5) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if received == 0 { return true }
            if received < 0 { return errno == ECONNRESET }
        }
    }

    static func rawConnection(to port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw TestPeer.ConnectionRefused()
        }
        return socket
    }

    static func send(_ bytes: [UInt8], on socket: Int32) {
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    @Test func garbageAnUnknownUsernameAndAnOversizedFrameAreClosedAndCountedWhileAVerifiedClientGoesOn() async throws {
        let pair = try await WebRTCTransportTests.connectedPair(configuration: Self.configuration(ports: 46_550...46_559))
        defer { pair.plane.shutdown() }
        let port = pair.plane.tcpPorts[0]
        let (clientTransport, client) = try await Self.subscribeOverTCP(to: pair)

        let garbage = try Self.rawConnection(to: port)
        defer { close(garbage) }
        Self.send([0, 12] + Array("GET / HTTP/1".utf8), on: garbage)
        let http = try Self.rawConnection(to: port)
        defer { close(http) }
        Self.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), on: http)
        let stranger = try WebRTCTestPeer(tcpToRouterPort: port)
        stranger.target(clientTransport)
        let oversized = try Self.rawConnection(to: port)
        defer { close(oversized) }
        Self.send([0xFF, 0xFF] + [UInt8](repeating: 0, count: 100), on: oversized)
        let empty = try Self.rawConnection(to: port)
        defer { close(empty) }
        Self.send([0, 0], on: empty)

        #expect(try await onOwnThread { stranger.check(usernameFragment: "notours1") } == .noAnswer)
        for (name, socket) in [("garbage", garbage), ("HTTP", http), ("unknown username", stranger.peer.descriptor),
            ("oversized frame", oversized), ("empty frame", empty)]
        {
            #expect(try await onOwnThread { Self.closedByRouter(socket) }, "\(name) left open")
        }
        // The client's own username with the wrong password, on a new connection: refused with 401
        // and closed.
        let guesser = try TestPeer(tcpToRouterPort: port)
        #expect(try await onOwnThread { client.check(password: "not-the-password-at-all", via: guesser) } == .error(code: 401))
        #expect(try await onOwnThread { Self.closedByRouter(guesser.descriptor) })

        try WebRTCTransportTests.publish(pair, from: 0, count: 10)
        #expect(try await onOwnThread { client.peer.receiveRTP(count: 10).count } == 10)
        let worker = await Self.worker(of: pair.plane)
        #expect(worker?.tcpConnectionsClosedUnverified == 6)
        #expect(worker?.tcpConnections == 1)
    }

    @Test func aConnectionThatSendsNoValidCheckInTimeIsClosed() async throws {
        let plane = try MediaPlane(configuration: Self.configuration(ports: 46_560...46_569, verificationTimeout: .milliseconds(300)))
        defer { plane.shutdown() }
        let silent = try Self.rawConnection(to: plane.tcpPorts[0])
        defer { close(silent) }
        let trickle = try Self.rawConnection(to: plane.tcpPorts[0])
        defer { close(trickle) }
        // Half a frame header and never the rest: a slow-loris of ICE-TCP.
        Self.send([0], on: trickle)
        #expect(try await onOwnThread { Self.closedByRouter(silent) })
        #expect(try await onOwnThread { Self.closedByRouter(trickle) })
        let worker = await Self.worker(of: plane)
        #expect(worker?.tcpConnectionsTimedOut == 2)
        #expect(worker?.tcpConnections == 0)
    }

    @Test func oneAddressCannotHoldMoreThanItsShareOfUnverifiedConnections() async throws {
        let plane = try MediaPlane(configuration: Self.configuration(ports: 46_570...46_579))
        defer { plane.shutdown() }
        let router = try await plane.createRouter()
        let transport = try await plane.createWebRTCTransport(router: router)
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<Worker.maximumUnverifiedTCPConnectionsPerHost {
            held.append(try Self.rawConnection(to: plane.tcpPorts[0]))
        }
        let extra = try Self.rawConnection(to: plane.tcpPorts[0])
        defer { close(extra) }
        #expect(try await onOwnThread { Self.closedByRouter(extra, within: 2) }, "the connection past the limit was kept")
        let worker = await Self.worker(of: plane)
        #expect(worker?.tcpConnectionsRefused == 1)
        #expect(worker?.tcpConnections == Worker.maximumUnverifiedTCPConnectionsPerHost)
        // A real client from the same address still gets in once the flood is gone.
        held.forEach { close($0) }
        held = []
        try await waitUntil("the flood's connections are gone") { await Self.worker(of: plane)?.tcpConnections == 0 }
        let client = try await Self.connectOverTCP(to: transport, on: plane)
        #expect(client.peer.isStream)
    }
}
