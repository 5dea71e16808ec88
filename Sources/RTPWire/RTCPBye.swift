/// A goodbye, BYE (RFC 3550 section 6.6): the listed sources are leaving, optionally saying why.
///
///            0                   1                   2                   3
///            0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///           +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///           |V=2|P|    SC   |   PT=BYE=203  |             length            |
///           +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///           |                           SSRC/CSRC                           |
///           +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///           :                              ...                              :
///           +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     (opt) |     length    |               reason for leaving            ...
///           +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// The reason is padded with null octets to a 32-bit boundary; those are not part of its length.
public struct RTCPBye {
    /// The packet this BYE was parsed from.
    public let packet: RTCPPacketView

    /// Checks that `packet` is a BYE whose SSRCs and reason fit.
    public init(_ packet: RTCPPacketView) throws(RTCPError) {
        try packet.validate(as: .bye)
        let count = Int(packet.count)
        let end = packet.byteCountWithoutPadding
        let available = end - RTCPHeader.byteCount
        guard count * 4 <= available else { throw .byeSSRCsPastEnd(count: count, available: available) }
        let reasonStart = RTCPHeader.byteCount + count * 4
        if reasonStart < end {
            let declared = Int(packet.bytes[reasonStart])
            guard reasonStart + 1 + declared <= end else {
                throw .byeReasonPastEnd(declaredBytes: declared, available: end - reasonStart - 1)
            }
        }
        self.packet = packet
    }

    /// How many SSRCs are leaving (the SC field).
    public var ssrcCount: Int { Int(packet.count) }

    /// The SSRC at `index`, which must be below `ssrcCount`.
    public func ssrc(at index: Int) -> UInt32 { ssrcs[index] }

    /// The sources that are leaving.
    public var ssrcs: RTCPSSRCList { RTCPSSRCList(bytes: packet.bytes, start: RTCPHeader.byteCount, count: ssrcCount) }

    /// The reason for leaving (UTF-8, not terminated), or nil when the packet carries none.
    public var reason: UnsafeRawBufferPointer? {
        let start = RTCPHeader.byteCount + ssrcCount * 4
        guard start < packet.byteCountWithoutPadding else { return nil }
        let length = Int(packet.bytes[start])
        return UnsafeRawBufferPointer(rebasing: packet.bytes[(start + 1)..<(start + 1 + length)])
    }

    /// The reason decoded as a string; allocates, so for the control path only.
    public var reasonString: String? { reason.map { String(decoding: $0, as: UTF8.self) } }

    /// Appends a BYE for up to 31 sources, with an optional reason of up to 255 UTF-8 bytes.
    public static func write(
        ssrcs: some Collection<UInt32>,
        reason: String? = nil,
        into writer: inout RTCPWriter
    ) throws(RTCPError) {
        let count = ssrcs.count
        guard count <= 31 else { throw .tooManyItems(kind: .bye, count: count, maximum: 31) }
        let reasonBytes = reason?.utf8.count ?? 0
        guard reasonBytes <= 255 else { throw .textTooLong(kind: .bye, byteCount: reasonBytes, maximum: 255) }
        let reasonStart = RTCPHeader.byteCount + count * 4
        let byteCount = reason == nil ? reasonStart : RTCPWriter.padded(reasonStart + 1 + reasonBytes)
        let start = try writer.beginPacket(.bye, count: UInt8(count), byteCount: byteCount)
        let buffer = writer.buffer
        var offset = start + RTCPHeader.byteCount
        for ssrc in ssrcs {
            buffer.setUInt32(ssrc, at: offset)
            offset += 4
        }
        if let reason {
            buffer[offset] = UInt8(reasonBytes)
            writer.copy(reason.utf8, to: offset + 1)
            let textEnd = offset + 1 + reasonBytes
            writer.zero(from: textEnd, count: start + byteCount - textEnd)
        }
        writer.commit(byteCount: byteCount)
    }
}
