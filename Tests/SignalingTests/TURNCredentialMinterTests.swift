import Foundation
import Signaling
import SignalingProtocol
import Testing

@Suite struct TURNCredentialMinterTests {
    static let secret = "north-wind-0123456789abcdefghijklmnop"
    /// 2023-11-14 22:13:20 UTC and a bit: the fraction is dropped, not rounded up.
    let now = Date(timeIntervalSince1970: 1_700_000_000.75)

    private func minter(_ urls: [String], lifetime: Int = 86_400) throws -> TURNCredentialMinter {
        TURNCredentialMinter(
            configuration: TURNConfiguration(
                urls: try urls.map { url throws(ICEServerURLError) in try ICEServerURL(parsing: url) }, sharedSecret: Self.secret,
                credentialLifetimeSeconds: lifetime))
    }

    @Test func theCredentialIsTheTURNRESTSchemeOfItsExpiryAndConnection() throws {
        let credential = try minter(["turn:turn.example.com"]).credential(for: "c_abc123", now: now)
        #expect(credential.expiry == 1_700_086_400)
        #expect(credential.username == "1700086400:c_abc123")
        // Computed apart from this code, by coturn's rule:
        //   python3 -c "import hmac,hashlib,base64; print(base64.b64encode(hmac.new(
        //     b'north-wind-0123456789abcdefghijklmnop', b'1700086400:c_abc123', hashlib.sha1).digest()).decode())"
        //   echo -n 1700086400:c_abc123 | openssl dgst -sha1 -hmac north-wind-0123456789abcdefghijklmnop -binary | base64
        #expect(credential.password == "w+xDPpFRfevNnxb/v9kc/KRzj/o=")
    }

    @Test func theExpiryFollowsTheClockAndTheLifetime() throws {
        let minter = try minter(["turn:turn.example.com"], lifetime: 600)
        #expect(minter.credential(for: "c_1", now: now).expiry == 1_700_000_600)
        #expect(minter.credential(for: "c_1", now: now.addingTimeInterval(60)).expiry == 1_700_000_660)
        #expect(minter.credential(for: "c_1", now: now) != minter.credential(for: "c_2", now: now), "each connection has its own")
    }

    @Test func stunURLsComeWithoutACredentialAndTURNURLsWithOne() throws {
        let servers = try minter([
            "stun:turn.example.com:3478", "turn:turn.example.com:3478?transport=udp", "turn:turn.example.com:3478?transport=tcp",
            "turns:turn.example.com:443?transport=tcp",
        ]).iceServers(for: "c_abc123", now: now)
        #expect(servers.count == 2)
        #expect(servers.first == ICEServer(urls: ["stun:turn.example.com:3478"]))
        #expect(servers.last?.urls == [
            "turn:turn.example.com:3478?transport=udp", "turn:turn.example.com:3478?transport=tcp", "turns:turn.example.com:443?transport=tcp",
        ])
        #expect(servers.last?.username == "1700086400:c_abc123")
        #expect(servers.last?.credential == "w+xDPpFRfevNnxb/v9kc/KRzj/o=")
        #expect(try minter(["turns:turn.example.com:443"]).iceServers(for: "c_1", now: now).count == 1, "no empty STUN entry")
        #expect(try minter(["stun:stun.example.com"]).iceServers(for: "c_1", now: now) == [ICEServer(urls: ["stun:stun.example.com"])])
    }

    @Test func anICEServerEncodesAsRTCIceServerAndLeavesOutWhatItHasNot() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let stun = String(decoding: try encoder.encode(ICEServer(urls: ["stun:a"])), as: UTF8.self)
        #expect(stun == #"{"urls":["stun:a"]}"#)
        let turn = String(decoding: try encoder.encode(ICEServer(urls: ["turn:a"], username: "1:c", credential: "x")), as: UTF8.self)
        #expect(turn == #"{"credential":"x","urls":["turn:a"],"username":"1:c"}"#)
    }
}
