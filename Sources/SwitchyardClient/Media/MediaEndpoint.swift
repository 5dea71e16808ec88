import CSystemShims
import Glibc
import RTPWire
import SRTP

/// One client-side plain SRTP transport: a UDP socket of its own, SRTP both ways, and an impaired
/// path in each direction. Owned by a `MediaLoop`; everything but `init` runs on the loop's thread.
final class MediaEndpoint {
    let descriptor: Int32
    let port: UInt16
    let keys: SRTPKeyMaterial
    /// Set before the endpoint joins its loop.
    var handler: (any MediaHandler)?
    private let outbound: SRTPSession
    private var inbound: SRTPSession?
    private var remote = sockaddr_in()
    private var hasRemote = false
    private var sendBuffer: UnsafeMutableRawBufferPointer

    private var downlink: ImpairedPath
    private var uplink: ImpairedPath
    private var downlinkQueue = DelayLine()
    private var uplinkQueue = DelayLine()
    private var downlinkSchedule = ImpairmentSchedule.clean
    private var uplinkSchedule = ImpairmentSchedule.clean
    private var scheduleStart: UInt64?

    private(set) var counters = EndpointCounters()

    init(profile: SRTPProfile, bindAddress: String, seed: UInt64) throws(MediaClientError) {
        guard var address = Self.ipv4(bindAddress, port: 0) else { throw .invalidAddress(bindAddress) }
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        var bufferSize: Int32 = 1 << 20
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let failure = errno
            close(descriptor)
            throw .system(call: "bind", errno: failure)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
        keys = SRTPKeyMaterial.random(profile: profile)
        do {
            outbound = try SRTPSession(keyMaterial: keys, direction: .outbound)
        } catch {
            close(descriptor)
            throw .srtp(error)
        }
        sendBuffer = .allocate(byteCount: 2048, alignment: 16)
        downlink = ImpairedPath(seed: seed)
        uplink = ImpairedPath(seed: seed ^ 0x5555_5555_5555_5555)
    }

    deinit {
        close(descriptor)
        sendBuffer.deallocate()
        downlinkQueue.release()
        uplinkQueue.release()
    }

    /// Takes the router's answer: where to send and how to read what it sends.
    func connect(routerHost: String, routerPort: UInt16, routerKeys: SRTPKeyMaterial) throws(MediaClientError) {
        guard let address = Self.ipv4(routerHost, port: routerPort) else { throw .invalidAddress(routerHost) }
        do {
            inbound = try SRTPSession(keyMaterial: routerKeys, direction: .inbound)
        } catch {
            throw .srtp(error)
        }
        remote = address
        hasRemote = true
    }

    /// Impairments from now on; schedules are timed from this call.
    func impair(downlink: ImpairmentSchedule, uplink: ImpairmentSchedule, now: UInt64) {
        downlinkSchedule = downlink
        uplinkSchedule = uplink
        scheduleStart = now
        applySchedules(now: now)
    }

    // MARK: Receiving

    /// Drains the socket. `slots` is the loop's shared receive batch.
    /// Shrinks the receive buffer to the kernel's least, for a socket never read: full, it holds a
    /// few packets, rather than a megabyte each of UDP memory the kernel shares among every socket
    /// (past `net.ipv4.udp_mem` it drops for all of them).
    func holdsNothing() {
        var bufferSize: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    }

    func readable(now: UInt64, slots: UnsafeMutableBufferPointer<switchyard_datagram_slot>) {
        while true {
            let received = switchyard_recv_batch(descriptor, slots.baseAddress, UInt32(slots.count))
            guard received > 0 else { return }
            for index in 0..<Int(received) {
                let slot = slots[index]
                let buffer = UnsafeMutableRawBufferPointer(start: slot.buffer, count: slot.capacity)
                counters.datagramsReceived += 1
                counters.bytesReceived += UInt64(slot.length)
                if downlink.impairment.isClean {
                    process(buffer, length: slot.length, now: now)
                } else if let due = downlink.deliveryTime(length: slot.length, now: now) {
                    if due <= now {
                        process(buffer, length: slot.length, now: now)
                    } else if !downlinkQueue.enqueue(UnsafeRawBufferPointer(rebasing: buffer[0..<slot.length]), dueAt: due) {
                        counters.datagramsLostToImpairment += 1
                    }
                } else {
                    counters.datagramsLostToImpairment += 1
                }
            }
            if received < slots.count { return }
        }
    }

    private func process(_ buffer: UnsafeMutableRawBufferPointer, length: Int, now: UInt64) {
        guard let inbound, length >= 12 else {
            counters.datagramsRefused += 1
            return
        }
        let payloadType = buffer[1] & 0x7F
        if (64...95).contains(payloadType) {
            guard let plainLength = try? inbound.unprotectRTCP(buffer, length: length) else {
                counters.datagramsRefused += 1
                return
            }
            handler?.received(rtcp: UnsafeRawBufferPointer(rebasing: buffer[0..<plainLength]), now: now, endpoint: self)
        } else {
            guard let plainLength = try? inbound.unprotectRTP(buffer, length: length),
                let packet = try? RTPPacket(parsing: buffer, length: plainLength)
            else {
                counters.datagramsRefused += 1
                return
            }
            handler?.received(rtp: packet, now: now, endpoint: self)
        }
    }

    // MARK: Sending

    /// Builds an RTP packet in the send buffer (`build` returns its length), protects and sends it.
    func sendRTP(now: UInt64, _ build: (UnsafeMutableRawBufferPointer) throws -> Int) {
        send(now: now, isRTCP: false, build)
    }

    /// Builds an RTCP compound with `RTCPWriter`, protects and sends it.
    func sendRTCP(now: UInt64, _ build: (inout RTCPWriter) throws(RTCPError) -> Void) {
        send(now: now, isRTCP: true) { buffer in
            var writer = RTCPWriter(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<1400]))
            try build(&writer)
            return writer.offset
        }
    }

    private func send(now: UInt64, isRTCP: Bool, _ build: (UnsafeMutableRawBufferPointer) throws -> Int) {
        guard hasRemote, let plainLength = try? build(sendBuffer), plainLength > 0 else { return }
        let protected: Int
        do {
            protected = isRTCP ? try outbound.protectRTCP(sendBuffer, length: plainLength) : try outbound.protectRTP(sendBuffer, length: plainLength)
        } catch {
            counters.sendFailures += 1
            return
        }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[0..<protected])
        if uplink.impairment.isClean {
            transmit(bytes)
        } else if let due = uplink.deliveryTime(length: protected, now: now) {
            if due <= now {
                transmit(bytes)
            } else if !uplinkQueue.enqueue(UnsafeRawBufferPointer(bytes), dueAt: due) {
                counters.datagramsLostToImpairment += 1
            }
        } else {
            counters.datagramsLostToImpairment += 1
        }
    }

    private func transmit(_ bytes: UnsafeMutableRawBufferPointer) {
        let sent = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if sent == bytes.count {
            counters.datagramsSent += 1
            counters.bytesSent += UInt64(bytes.count)
        } else {
            counters.sendFailures += 1
        }
    }

    // MARK: Timer

    func tick(now: UInt64) {
        if scheduleStart != nil { applySchedules(now: now) }
        downlinkQueue.drain(now: now) { buffer, length in process(buffer, length: length, now: now) }
        uplinkQueue.drain(now: now) { buffer, length in transmit(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length])) }
        handler?.tick(now: now, endpoint: self)
    }

    private func applySchedules(now: UInt64) {
        guard let scheduleStart else { return }
        let elapsed = Double(now - scheduleStart) / 1e9
        let down = downlinkSchedule.impairment(atSeconds: elapsed)
        if down != downlink.impairment { downlink.change(to: down) }
        let up = uplinkSchedule.impairment(atSeconds: elapsed)
        if up != uplink.impairment { uplink.change(to: up) }
    }

    static func ipv4(_ host: String, port: UInt16) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return address
    }
}

/// What one endpoint's socket saw, before SRTP.
public struct EndpointCounters: Equatable, Sendable {
    public var datagramsReceived: UInt64 = 0
    public var bytesReceived: UInt64 = 0
    public var datagramsSent: UInt64 = 0
    public var bytesSent: UInt64 = 0
    /// Dropped by the impairment layer (random or burst loss, a full bandwidth queue, or a full delay line).
    public var datagramsLostToImpairment: UInt64 = 0
    /// Failed SRTP or RTP parsing.
    public var datagramsRefused: UInt64 = 0
    public var sendFailures: UInt64 = 0
}
