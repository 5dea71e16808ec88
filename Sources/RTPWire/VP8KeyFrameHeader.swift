/// The picture size a VP8 key frame starts with (RFC 6386 section 9.1): after the 3-byte frame tag,
/// the start code 9d 01 2a, then width and height as 14-bit little-endian values (the top 2 bits of
/// each scale the picture on display, which does not change what is sent).
public struct VP8KeyFrameHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Reads the header from the VP8 payload of a packet that starts a key frame (the bytes after the
    /// payload descriptor). Nil when the bytes are too few, the start code is wrong or a size is 0.
    @inlinable
    public init?(payload: UnsafeRawBufferPointer) {
        guard payload.count >= 10, payload[3] == 0x9d, payload[4] == 0x01, payload[5] == 0x2a else { return nil }
        let width = (Int(payload[7]) << 8 | Int(payload[6])) & 0x3fff
        let height = (Int(payload[9]) << 8 | Int(payload[8])) & 0x3fff
        guard width > 0, height > 0 else { return nil }
        self.init(width: width, height: height)
    }
}
