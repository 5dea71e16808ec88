/// Reassembles RFC 4571 frames from a TCP byte stream into a fixed buffer it owns, as ICE-TCP
/// (RFC 6544) carries STUN, DTLS and SRTP:
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     -----------------------------------------------------------------
///     |             LENGTH            |  RTP or RTCP packet ...       |
///     -----------------------------------------------------------------
///
/// The buffer holds `capacity` bytes: a frame longer than `maximumFrameBytes` is a protocol error
/// (media frames are datagram-sized), so a peer can never make the reader hold more than that.
/// Not thread-safe; owned by one connection on one worker.
public struct FramedStreamReader: ~Copyable {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// A frame announced more bytes than datagrams carry.
        case frameTooLong(Int, maximum: Int)
        /// A zero-length frame, which no protocol on an ICE-TCP connection sends.
        case emptyFrame

        public var description: String {
            switch self {
            case .frameTooLong(let length, let maximum): "an RFC 4571 frame of \(length) bytes (the most taken is \(maximum))"
            case .emptyFrame: "an empty RFC 4571 frame"
            }
        }
    }

    public let maximumFrameBytes: Int
    private let storage: UnsafeMutableRawBufferPointer
    /// Unconsumed bytes are `storage[start..<end]`.
    private var start = 0
    private var end = 0

    /// A reader whose buffer holds one whole frame of `maximumFrameBytes` and its length prefix, and
    /// as much again so that one read can bring in the next frame's start.
    public init(maximumFrameBytes: Int) {
        self.maximumFrameBytes = maximumFrameBytes
        storage = .allocate(byteCount: 2 * (maximumFrameBytes + 2), alignment: 16)
    }

    deinit {
        storage.deallocate()
    }

    /// Where the next read may write, and how much: at least one byte while frames are being taken.
    public mutating func freeSpace() -> UnsafeMutableRawBufferPointer {
        if end == storage.count, start > 0 { compact() }
        return UnsafeMutableRawBufferPointer(rebasing: storage[end...])
    }

    /// Records that a read wrote `count` bytes into `freeSpace()`.
    public mutating func didRead(_ count: Int) {
        end += count
    }

    /// The next whole frame, without its length prefix, valid until the next call on the reader; nil
    /// when the buffer holds only part of one.
    public mutating func nextFrame() throws(Failure) -> UnsafeMutableRawBufferPointer? {
        guard end - start >= 2 else { return nil }
        let length = Int(storage[start]) << 8 | Int(storage[start + 1])
        guard length > 0 else { throw .emptyFrame }
        guard length <= maximumFrameBytes else { throw .frameTooLong(length, maximum: maximumFrameBytes) }
        guard end - start >= 2 + length else {
            // The rest of the frame needs room after `end`: move what is here to the front first.
            if start + 2 + length > storage.count { compact() }
            return nil
        }
        let frame = UnsafeMutableRawBufferPointer(rebasing: storage[(start + 2)..<(start + 2 + length)])
        start += 2 + length
        if start == end {
            start = 0
            end = 0
        }
        return frame
    }

    /// Bytes received and not yet taken as frames.
    public var bufferedBytes: Int { end - start }

    private mutating func compact() {
        let count = end - start
        if count > 0 { storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: count) }
        start = 0
        end = count
    }
}
