import Glibc
import MediaControl
import RTPWire
import SRTP

/// A client of a plain SRTP transport for tests: its own UDP socket on 127.0.0.1, SRTP in both
/// directions, and helpers to send RTP and RTCP and to read what the router sends. Made with
/// `init(tcpToRouterPort:)` it is an ICE-TCP client instead: one TCP connection to the router, each
/// datagram an RFC 4571 frame.
public final class TestPeer {
    public struct ConnectionRefused: Error {
        public init() {}
    }

    public let descriptor: Int32
    public let port: UInt16
    public let keys: SRTPKeyMaterial
    private var outbound: SRTPSession
    private var inbound: SRTPSession?
    public var routerPort: UInt16 = 0
    /// Whether this is an ICE-TCP client, and the bytes it received that do not make a whole frame yet.
    public let isStream: Bool
    private var streamBuffer: [UInt8] = []

    public convenience init(profile: SRTPProfile = .aeadAES128GCM) throws {
        try self.init(profile: profile, connectingTo: nil)
    }

    /// An ICE-TCP client connected to the router's TCP port on 127.0.0.1.
    public convenience init(tcpToRouterPort routerPort: UInt16, profile: SRTPProfile = .aeadAES128GCM) throws {
        try self.init(profile: profile, connectingTo: routerPort)
    }

    private init(profile: SRTPProfile, connectingTo streamPort: UInt16?) throws {
        isStream = streamPort != nil
        let descriptor = socket(AF_INET, Int32((streamPort == nil ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        if let streamPort {
            var router = address
            router.sin_port = streamPort.bigEndian
            let connected = withUnsafePointer(to: &router) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(descriptor)
                throw ConnectionRefused()
            }
            routerPort = streamPort
        } else {
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        var bufferSize: Int32 = 4 << 20
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        keys = SRTPKeyMaterial.random(profile: profile)
        outbound = try SRTPSession(keyMaterial: keys, direction: .outbound)
        setReceiveTimeout(milliseconds: 1000)
    }

    deinit {
        close(descriptor)
    }

    public var srtpParameters: SRTPParameters {
        SRTPParameters(profile: keys.profile.rawValue, keyParameter: keys.sdesKeyParameter)
    }

    public var address: TransportAddress { TransportAddress(host: "127.0.0.1", port: port) }

    /// Takes the router's answer: where to send, and the keys to unprotect what it sends.
    public func connect(to parameters: PlainTransportParameters) throws {
        try connect(routerPort: parameters.localAddress.port, routerSRTP: parameters.routerSRTP)
    }

    public func connect(routerPort: UInt16, routerSRTP: SRTPParameters) throws {
        self.routerPort = routerPort
        let profile = SRTPProfile(rawValue: routerSRTP.profile)!
        inbound = try SRTPSession(
            keyMaterial: SRTPKeyMaterial(profile: profile, sdesKeyParameter: routerSRTP.keyParameter), direction: .inbound)
    }

    /// Keys from a DTLS-SRTP handshake instead of SDES: what the peer protects with, and what the router does.
    public func useKeys(local: SRTPKeyMaterial, remote: SRTPKeyMaterial) throws {
        outbound = try SRTPSession(keyMaterial: local, direction: .outbound)
        inbound = try SRTPSession(keyMaterial: remote, direction: .inbound)
    }

    /// The next datagram as it arrived (STUN, DTLS, or still protected media); nil after the timeout.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func receiveRaw() -> [UInt8]? {
        receiveRaw(flags: 0)
    }

    /// The next datagram already queued, as it arrived; nil at once when there is none.
    public func receiveRawIfQueued() -> [UInt8]? {
        receiveRaw(flags: Int32(MSG_DONTWAIT))
    }

    private func receiveRaw(flags: Int32) -> [UInt8]? {
        var storage = [UInt8](repeating: 0, count: 2048)
        let received = receiveDatagram(into: &storage, flags: flags)
        return received > 0 ? Array(storage.prefix(received)) : nil
    }

    /// Reads one datagram (over TCP, one frame) into `storage`; its length, or 0 or less when none
    /// came within the timeout (or at once with MSG_DONTWAIT), or the connection ended.
    private func receiveDatagram(into storage: inout [UInt8], flags: Int32) -> Int {
        guard isStream else { return storage.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, flags) } }
        while true {
            if streamBuffer.count >= 2 {
                let length = Int(streamBuffer[0]) << 8 | Int(streamBuffer[1])
                if streamBuffer.count >= 2 + length {
                    let count = min(length, storage.count)
                    storage.replaceSubrange(0..<count, with: streamBuffer[2..<(2 + count)])
                    streamBuffer.removeFirst(2 + length)
                    return count
                }
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let received = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, flags) }
            guard received > 0 else { return received }
            streamBuffer += chunk.prefix(received)
        }
    }

    public func setReceiveTimeout(milliseconds: Int) {
        var timeout = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Protects and sends an RTP packet, naming its simulcast layer when `streamID` is given (in the
    /// repaired-stream-id extension when `repaired`), with an RFC 6464 level when `audioLevel` is.
    public func sendRTP(
        payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, payload: [UInt8], tamper: Bool = false,
        streamID: (extensionID: UInt8, rid: String, repaired: Bool)? = nil, audioLevel: (extensionID: UInt8, level: UInt8)? = nil,
        marker: Bool = false
    ) throws {
        var storage = [UInt8](repeating: 0, count: payload.count + 64)
        let length = try storage.withUnsafeMutableBytes { buffer in
            var packet = try payload.withUnsafeBytes { payloadBytes in
                try RTPPacket(
                    writingInto: buffer, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp,
                    ssrc: ssrc, payload: payloadBytes)
            }
            packet.marker = marker
            if let streamID {
                if streamID.repaired {
                    try packet.setRepairedRTPStreamID(streamID.rid, id: streamID.extensionID)
                } else {
                    try packet.setRTPStreamID(streamID.rid, id: streamID.extensionID)
                }
            }
            if let audioLevel {
                try packet.setAudioLevel(AudioLevelIndication(voiceActivity: audioLevel.level < 127, level: audioLevel.level), id: audioLevel.extensionID)
            }
            return try outbound.protectRTP(buffer, length: packet.length)
        }
        if tamper { storage[length - 1] ^= 0xFF }
        sendRaw(Array(storage.prefix(length)))
    }

    /// Builds, protects and sends an RTCP compound packet.
    public func sendRTCP(_ build: (inout RTCPWriter) throws(RTCPError) -> Void) throws {
        try sendRTCP(plain: try RTCPWriter.bytes(build))
    }

    /// Protects and sends `plain` as SRTCP, whatever it holds.
    public func sendRTCP(plain: [UInt8]) throws {
        var storage = plain
        let plainLength = storage.count
        storage += [UInt8](repeating: 0, count: 64)
        let length = try storage.withUnsafeMutableBytes { try outbound.protectRTCP($0, length: plainLength) }
        sendRaw(Array(storage.prefix(length)))
    }

    public func sendRaw(_ bytes: [UInt8], toPort: UInt16? = nil) {
        if isStream {
            let frame = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
            _ = frame.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = (toPort ?? routerPort).bigEndian
        _ = bytes.withUnsafeBytes { raw in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, raw.baseAddress, raw.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    public enum Received: Sendable {
        case rtp(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, payloadType: UInt8, payload: [UInt8])
        case rtcp([UInt8])
    }

    /// Reads and throws away the next RTP datagram without unprotecting it, as if the network lost
    /// it; RTCP before it is read and dropped too (a sender report that happens to come first must
    /// not be "lost" in the media packet's place).
    @discardableResult
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func discardNext() -> Bool {
        var storage = [UInt8](repeating: 0, count: 2048)
        while true {
            let received = receiveDatagram(into: &storage, flags: 0)
            guard received > 0 else { return false }
            if received >= 2, (128...191).contains(storage[0]), !(64...95).contains(storage[1] & 0x7F) { return true }
        }
    }

    /// The next packet the router sent, unprotected; nil after the receive timeout, or when the
    /// datagram does not unprotect or parse. A late STUN or DTLS datagram on a WebRTC peer's socket
    /// is skipped.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func receive() -> Received? {
        if case .packet(let packet)? = nextDatagram(waiting: true) { return packet }
        return nil
    }

    /// The next packet already queued, as `receive()` reads it; nil at once when there is none.
    public func receiveIfQueued() -> Received? {
        if case .packet(let packet)? = nextDatagram(waiting: false) { return packet }
        return nil
    }

    private enum Datagram {
        case packet(Received)
        /// It did not unprotect (a retransmission of a packet already received fails replay
        /// protection) or parse.
        case unreadable
    }

    /// The next RTP or RTCP datagram; nil after the receive timeout, or at once when `waiting` is
    /// false and nothing is queued.
    private func nextDatagram(waiting: Bool) -> Datagram? {
        var storage = [UInt8](repeating: 0, count: 2048)
        let flags = waiting ? Int32(0) : Int32(MSG_DONTWAIT)
        var received = 0
        repeat {
            received = receiveDatagram(into: &storage, flags: flags)
        } while received > 0 && !(128...191).contains(storage[0])
        guard received > 0 else { return nil }
        guard let inbound else { return .unreadable }
        let isRTCP = (64...95).contains(storage[1] & 0x7F)
        return storage.withUnsafeMutableBytes { buffer -> Datagram in
            if isRTCP {
                guard let length = try? inbound.unprotectRTCP(buffer, length: received) else { return .unreadable }
                return .packet(.rtcp(Array(buffer.prefix(length))))
            }
            guard let length = try? inbound.unprotectRTP(buffer, length: received),
                let packet = try? RTPPacket(parsing: buffer, length: length)
            else { return .unreadable }
            return .packet(
                .rtp(
                    sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, ssrc: packet.ssrc,
                    payloadType: packet.payloadType, payload: Array(packet.payload)))
        }
    }

    /// RTP packets until `count` arrived or two seconds pass, skipping RTCP.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func receiveRTP(count: Int) -> [(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, payload: [UInt8])] {
        var packets: [(sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, payload: [UInt8])] = []
        let deadline = monotonicMilliseconds() + 2000
        while packets.count < count, monotonicMilliseconds() < deadline, let next = receive() {
            if case .rtp(let sequenceNumber, let timestamp, let ssrc, _, let payload) = next {
                packets.append((sequenceNumber, timestamp, ssrc, payload))
            }
        }
        return packets
    }

    /// RTCP compounds received within the next `milliseconds`.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func receiveRTCP(for milliseconds: Int) -> [[UInt8]] {
        receivePackets(for: milliseconds).compactMap { packet in
            if case .rtcp(let bytes) = packet { bytes } else { nil }
        }
    }

    /// Every packet received within the next `milliseconds`; datagrams that do not unprotect or parse
    /// are skipped.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func receivePackets(for milliseconds: Int) -> [Received] {
        var packets: [Received] = []
        _ = receiveFirst(within: milliseconds) { packet -> Void? in
            packets.append(packet)
            return nil
        }
        return packets
    }

    /// The first packet received within the next `milliseconds` that `match` turns into a value;
    /// datagrams that do not unprotect or parse are skipped.
    @available(*, noasync, message: "waits on its socket; call it inside onOwnThread so the cooperative pool keeps its threads")
    public func receiveFirst<Value>(within milliseconds: Int, _ match: (Received) -> Value?) -> Value? {
        let deadline = monotonicMilliseconds() + milliseconds
        defer { setReceiveTimeout(milliseconds: 1000) }
        while case let remaining = deadline - monotonicMilliseconds(), remaining > 0 {
            setReceiveTimeout(milliseconds: remaining)
            guard let next = nextDatagram(waiting: true) else { return nil }
            if case .packet(let packet) = next, let value = match(packet) { return value }
        }
        return nil
    }

    private func monotonicMilliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}

/// VP8 payloads for tests: a descriptor with S=1, PID=0, and a payload header whose P bit says key
/// frame or not, followed by a pattern that identifies the packet.
public enum VP8TestPayload {
    public static func make(index: Int, keyFrame: Bool, size: Int = 1000) -> [UInt8] {
        var payload: [UInt8] = [0x10, keyFrame ? 0x00 : 0x01]
        payload += (0..<(size - 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
        return payload
    }

    /// A key frame's first packet whose VP8 header (RFC 6386 section 9.1) gives its picture size.
    public static func keyFrame(index: Int, width: Int, height: Int, size: Int = 1000) -> [UInt8] {
        var payload = make(index: index, keyFrame: true, size: size)
        payload.replaceSubrange(
            2..<11, with: [0x00, 0x00, 0x9d, 0x01, 0x2a, UInt8(width & 0xff), UInt8(width >> 8), UInt8(height & 0xff), UInt8(height >> 8)])
        return payload
    }
}

/// Counts the PLIs in RTCP compounds.
public func pictureLossIndications(in compounds: [[UInt8]]) -> Int {
    compounds.reduce(0) { count, bytes in
        count + bytes.withUnsafeBytes { raw in
            guard let compound = try? RTCPCompoundPacket(parsing: raw) else { return 0 }
            return compound.reduce(0) { count, packet in
                if case .pictureLossIndication = packet { return count + 1 }
                return count
            }
        }
    }
}
