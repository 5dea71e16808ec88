import SRTP
import TestSupport

/// A packet in an aligned buffer with room for any SRTP trailer, the way the media plane holds them.
struct PacketBuffer {
    var storage: [UInt8]
    var length: Int

    init(_ bytes: [UInt8], tailRoom: Int = 32) {
        storage = bytes + [UInt8](repeating: 0, count: tailRoom)
        length = bytes.count
    }

    var bytes: [UInt8] { Array(storage.prefix(length)) }

    mutating func apply(_ transform: (UnsafeMutableRawBufferPointer, Int) throws(SRTPError) -> Int) throws(SRTPError) {
        let currentLength = length
        let result: Result<Int, SRTPError> = storage.withUnsafeMutableBytes { buffer in
            do throws(SRTPError) {
                return .success(try transform(buffer, currentLength))
            } catch {
                return .failure(error)
            }
        }
        length = try result.get()
    }
}

/// An RTP packet with `payloadLength` bytes of a pattern derived from the sequence number.
func rtpPacket(sequenceNumber: UInt16, ssrc: UInt32 = 0xCAFE_BABE, payloadLength: Int = 160) -> [UInt8] {
    var bytes: [UInt8] = [0x80, 0x6F, UInt8(sequenceNumber >> 8), UInt8(sequenceNumber & 0xFF), 0, 0, 0x03, 0xC0]
    bytes += [UInt8(ssrc >> 24), UInt8((ssrc >> 16) & 0xFF), UInt8((ssrc >> 8) & 0xFF), UInt8(ssrc & 0xFF)]
    bytes += (0..<payloadLength).map { UInt8(truncatingIfNeeded: $0 &+ Int(sequenceNumber)) }
    return bytes
}

func sessionPair(_ profile: SRTPProfile) throws -> (sender: SRTPSession, receiver: SRTPSession) {
    let keys = SRTPKeyMaterial.random(profile: profile)
    return (
        try SRTPSession(keyMaterial: keys, direction: .outbound),
        try SRTPSession(keyMaterial: keys, direction: .inbound)
    )
}
