import Signaling
import Testing

@Suite struct ICEServerURLTests {
    private func refusal(_ text: String) -> ICEServerURLError? {
        do {
            _ = try ICEServerURL(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func stunTurnAndTurnsURLsAreRead() throws {
        let udp = try ICEServerURL(parsing: "turn:turn.example.com:3478?transport=udp")
        #expect(udp.scheme == .turn && udp.host == "turn.example.com" && udp.port == 3478 && udp.transport == .udp)
        let tls = try ICEServerURL(parsing: "TURNS:192.0.2.7:443?transport=tcp")
        #expect(tls.scheme == .turns && tls.host == "192.0.2.7" && tls.port == 443 && tls.transport == .tcp)
        #expect(tls.description == "turns:192.0.2.7:443?transport=tcp", "the scheme is given to clients in lower case")
        let stun = try ICEServerURL(parsing: "stun:[2001:db8::1]:3478")
        #expect(stun.scheme == .stun && stun.host == "[2001:db8::1]" && stun.port == 3478 && !stun.needsCredentials)
        let bare = try ICEServerURL(parsing: "turn:turn.example.com")
        #expect(bare.port == nil && bare.transport == nil && bare.needsCredentials)
    }

    @Test func everyMalformedURLIsRefusedWithItsReason() {
        #expect(refusal("turn.example.com") == .noScheme)
        #expect(refusal("http://turn.example.com") == .unknownScheme("http"))
        #expect(refusal("stuns:turn.example.com") == .unknownScheme("stuns"))
        #expect(refusal("turn:") == .badHost(""))
        #expect(refusal("turn://turn.example.com") == .badHost("//turn.example.com"))
        #expect(refusal("turn:user@turn.example.com") == .badHost("user@turn.example.com"))
        #expect(refusal("turn:[2001:db8::1") == .badHost("[2001:db8::1"))
        #expect(refusal("turn:turn.example.com:0") == .badPort("0"))
        #expect(refusal("turn:turn.example.com:70000") == .badPort("70000"))
        #expect(refusal("turn:turn.example.com:http") == .badPort("http"))
        #expect(refusal("turn:turn.example.com?transport=sctp") == .badQuery("transport=sctp"))
        #expect(refusal("turn:turn.example.com?ttl=5") == .badQuery("ttl=5"))
        #expect(refusal("stun:turn.example.com?transport=udp") == .transportOnSTUN)
        #expect(refusal("turns:turn.example.com:443?transport=udp") == .turnsOverUDP)
    }
}
