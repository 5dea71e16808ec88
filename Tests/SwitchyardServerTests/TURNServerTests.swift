import Foundation
import MediaTestSupport
import Signaling
import SignalingProtocol
import Testing

/// The daemon's credentials against a real coturn running the shipped `Config/turnserver.conf`:
/// they allocate a relay, expired, forged and borrowed ones are refused, and the relay reaches the
/// SFU's address and nothing else.
@Suite(.serialized, .stopsWhatItStarts) struct TURNServerTests {
    private func start() async throws -> (PrivateTURNServer, DaemonHarness) {
        let turn = try await PrivateTURNServer.start(sharedSecret: TURNDeliveryTests.secret)
        let configuration = try TURNDeliveryTests.turnConfiguration(urls: ["turn:127.0.0.1:\(turn.port)?transport=udp"])
        let daemon = try await DaemonHarness.start { $0.signaling.turn = configuration }
        return (turn, daemon)
    }

    private func turnCredential(_ result: ConnectResult) throws -> (username: String, password: String) {
        let server = try #require(result.iceServers?.first { $0.username != nil })
        return (try #require(server.username), try #require(server.credential))
    }

    @Test func theDaemonsCredentialAllocatesARelayThatReachesOnlyTheSFU() async throws {
        let (turn, daemon) = try await start()
        let (client, connected) = try await daemon.connect(session: "relay", role: .publisher)
        let credential = try turnCredential(connected)
        let outcomes = try await onOwnThread { () throws -> [String: TURNTestClient.Outcome] in
            let relay = try TURNTestClient(serverPort: turn.port)
            var outcomes = ["allocate": relay.allocate(username: credential.username, password: credential.password)]
            // The SFU's media address (media.listenAddress in the test); then a loopback neighbour,
            // a private network, cloud metadata (link-local), CGNAT and a public address.
            for peer in ["127.0.0.1", "127.0.0.2", "10.1.2.3", "169.254.169.254", "100.64.0.1", "8.8.8.8"] {
                outcomes[peer] = relay.createPermission(peer: peer)
            }
            return outcomes
        }
        #expect(outcomes["allocate"] == .success, "\(turn.log)")
        #expect(outcomes["127.0.0.1"] == .success)
        for peer in ["127.0.0.2", "10.1.2.3", "169.254.169.254", "100.64.0.1", "8.8.8.8"] {
            #expect(outcomes[peer] == .error(403), "a relay to \(peer) must be forbidden")
        }
        await client.close()
        try await daemon.stop()
        await turn.stop()
    }

    @Test func expiredForgedAndBorrowedCredentialsAreRefused() async throws {
        let (turn, daemon) = try await start()
        let (alice, aliceConnected) = try await daemon.connect(session: "refusals", role: .publisher)
        let (bob, bobConnected) = try await daemon.connect(session: "refusals", role: .publisher)
        let aliceCredential = try turnCredential(aliceConnected)
        let bobCredential = try turnCredential(bobConnected)
        let configuration = try TURNDeliveryTests.turnConfiguration(urls: ["turn:127.0.0.1"])
        // Minted by the right secret a minute after its lifetime ran out.
        let expired = TURNCredentialMinter(configuration: configuration).credential(
            for: aliceConnected.connection.connectionId, now: Date().addingTimeInterval(-Double(TURNDeliveryTests.lifetime + 60)))
        // Minted now, by a secret coturn does not have.
        let forged = TURNCredentialMinter(
            configuration: try TURNDeliveryTests.turnConfiguration(urls: ["turn:127.0.0.1"], secret: "guessed-secret-0123456789abcdef-guessed")
        ).credential(for: aliceConnected.connection.connectionId, now: Date())
        let attempts: [(String, String, String)] = [
            ("expired", expired.username, expired.password),
            ("forged", forged.username, forged.password),
            ("Bob's username with Alice's password", bobCredential.username, aliceCredential.password),
            ("Alice's own", aliceCredential.username, aliceCredential.password),
        ]
        let outcomes = try await onOwnThread { () throws -> [String: TURNTestClient.Outcome] in
            var outcomes: [String: TURNTestClient.Outcome] = [:]
            for (name, username, password) in attempts {
                outcomes[name] = try TURNTestClient(serverPort: turn.port).allocate(username: username, password: password)
            }
            return outcomes
        }
        #expect(outcomes["expired"] == .error(401))
        #expect(outcomes["forged"] == .error(401))
        #expect(outcomes["Bob's username with Alice's password"] == .error(401))
        #expect(outcomes["Alice's own"] == .success, "the refusals are for the credentials, not for the server: \(turn.log)")
        await alice.close()
        await bob.close()
        try await daemon.stop()
        await turn.stop()
    }
}
