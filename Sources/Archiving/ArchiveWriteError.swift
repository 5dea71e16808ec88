import CAVFormat
import Foundation

/// Why an archive's file could not be written.
enum ArchiveWriteError: Error, Equatable, CustomStringConvertible {
    /// A libavformat call failed.
    case muxer(path: String, call: String, code: Int32)
    /// The archive's directory could not be made or written.
    case directory(path: String, reason: String)

    var description: String {
        switch self {
        case .muxer(let path, let call, let code):
            var text = [CChar](repeating: 0, count: 256)
            av_strerror(code, &text, text.count)
            return "\(call) failed for \(path): \(String(cString: text)) (\(code))"
        case .directory(let path, let reason):
            return "cannot write \(path): \(reason)"
        }
    }
}
