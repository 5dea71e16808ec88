/// Whether an H.264 RTP payload (RFC 6184, packetization mode 1) starts a picture a decoder can begin
/// at: an IDR slice, or the sequence parameter set sent ahead of one. The router never decodes H.264;
/// this is all it needs to know of a packet, read without allocating.
///
/// The first octet is a NAL unit header (`F|NRI|Type`). Types 1-23 are a single NAL unit; 24 (STAP-A)
/// aggregates NAL units, each after a 16-bit size; 28 (FU-A) carries a fragment of one, whose own type
/// is in the second octet (`S|E|R|Type`) and counts only on the fragment with S set.
public enum H264KeyFrame {
    /// NAL unit types (ITU-T H.264 table 7-1) that mark the start of a key frame.
    static let instantaneousDecodingRefresh: UInt8 = 5
    static let sequenceParameterSet: UInt8 = 7
    static let singleTimeAggregation: UInt8 = 24
    static let fragmentationUnit: UInt8 = 28

    public static func starts(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let first = payload.first else { return false }
        switch first & 0x1F {
        case singleTimeAggregation:
            var offset = 1
            while offset + 2 < payload.count {
                let size = Int(payload[offset]) << 8 | Int(payload[offset + 1])
                guard size > 0, offset + 2 + size <= payload.count else { return false }
                if startsKeyFrame(nalType: payload[offset + 2] & 0x1F) { return true }
                offset += 2 + size
            }
            return false
        case fragmentationUnit:
            guard payload.count >= 2 else { return false }
            let header = payload[1]
            return header & 0x80 != 0 && startsKeyFrame(nalType: header & 0x1F)
        case let type:
            return startsKeyFrame(nalType: type)
        }
    }

    private static func startsKeyFrame(nalType: UInt8) -> Bool {
        nalType == instantaneousDecodingRefresh || nalType == sequenceParameterSet
    }
}
