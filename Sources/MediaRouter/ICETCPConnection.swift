import CSystemShims
import Glibc
import ICE

/// One TCP connection a client opened to a worker's ICE-TCP port (RFC 6544 passive candidate),
/// carrying RFC 4571 frames of STUN, DTLS and SRTP. It belongs to no transport until its first frame,
/// a STUN check, names a transport's ICE username and that transport's ICE verifies it; from then on
/// its frames go to that transport as datagrams from `peer` would, and the transport's sends to `peer`
/// are queued here.
///
/// What a peer can make it hold is bounded: one frame of `maximumFrameBytes` being reassembled, and
/// `sendQueueBytes` queued toward a client that reads slower than the router sends (beyond that,
/// whole frames are dropped, which the client's transport-wide feedback reports as loss, so the
/// downlink estimate and the audio-fallback policy see a congested TCP path as the congestion it is).
///
/// Confined to its worker's thread.
final class ICETCPConnection {
    /// Longer frames close the connection: the router's datagrams fit in a receive slot.
    static let maximumFrameBytes = Worker.receiveSlotBytes
    /// Bytes queued toward the client above what its kernel send buffer holds.
    static let sendQueueBytes = 128 * 1024
    /// The kernel send buffer asked for (the kernel doubles it): a small one keeps the queue, and
    /// its drops, where the router sees them.
    static let kernelSendBufferBytes: Int32 = 64 * 1024

    let descriptor: Int32
    let peer: IPv4Address
    let acceptedAt: UInt64
    var lastReceivedAt: UInt64
    var reader: FramedStreamReader
    var writer: FramedStreamWriter
    /// The transport its first STUN check named, and whether that transport's ICE verified it.
    weak var transport: Transport?
    var isVerified = false
    /// Whether the worker's epoll set also waits for the socket to take more bytes.
    var wantsWritable = false
    /// Whether the connection is in the worker's list of connections to write at the next flush.
    var isQueuedForWrite = false
    private(set) var isClosed = false

    init(descriptor: Int32, peer: IPv4Address, now: UInt64) {
        self.descriptor = descriptor
        self.peer = peer
        acceptedAt = now
        lastReceivedAt = now
        reader = FramedStreamReader(maximumFrameBytes: Self.maximumFrameBytes)
        writer = FramedStreamWriter(capacity: Self.sendQueueBytes)
    }

    deinit {
        if !isClosed { Glibc.close(descriptor) }
    }

    /// Reads what the socket has into the frame buffer. Returns the bytes read; 0 at the end of the
    /// stream or on an error (a reset); nil when the socket has nothing now.
    func read() -> Int? {
        let space = reader.freeSpace()
        guard space.count > 0 else { return nil }
        let count = recv(descriptor, space.baseAddress, space.count, Int32(MSG_DONTWAIT))
        if count > 0 {
            reader.didRead(count)
            return count
        }
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
        return 0
    }

    /// Queues one datagram as a frame. False when the connection is closed or the queue has no room
    /// for it (the worker counts that drop).
    func queue(_ datagram: UnsafeRawBufferPointer) -> Bool {
        !isClosed && writer.append(datagram)
    }

    /// Writes queued frames until the socket stops taking them. Returns false when the connection
    /// failed (reset, or the peer went away).
    func writeQueued() -> Bool {
        while writer.queuedBytes > 0 {
            let pending = writer.pending
            let written = switchyard_tcp_send(descriptor, pending.baseAddress, UInt(pending.count))
            if written > 0 {
                writer.didWrite(written)
                continue
            }
            if written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return true }
            return false
        }
        return true
    }

    /// Closes the socket; what the transport sends to `peer` afterwards is dropped here rather than
    /// sent over UDP to an address that never offered it.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }
}
