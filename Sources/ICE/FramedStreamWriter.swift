/// A bounded queue of RFC 4571 frames waiting for a TCP socket to take them. A frame is queued whole
/// or not at all, so a full queue drops whole datagrams, as a full router buffer does, and what
/// reaches the wire is always a sequence of whole frames. Not thread-safe; owned by one connection on
/// one worker.
public struct FramedStreamWriter: ~Copyable {
    public let capacity: Int
    private var storage = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Queued bytes are `storage[start..<end]`.
    private var start = 0
    private var end = 0

    public init(capacity: Int) {
        self.capacity = capacity
    }

    deinit {
        storage.deallocate()
    }

    /// Bytes queued and not yet taken by the socket.
    public var queuedBytes: Int { end - start }

    /// Queues `payload` behind its two-byte length. Returns false, queueing nothing, when it does not
    /// fit in what is left of the capacity or is longer than a frame can say.
    public mutating func append(_ payload: UnsafeRawBufferPointer) -> Bool {
        let needed = payload.count + 2
        guard payload.count <= Int(UInt16.max), needed <= capacity - queuedBytes else { return false }
        if storage.baseAddress == nil { storage = .allocate(byteCount: capacity, alignment: 16) }
        if end + needed > capacity { compact() }
        storage[end] = UInt8(truncatingIfNeeded: payload.count >> 8)
        storage[end + 1] = UInt8(truncatingIfNeeded: payload.count)
        if let source = payload.baseAddress, payload.count > 0 {
            (storage.baseAddress! + end + 2).copyMemory(from: source, byteCount: payload.count)
        }
        end += needed
        return true
    }

    /// The queued bytes, oldest first, for the socket's next write.
    public var pending: UnsafeRawBufferPointer {
        storage.baseAddress == nil ? UnsafeRawBufferPointer(start: nil, count: 0) : UnsafeRawBufferPointer(rebasing: storage[start..<end])
    }

    /// Records that the socket took the first `count` bytes of `pending`.
    public mutating func didWrite(_ count: Int) {
        start += count
        if start == end {
            start = 0
            end = 0
        }
    }

    private mutating func compact() {
        let count = end - start
        if count > 0 { storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: count) }
        start = 0
        end = count
    }
}
