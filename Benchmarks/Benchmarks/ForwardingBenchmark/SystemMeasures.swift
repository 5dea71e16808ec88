import Glibc

/// Clocks, CPU time, RSS and loopback sockets for the benchmark; plain system calls, no Foundation.

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func threadCPUNanoseconds(_ clock: clockid_t) -> UInt64 {
    var time = timespec()
    guard clock_gettime(clock, &time) == 0 else { return 0 }
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// CPU time of every thread of the process, live or exited.
func processCPUNanoseconds() -> UInt64 {
    threadCPUNanoseconds(CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time of the calling thread.
func currentThreadCPUNanoseconds() -> UInt64 {
    threadCPUNanoseconds(CLOCK_THREAD_CPUTIME_ID)
}

/// Blocks the calling thread; the harness sleeps like this through a measured window so that it
/// neither allocates nor runs Swift concurrency jobs.
func sleepNanoseconds(_ duration: UInt64) {
    var request = timespec(tv_sec: Int(duration / 1_000_000_000), tv_nsec: Int(duration % 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
}

/// Resident set size, from the second field of /proc/self/statm.
func residentBytes() -> Int {
    let descriptor = open("/proc/self/statm", O_RDONLY)
    guard descriptor >= 0 else { return 0 }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return 0 }
    let fields = buffer[0..<count].split(separator: UInt8(ascii: " "))
    guard fields.count > 1 else { return 0 }
    var pages = 0
    for digit in fields[1] where digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") {
        pages = pages * 10 + Int(digit - UInt8(ascii: "0"))
    }
    return pages * sysconf(Int32(_SC_PAGESIZE))
}

/// Raises the soft limit of open files to the hard limit: the memory run holds over a thousand sockets.
func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
}

private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

/// A non-blocking UDP socket bound to 127.0.0.1 on a port the kernel picks, with a 4 MiB receive
/// buffer, and that port.
func makeLoopbackSocket() -> (descriptor: Int32, port: UInt16) {
    let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    precondition(descriptor >= 0, "socket failed: errno \(errno)")
    var bufferSize: Int32 = 4 << 20
    _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
    var address = loopbackAddress(port: 0)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    precondition(bound == 0, "bind failed: errno \(errno)")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    return (descriptor, UInt16(bigEndian: address.sin_port))
}

/// Connects a UDP socket to 127.0.0.1:`port`, so that `send` needs no address.
func connectLoopback(_ descriptor: Int32, port: UInt16) {
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    precondition(connected == 0, "connect failed: errno \(errno)")
}

private func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    address.sin_port = port.bigEndian
    return address
}

/// `value` with `decimals` digits after the point, without Foundation.
func formatted(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = Int(scaled - Double(whole) * scale)
    let sign = value < 0 && scaled > 0 ? "-" : ""
    guard decimals > 0 else { return "\(sign)\(whole)" }
    let digits = String(fraction)
    return "\(sign)\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
}
