/// A list of 32-bit SSRCs in a packet body (BYE, REMB), read as they are accessed.
public struct RTCPSSRCList: RandomAccessCollection {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    /// How many entries the packet carries.
    public let count: Int

    init(bytes: UnsafeRawBufferPointer, start: Int, count: Int) {
        self.bytes = bytes
        self.start = start
        self.count = count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt32 {
        precondition(position >= 0 && position < count, "SSRC index out of range")
        return bytes.uint32(at: start + position * 4)
    }
}
