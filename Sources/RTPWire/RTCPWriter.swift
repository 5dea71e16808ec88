/// Appends RTCP packets to a caller-owned buffer, building a compound packet in place.
///
/// Each packet type's `write(..., into:)` appends one packet at `offset`. A write that fails leaves
/// `offset` where it was, so the bytes before it are always a well-formed compound packet.
public struct RTCPWriter {
    /// The buffer packets are written into.
    public let buffer: UnsafeMutableRawBufferPointer
    /// Where the next packet goes; everything before it is written.
    public private(set) var offset: Int

    /// Starts writing at `offset` of `buffer`.
    public init(into buffer: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        precondition(offset >= 0 && offset <= buffer.count, "writer offset outside the buffer")
        self.buffer = buffer
        self.offset = offset
    }

    /// Bytes left after `offset`.
    public var available: Int { buffer.count - offset }

    /// The bytes written so far (from the start of the buffer).
    public var written: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[0..<offset])
    }

    /// Forgets everything written, to reuse the buffer for the next compound packet.
    public mutating func reset() { offset = 0 }

    /// Builds a compound packet into a fresh array: for tests and the control path, not per packet.
    public static func bytes(
        capacity: Int = 1500,
        _ build: (inout RTCPWriter) throws(RTCPError) -> Void
    ) throws(RTCPError) -> [UInt8] {
        var storage = [UInt8](repeating: 0, count: capacity)
        var failure: RTCPError?
        let length = storage.withUnsafeMutableBytes { raw -> Int in
            var writer = RTCPWriter(into: raw)
            do throws(RTCPError) {
                try build(&writer)
            } catch {
                failure = error
            }
            return writer.offset
        }
        if let failure { throw failure }
        storage.removeSubrange(length...)
        return storage
    }

    // MARK: Internals shared by the packet types

    /// Checks there is room for a packet of `byteCount` bytes at `offset`.
    func requireRoom(_ byteCount: Int) throws(RTCPError) {
        guard byteCount <= available else { throw .noRoom(needed: byteCount, available: available) }
    }

    /// Checks there is room for a packet of `byteCount` bytes at `offset`, writes its header with
    /// `count` and the kind's PT, and returns where the packet starts. Does not move `offset`.
    func beginPacket(
        _ kind: RTCPPacketKind,
        count: UInt8,
        byteCount: Int,
        paddingByteCount: Int = 0
    ) throws(RTCPError) -> Int {
        guard byteCount <= Self.maximumPacketByteCount else { throw .packetTooLong(kind: kind, byteCount: byteCount) }
        try requireRoom(byteCount)
        writeHeader(kind, count: count, byteCount: byteCount, paddingByteCount: paddingByteCount, at: offset)
        return offset
    }

    /// Writes a header at `start` for a packet of `byteCount` bytes (a multiple of 4).
    func writeHeader(_ kind: RTCPPacketKind, count: UInt8, byteCount: Int, paddingByteCount: Int = 0, at start: Int) {
        RTCPHeader(
            hasPadding: paddingByteCount > 0,
            count: count,
            packetType: kind.packetType,
            length: UInt16(truncatingIfNeeded: byteCount / 4 - 1)
        ).write(into: buffer, at: start)
    }

    /// Accepts the packet written at `offset` as `byteCount` bytes long.
    mutating func commit(byteCount: Int) {
        offset += byteCount
    }

    /// The largest packet a 16-bit length field (in words minus one) can describe.
    static let maximumPacketByteCount = 65536 * 4

    /// Rounds up to the next multiple of 4, the alignment every RTCP packet keeps.
    static func padded(_ byteCount: Int) -> Int { (byteCount + 3) & ~3 }

    /// Writes `count` zero bytes from `start`.
    func zero(from start: Int, count: Int) {
        guard count > 0 else { return }
        for index in start..<(start + count) { buffer[index] = 0 }
    }

    /// Copies UTF-8 text to `start`.
    func copy(_ text: String.UTF8View, to start: Int) {
        var index = start
        for byte in text {
            buffer[index] = byte
            index += 1
        }
    }
}
