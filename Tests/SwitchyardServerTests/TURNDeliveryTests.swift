import Crypto
import Foundation
import Signaling
import SignalingProtocol
import SwitchyardClient
import SwitchyardServer
import Testing

/// TURN credentials where clients get them: the `connect` and `reconnect` replies' `iceServers`, and
/// WHIP and WHEP answers' `Link` headers; none of it without a `turn` configuration.
@Suite(.serialized, .stopsWhatItStarts) struct TURNDeliveryTests {
    static let secret = "turn-delivery-secret-0123456789abcdef"
    static let lifetime = 3600

    static func turnConfiguration(urls: [String], secret: String = secret, lifetime: Int = lifetime) throws -> TURNConfiguration {
        TURNConfiguration(
            urls: try urls.map { url throws(ICEServerURLError) in try ICEServerURL(parsing: url) }, sharedSecret: secret,
            credentialLifetimeSeconds: lifetime)
    }

    private func start(turn: Bool = true) async throws -> DaemonHarness {
        let configuration = try Self.turnConfiguration(urls: [
            "stun:turn.example.com:3478", "turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp",
        ])
        return try await DaemonHarness.start { daemon in
            daemon.signaling.reconnection.grace = .seconds(10)
            if turn { daemon.signaling.turn = configuration }
        }
    }

    /// base64(HMAC-SHA1(secret, username)), computed here apart from the daemon's minter.
    private func expectedCredential(_ username: String) -> String {
        Data(HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(Self.secret.utf8))))
            .base64EncodedString()
    }

    /// Checks `servers` are the configured ones with a credential for `connectionId` that expires
    /// `lifetime` after a moment between `before` and `after`.
    private func expectCredentials(_ servers: [ICEServer]?, for connectionId: String, minted before: Date, _ after: Date) throws {
        let servers = try #require(servers)
        #expect(servers.count == 2)
        #expect(servers.first == ICEServer(urls: ["stun:turn.example.com:3478"]))
        let turn = try #require(servers.last)
        #expect(turn.urls == ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"])
        let username = try #require(turn.username)
        let parts = username.split(separator: ":", maxSplits: 1)
        #expect(parts.count == 2 && parts.last.map(String.init) == connectionId)
        let expiry = try #require(parts.first.flatMap { Int64($0) })
        #expect(expiry >= Int64(before.timeIntervalSince1970) + Int64(Self.lifetime))
        #expect(expiry <= Int64(after.timeIntervalSince1970) + Int64(Self.lifetime))
        #expect(turn.credential == expectedCredential(username))
    }

    @Test func connectAndReconnectRepliesCarryCredentialsForTheConnection() async throws {
        let daemon = try await start()
        let before = Date()
        let (first, connected) = try await daemon.connect(session: "relayed", role: .publisher)
        try expectCredentials(connected.iceServers, for: connected.connection.connectionId, minted: before, Date())

        let beforeReconnect = Date()
        let second = try await WebSocketTestClient.open(port: daemon.port)
        let reply = try await second.send(
            .reconnect(
                ReconnectParameters(
                    sessionId: "relayed", connectionId: connected.connection.connectionId,
                    reconnectSecret: try #require(connected.reconnection?.secret), lastEventSeq: 0)))
        guard case .reply(_, .reconnect(let reconnected)) = reply else {
            Issue.record("reconnect was refused: \(reply)")
            return
        }
        try expectCredentials(reconnected.iceServers, for: connected.connection.connectionId, minted: beforeReconnect, Date())
        await first.close()
        await second.close()
        try await daemon.stop()
    }

    @Test func theSwiftClientKeepsTheICEServersItWasGiven() async throws {
        let daemon = try await start()
        let loop = try MediaLoop()
        let before = Date()
        let session = try await SwitchyardClient.Session.connect(
            url: "ws://127.0.0.1:\(daemon.port)/v1/ws", sessionId: "swift", token: try await daemon.token(session: "swift", role: .publisher),
            options: SessionOptions(mediaLoop: loop))
        try expectCredentials(session.iceServers, for: try #require(session.connection?.connectionId), minted: before, Date())
        await session.disconnect()
        await loop.stop()
        try await daemon.stop()
    }

    @Test func withoutTurnTheConnectReplyHasNoICEServers() async throws {
        let daemon = try await start(turn: false)
        let (client, connected) = try await daemon.connect(session: "direct", role: .publisher)
        #expect(connected.iceServers == nil)
        // Left out of the JSON, not null, so a client that predates it sees the reply it knew.
        #expect(!String(decoding: try JSONEncoder().encode(connected), as: UTF8.self).contains("iceServers"))
        await client.close()
        try await daemon.stop()
    }

    /// The Link header values of a response, however the HTTP client folded repeated fields.
    private func links(_ headers: [String: String]) -> [String] {
        guard let folded = headers["link"] else { return [] }
        return folded.components(separatedBy: ", <").enumerated().map { $0.offset == 0 ? $0.element : "<" + $0.element }
    }

    /// Checks one Link per configured URL (RFC 9725 section 4.6), TURN ones with `connectionId`'s credential.
    private func expectLinks(_ headers: [String: String], for connectionId: String, minted before: Date, _ after: Date) throws {
        let links = links(headers)
        #expect(links.count == 3, "\(links)")
        #expect(links.first == #"<stun:turn.example.com:3478>; rel="ice-server""#)
        for (link, url) in zip(links.dropFirst(), ["turn:turn.example.com:3478?transport=udp", "turns:turn.example.com:443?transport=tcp"]) {
            #expect(link.hasPrefix(#"<\#(url)>; rel="ice-server"; username=""#), "\(link)")
            #expect(link.hasSuffix(#"; credential-type="password""#), "\(link)")
            let username = try #require(link.components(separatedBy: #"username=""#).last?.components(separatedBy: "\"").first)
            #expect(username.hasSuffix(":\(connectionId)"))
            let expiry = try #require(username.split(separator: ":").first.flatMap { Int64($0) })
            #expect(expiry >= Int64(before.timeIntervalSince1970) + Int64(Self.lifetime))
            #expect(expiry <= Int64(after.timeIntervalSince1970) + Int64(Self.lifetime))
            #expect(link.contains(#"credential="\#(expectedCredential(username))""#), "\(link)")
        }
        #expect(headers["access-control-expose-headers"]?.contains("Link") == true, "a page on another origin may read them")
    }

    @Test func whipAndWhepAnswersCarryOneLinkPerURL() async throws {
        let daemon = try await start()
        let (watcher, _) = try await daemon.connect(session: "linked", role: .subscriber)
        let beforeWHIP = Date()
        let published = try await daemon.http(
            "POST", "/v1/whip/linked", token: try await daemon.token(session: "linked", role: .publisher),
            body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        #expect(published.status == 201)
        guard case .streamCreated(let stream) = try await watcher.event(.streamCreated) else { return }
        try expectLinks(published.headers, for: stream.stream.connection.connectionId, minted: beforeWHIP, Date())

        let beforeWHEP = Date()
        let played = try await daemon.http(
            "POST", "/v1/whep/linked/\(stream.stream.streamId)", token: try await daemon.token(session: "linked", role: .subscriber),
            body: WHEPTests.playerOffer(), contentType: "application/sdp")
        #expect(played.status == 201)
        // The first connectionCreated the watcher saw was the WHIP publisher's.
        var player: String?
        while player == nil || player == stream.stream.connection.connectionId {
            guard case .connectionCreated(let joined) = try await watcher.event(.connectionCreated) else { return }
            player = joined.connection.connectionId
        }
        try expectLinks(played.headers, for: try #require(player), minted: beforeWHEP, Date())
        await watcher.close()
        try await daemon.stop()
    }

    @Test func withoutTurnWhipAndWhepAnswersCarryNoLink() async throws {
        let daemon = try await start(turn: false)
        let (watcher, _) = try await daemon.connect(session: "unlinked", role: .subscriber)
        let published = try await daemon.http(
            "POST", "/v1/whip/unlinked", token: try await daemon.token(session: "unlinked", role: .publisher),
            body: WebRTCSignalingTests.publisherOffer(), contentType: "application/sdp")
        #expect(published.status == 201 && published.headers["link"] == nil)
        guard case .streamCreated(let stream) = try await watcher.event(.streamCreated) else { return }
        let played = try await daemon.http(
            "POST", "/v1/whep/unlinked/\(stream.stream.streamId)", token: try await daemon.token(session: "unlinked", role: .subscriber),
            body: WHEPTests.playerOffer(), contentType: "application/sdp")
        #expect(played.status == 201 && played.headers["link"] == nil)
        await watcher.close()
        try await daemon.stop()
    }
}
