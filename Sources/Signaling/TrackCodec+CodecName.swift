import MediaControl
import SignalingProtocol

/// The protocol's codec names and the media plane's are the same three; one place turns each into
/// the other.
extension CodecName {
    init(_ codec: TrackCodec) {
        switch codec {
        case .opus: self = .opus
        case .vp8: self = .vp8
        case .h264: self = .h264
        }
    }
}

extension TrackCodec {
    init(_ name: CodecName) {
        switch name {
        case .opus: self = .opus
        case .vp8: self = .vp8
        case .h264: self = .h264
        }
    }
}
