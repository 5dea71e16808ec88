import Crypto
import Foundation
import Glibc

/// A minimal TURN client over UDP (RFC 8656): Binding, an authenticated Allocate and
/// CreatePermission, enough to ask a real TURN server whether it takes a credential and where it
/// relays. Written here rather than on `ICE`'s STUN code, which is ICE-lite's (it answers Binding
/// requests; it has no long-term credentials, NONCE or REALM). Blocking: call it inside `onOwnThread`.
final class TURNTestClient {
    /// What the server answered a request with.
    enum Outcome: Equatable {
        case success
        case error(Int)
        /// Nothing came back after every retransmission.
        case noAnswer
    }

    /// A parsed STUN message: its type and attributes by type.
    private struct Message {
        var type: UInt16
        var transactionID: [UInt8]
        var attributes: [UInt16: [UInt8]]

        var errorCode: Int? {
            guard let value = attributes[Attribute.errorCode], value.count >= 4 else { return nil }
            return Int(value[2] & 0x07) * 100 + Int(value[3])
        }
    }

    private enum Method {
        static let binding: UInt16 = 0x001
        static let allocate: UInt16 = 0x003
        static let createPermission: UInt16 = 0x008
    }

    private enum Attribute {
        static let username: UInt16 = 0x0006
        static let messageIntegrity: UInt16 = 0x0008
        static let errorCode: UInt16 = 0x0009
        static let xorPeerAddress: UInt16 = 0x0012
        static let realm: UInt16 = 0x0014
        static let nonce: UInt16 = 0x0015
        static let requestedTransport: UInt16 = 0x0019
    }

    private static let magicCookie: UInt32 = 0x2112_A442
    private let descriptor: Int32
    /// USERNAME, REALM, NONCE and the long-term key of the last Allocate, for the requests after it.
    private var authentication: (username: String, realm: [UInt8], nonce: [UInt8], key: [UInt8])?

    init(serverPort: Int, address: String = "127.0.0.1") throws {
        descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var server = sockaddr_in()
        server.sin_family = sa_family_t(AF_INET)
        server.sin_port = in_port_t(UInt16(serverPort).bigEndian)
        server.sin_addr.s_addr = inet_addr(address)
        let connected = withUnsafePointer(to: &server) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw PrivateTURNServer.Failure.socket(errno) }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// A Binding request: whether the server answers STUN at all.
    func binding(attempts: Int = 5) -> Outcome {
        outcome(transact(type: Method.binding, attributes: [], attempts: attempts))
    }

    /// Allocate a UDP relay as `username` with `password`: first unauthenticated, for the REALM and
    /// NONCE of the 401 that answers it, then with MESSAGE-INTEGRITY under the long-term key
    /// MD5(username:realm:password) (RFC 8489 section 9.2.2).
    func allocate(username: String, password: String) -> Outcome {
        let udp: [UInt8] = [17, 0, 0, 0]
        guard let challenge = transact(type: Method.allocate, attributes: [(Attribute.requestedTransport, udp)]) else { return .noAnswer }
        guard challenge.errorCode == 401, let realm = challenge.attributes[Attribute.realm], let nonce = challenge.attributes[Attribute.nonce] else {
            return outcome(challenge)
        }
        let key = Array(Insecure.MD5.hash(data: Array("\(username):".utf8) + realm + Array(":\(password)".utf8)))
        authentication = (username, realm, nonce, key)
        return outcome(transact(type: Method.allocate, attributes: [(Attribute.requestedTransport, udp)], authenticated: true))
    }

    /// CreatePermission for `address` (IPv4) on the allocation `allocate` made.
    func createPermission(peer address: String, port: UInt16 = 9) -> Outcome {
        var peer: [UInt8] = [0, 0x01]
        peer += bigEndianBytes(port ^ UInt16(Self.magicCookie >> 16))
        let octets = address.split(separator: ".").compactMap { UInt8($0) }
        let cookie = bigEndianBytes(Self.magicCookie)
        peer += zip(octets, cookie).map { $0 ^ $1 }
        return outcome(transact(type: Method.createPermission, attributes: [(Attribute.xorPeerAddress, peer)], authenticated: true))
    }

    private func outcome(_ answer: Message?) -> Outcome {
        guard let answer else { return .noAnswer }
        // Class bits C1 C0 at 0x0100 and 0x0010: 10 is a success response, 11 an error response.
        switch answer.type & 0x0110 {
        case 0x0100: return .success
        case 0x0110: return .error(answer.errorCode ?? 0)
        default: return .noAnswer
        }
    }

    /// Sends a request and waits for the response with its transaction id, sending it again after
    /// every 200 ms of silence (UDP on loopback loses nothing, but a server still starting might).
    private func transact(type method: UInt16, attributes: [(UInt16, [UInt8])], authenticated: Bool = false, attempts: Int = 5) -> Message? {
        let transactionID = (0..<12).map { _ in UInt8.random(in: 0...255) }
        var attributes = attributes
        if authenticated, let authentication {
            attributes += [
                (Attribute.username, Array(authentication.username.utf8)), (Attribute.realm, authentication.realm),
                (Attribute.nonce, authentication.nonce),
            ]
        }
        let request = encode(type: method, transactionID: transactionID, attributes: attributes, integrityKey: authenticated ? authentication?.key : nil)
        var buffer = [UInt8](repeating: 0, count: 2048)
        for _ in 0..<attempts {
            _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            while true {
                let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard received > 0 else { break }
                if let message = decode(Array(buffer[0..<received])), message.transactionID == transactionID { return message }
            }
        }
        return nil
    }

    private func encode(type: UInt16, transactionID: [UInt8], attributes: [(UInt16, [UInt8])], integrityKey: [UInt8]?) -> [UInt8] {
        var body: [UInt8] = []
        for (attributeType, value) in attributes {
            body += bigEndianBytes(attributeType) + bigEndianBytes(UInt16(value.count)) + value
            body += [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
        }
        func header(length: Int) -> [UInt8] {
            bigEndianBytes(type) + bigEndianBytes(UInt16(length)) + bigEndianBytes(Self.magicCookie) + transactionID
        }
        guard let integrityKey else { return header(length: body.count) + body }
        // The length covers MESSAGE-INTEGRITY itself (24 bytes) before the HMAC is taken over the message up to it.
        let covered = header(length: body.count + 24) + body
        let hmac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: covered, using: SymmetricKey(data: integrityKey)))
        return covered + bigEndianBytes(Attribute.messageIntegrity) + bigEndianBytes(UInt16(20)) + hmac
    }

    private func decode(_ bytes: [UInt8]) -> Message? {
        guard bytes.count >= 20 else { return nil }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count >= 20 + length else { return nil }
        var attributes: [UInt16: [UInt8]] = [:]
        var offset = 20
        while offset + 4 <= 20 + length {
            let attributeType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            let valueLength = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard offset + 4 + valueLength <= bytes.count else { return nil }
            attributes[attributeType] = Array(bytes[(offset + 4)..<(offset + 4 + valueLength)])
            offset += 4 + (valueLength + 3) & ~3
        }
        return Message(type: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), transactionID: Array(bytes[8..<20]), attributes: attributes)
    }

    private func bigEndianBytes<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
