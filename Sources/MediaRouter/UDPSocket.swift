import CSystemShims
import Glibc
import MediaControl

/// A non-blocking IPv4 UDP socket bound to a local port. Closing happens in `deinit`, so a transport
/// that goes away releases its port.
final class UDPSocket {
    let descriptor: Int32
    let localPort: UInt16

    /// Binds to `address` on the first free port of `portRange`, starting the search at `startingAt` so
    /// that successive transports do not all probe from the bottom.
    init(address: String, portRange: ClosedRange<UInt16>, startingAt start: UInt16) throws(MediaControlError) {
        guard var addressValue = IPv4Address(address) else {
            throw .invalidParameters(reason: "listen address \"\(address)\" is not a dotted-quad IPv4 address")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        var bufferSize: Int32 = 4 << 20
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
        // How long media waited here is how far behind the worker is: what overload shedding judges.
        _ = switchyard_enable_receive_timestamps(descriptor)
        let count = Int(portRange.upperBound) - Int(portRange.lowerBound) + 1
        let first = portRange.contains(start) ? Int(start - portRange.lowerBound) : 0
        for attempt in 0..<count {
            let port = UInt16(Int(portRange.lowerBound) + (first + attempt) % count)
            addressValue.port = port
            if addressValue.withSocketAddress({ bind(descriptor, $0, $1) }) == 0 {
                self.descriptor = descriptor
                self.localPort = port
                return
            }
            guard errno == EADDRINUSE else {
                let failure = errno
                close(descriptor)
                throw .system(call: "bind", errno: failure)
            }
        }
        close(descriptor)
        throw .noFreePort(lowest: portRange.lowerBound, highest: portRange.upperBound)
    }

    deinit {
        close(descriptor)
    }
}

/// An IPv4 address and port, kept as the `sockaddr_in` the socket calls take.
struct IPv4Address: Hashable {
    var storage: sockaddr_in

    init?(_ host: String, port: UInt16 = 0) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        storage = address
    }

    init(_ address: sockaddr_in) {
        storage = address
    }

    /// Reads the address a receive slot recorded, if it is IPv4.
    init?(slot: switchyard_datagram_slot) {
        var copy = slot.address
        guard copy.ss_family == sa_family_t(AF_INET) else { return nil }
        storage = withUnsafeBytes(of: &copy) { $0.load(as: sockaddr_in.self) }
    }

    var port: UInt16 {
        get { UInt16(bigEndian: storage.sin_port) }
        set { storage.sin_port = newValue.bigEndian }
    }

    var host: String {
        var address = storage.sin_addr
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        inet_ntop(AF_INET, &address, &text, socklen_t(INET_ADDRSTRLEN))
        return String(cString: text)
    }

    var transportAddress: TransportAddress { TransportAddress(host: host, port: port) }

    static func == (lhs: IPv4Address, rhs: IPv4Address) -> Bool {
        lhs.storage.sin_port == rhs.storage.sin_port && lhs.storage.sin_addr.s_addr == rhs.storage.sin_addr.s_addr
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    /// Address and port in one integer, for tables keyed by remote address.
    var key: UInt64 { UInt64(storage.sin_addr.s_addr) << 16 | UInt64(storage.sin_port) }

    /// The `key` of a receive slot's source, without building a value.
    @inline(__always)
    static func key(of slot: UnsafePointer<switchyard_datagram_slot>) -> UInt64 {
        withUnsafeBytes(of: slot.pointee.address) { raw in
            UInt64(raw.load(fromByteOffset: 4, as: UInt32.self)) << 16 | UInt64(raw.load(fromByteOffset: 2, as: UInt16.self))
        }
    }

    /// The address in host byte order, as STUN's XOR-MAPPED-ADDRESS takes it.
    var hostOrderAddress: UInt32 { UInt32(bigEndian: storage.sin_addr.s_addr) }

    /// Whether a receive slot's source is this address, without building a value.
    @inline(__always)
    func matches(_ slot: UnsafePointer<switchyard_datagram_slot>) -> Bool {
        let family = slot.pointee.address.ss_family
        guard family == sa_family_t(AF_INET) else { return false }
        return withUnsafeBytes(of: slot.pointee.address) { raw in
            raw.load(fromByteOffset: 2, as: UInt16.self) == storage.sin_port
                && raw.load(fromByteOffset: 4, as: UInt32.self) == storage.sin_addr.s_addr
        }
    }

    /// Writes this address into a send slot.
    @inline(__always)
    func write(into slot: UnsafeMutablePointer<switchyard_datagram_slot>) {
        withUnsafeMutableBytes(of: &slot.pointee.address) { raw in
            raw.storeBytes(of: storage, as: sockaddr_in.self)
        }
        slot.pointee.address_length = socklen_t(MemoryLayout<sockaddr_in>.size)
    }

    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
