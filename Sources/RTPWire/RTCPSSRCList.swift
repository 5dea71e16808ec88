/// A list of 32-bit SSRCs in a packet body (BYE, REMB), read as they are accessed.
public typealias RTCPSSRCList = RTCPItemList<UInt32>

extension UInt32: RTCPFixedSizeItem {
    public static var wireByteCount: Int { 4 }

    public init(rtcpBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
        self = bytes.uint32(at: offset)
    }
}
