/// A failure of libopus or libvpx, with the library's own message.
public enum CodecError: Error, Equatable, Sendable, CustomStringConvertible {
    case opus(operation: String, code: Int32)
    case vpx(operation: String, message: String)
    case invalidSetting(String)

    public var description: String {
        switch self {
        case .opus(let operation, let code): "libopus \(operation) failed with error \(code)"
        case .vpx(let operation, let message): "libvpx \(operation) failed: \(message)"
        case .invalidSetting(let message): message
        }
    }
}
